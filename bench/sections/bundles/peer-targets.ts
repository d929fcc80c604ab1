import type { SectionContext } from '../../lib/context';
import { millions, round } from '../../lib/stats';
import type { BundleFigure } from './figures';

/**
 * Issue #19's targets against the peer (get-product of aws-samples/serverless-typescript-demo,
 * given with --peer-bundle), for get-sim, the service's read of one item: its load
 * instructions at most 0.75 × the peer's, and its cold import plus first call at most 0.9 ×
 * the peer's, on the median time and on the instructions (the one to trust on a loaded
 * machine). SKIP, with the reason, without a peer bundle or without its figures.
 */
const peerTargets = { loadInstructions: 0.75, coldCall: 0.9 };

/** Records issue #19's targets against the peer (peerTargets), or SKIPs them with the reason. */
export const recordPeerTargets = (context: SectionContext, figures: BundleFigure[], peerGiven: boolean): void => {
  const section = '1 bundles';
  const subject = 'get-sim';
  const ours = figures.find((figure) => figure.name === subject && !figure.error);
  const peer = figures.find((figure) => figure.kind === 'peer');
  const wanted = {
    load: `load instructions ≤ ${peerTargets.loadInstructions} × the peer's`,
    cold: `cold import plus first call ≤ ${peerTargets.coldCall} × the peer's (median ms)`,
    coldInstructions: `cold import plus first call ≤ ${peerTargets.coldCall} × the peer's instructions`,
  };
  const skipAll = (reason: string) => {
    context.targets.skip({ section, id: 'peer-load-instructions', subject, target: wanted.load, reason });
    context.targets.skip({ section, id: 'peer-cold-call', subject, target: wanted.cold, reason });
    context.targets.skip({ section, id: 'peer-cold-call-instructions', subject, target: wanted.coldInstructions, reason });
  };
  if (!peerGiven) {
    skipAll('no peer bundle given (--peer-bundle=PATH: build it as docs/benchmarks.md, "The peer", says)');
    return;
  }
  if (!peer || peer.error || !ours) {
    skipAll(`${!ours ? 'get-sim' : 'the peer'} was not measured${peer?.error ? `: ${peer.error}` : ''}`);
    return;
  }
  const evidence = `get-sim: load ${ours.loadInstructions === undefined ? 'n/a' : `${millions(ours.loadInstructions)} M`}, ` +
    `first call ${ours.coldCall?.firstCallInstructions === undefined ? 'n/a' : `${millions(ours.coldCall.firstCallInstructions)} M`}; ` +
    `the peer: load ${peer.loadInstructions === undefined ? 'n/a' : `${millions(peer.loadInstructions)} M`}, ` +
    `first call ${peer.coldCall?.firstCallInstructions === undefined ? 'n/a' : `${millions(peer.coldCall.firstCallInstructions)} M`}`;
  const ratioCheck = (id: string, target: string, value: number | undefined, peerValue: number | undefined, factor: number, unit: (n: number) => string, reason: string) => {
    if (value === undefined || peerValue === undefined || !Number.isFinite(value) || !Number.isFinite(peerValue) || peerValue <= 0) {
      context.targets.skip({ section, id, subject, target, reason });
      return;
    }
    const ratio = value / peerValue;
    context.targets.check({
      section, id, subject, target: `${target} = ${unit(peerValue * factor)}`, actual: `${unit(value)} (${round(ratio, 3)} × the peer's ${unit(peerValue)})`,
      met: ratio <= factor, evidence,
    });
  };
  // A cold call that did not answer its success path every time measured something else.
  const usable = (figure: BundleFigure) => (figure.coldCall && figure.coldCall.unexpected === 0 ? figure.coldCall : undefined);
  const mega = (count: number) => `${millions(count)} M`;
  const ms = (value: number) => `${round(value, 1)} ms`;
  ratioCheck('peer-load-instructions', wanted.load, ours.loadInstructions, peer.loadInstructions, peerTargets.loadInstructions, mega,
    ours.instructionsNote ?? peer.instructionsNote ?? 'the load instructions were not counted');
  ratioCheck('peer-cold-call', wanted.cold, usable(ours)?.coldMs, usable(peer)?.coldMs, peerTargets.coldCall, ms,
    ours.coldCall?.note ?? peer.coldCall?.note ?? 'the cold calls were not measured');
  ratioCheck('peer-cold-call-instructions', wanted.coldInstructions, usable(ours)?.coldInstructions, usable(peer)?.coldInstructions, peerTargets.coldCall, mega,
    ours.coldCall?.note ?? peer.coldCall?.note ?? 'the cold calls were not counted');
};
