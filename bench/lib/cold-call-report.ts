/** The "cold import plus first call" table of section 1 in RESULTS.md (bench/lib/report.ts). */
import type { BundleFigure } from '../sections/bundles';
import { millions, round } from './stats';

const cell = (value: unknown): string => String(value ?? '—').replace(/\|/g, '\\|').replace(/\n/g, ' ');

const count = (value: number | undefined): string => (value === undefined ? 'n/a' : String(millions(value)));

const ratio = (value: number | undefined, peer: number | undefined): string =>
  value === undefined || peer === undefined || !Number.isFinite(value) || !Number.isFinite(peer) || peer <= 0 ? '—' : String(round(value / peer, 2));

/**
 * One row per bundle that was cold-called (the minimal handler, the Area A routes, the peer):
 * the median times of the import, the first call and both, the instructions of both and of
 * the first call alone, each beside the peer's where a peer was given.
 */
export const coldCallTable = (figures: BundleFigure[]): string => {
  const rows = figures.filter((figure) => figure.coldCall);
  const peer = rows.find((figure) => figure.kind === 'peer')?.coldCall;
  const header = [
    'function', 'processes', 'import ms', 'first call ms', 'import + first call ms (median)', '× peer', 'whole process ms',
    'import + first call M instructions', '× peer', 'of which load', 'of which first call', 'answered', 'note',
  ];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((figure) => {
      const cold = figure.coldCall!;
      return `| ${[
        figure.name, cold.samples, cold.importMs, cold.callMs, cold.coldMs, ratio(cold.coldMs, peer?.coldMs), cold.processMs,
        count(cold.coldInstructions), ratio(cold.coldInstructions, peer?.coldInstructions), count(figure.loadInstructions),
        count(cold.firstCallInstructions), cold.unexpected > 0 ? `${cold.unexpected} × not the success path (${cold.status})` : String(cold.status),
        cold.note ?? '',
      ].map(cell).join(' | ')} |`;
    }),
  ].join('\n');
};
