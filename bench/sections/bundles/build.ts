import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { esbuildBuildOptions, sideModuleBuildOptions, sideModulesOf } from '../../../infra/bundling';
import type { SectionContext } from '../../lib/context';
import type { PeerBundle } from '../../lib/peer';
import { bundleCandidates } from './candidates';
import { dynamoName, type BundleFigure } from './figures';

/** `node_modules/@scope/name/...` → `@scope/name`; `shared/sims/x.ts` → `shared/sims`. */
const inputGroup = (path: string): string => {
  const at = path.lastIndexOf('node_modules/');
  if (at !== -1) {
    const parts = path.slice(at + 'node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
};

const groupInputs = (inputs: Record<string, { bytesInOutput: number }>, keep: (path: string) => boolean) => {
  const groups = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    if (!keep(path) || bytesInOutput === 0) continue;
    const group = inputGroup(path);
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  return [...groups].map(([name, bytes]) => ({ name, bytes })).sort((left, right) => right.bytes - left.bytes);
};

const outputInputs = (metafile: Metafile): Record<string, { bytesInOutput: number }> => {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs') || path.endsWith('.js'));
  return output ? output[1].inputs : {};
};

/** The peer's figure: its prebuilt bundle, loaded beside ours (no metafile: nothing to group). */
const peerFigure = (peer: PeerBundle, files: Map<string, string>): BundleFigure => {
  files.set(peer.name, peer.file);
  return {
    name: peer.name, kind: 'peer', handler: peer.file, group: 'peer', callsStripe: false, checkout: false, webhook: false, fulfilment: false,
    bytes: statSync(peer.file).size, mapBytes: existsSync(`${peer.file}.map`) ? statSync(`${peer.file}.map`).size : 0, containsStripe: false,
    loadMs: Number.NaN, processMs: Number.NaN, topInputs: [], beyondDynamoDb: [],
  };
};

/**
 * Bundles every candidate into `outDir` with the stack's esbuild options (its side modules
 * beside it), in parallel: the size, source map, whether Stripe is inside and the heaviest
 * inputs of each, and what it carries beyond the DynamoDB-only baseline. A candidate that
 * cannot be built keeps its error. The figures come in candidate order, the peer (if given)
 * last; `files` receives each built bundle's index.mjs (and the peer's file).
 */
export const buildBundles = async (
  context: SectionContext,
  outDir: string,
  files: Map<string, string>,
  peer: PeerBundle | undefined,
): Promise<BundleFigure[]> => {
  const root = process.cwd();
  const figures: BundleFigure[] = [];
  const metafiles = new Map<string, Metafile>();
  const candidates = bundleCandidates();
  context.log(`bundles: building ${candidates.length} bundles with the stack's esbuild options`);
  await Promise.all(
    candidates.map(async (candidate) => {
      const figure: BundleFigure = {
        ...candidate, bytes: 0, mapBytes: 0, containsStripe: false, loadMs: Number.NaN, processMs: Number.NaN, topInputs: [], beyondDynamoDb: [],
      };
      figures.push(figure);
      if (!existsSync(join(root, candidate.handler))) {
        figure.error = `handler file ${candidate.handler} does not exist yet`;
        return;
      }
      const dir = join(outDir, candidate.name.replace(/[^a-z0-9-]+/gi, '-'));
      const outfile = join(dir, 'index.mjs');
      try {
        const result = await build({ ...esbuildBuildOptions(join(root, candidate.handler), outfile), metafile: true, logLevel: 'silent' });
        metafiles.set(candidate.name, result.metafile!);
        files.set(candidate.name, outfile);
        figure.bytes = statSync(outfile).size;
        const sides = sideModulesOf(candidate.handler);
        if (sides.length > 0) {
          await Promise.all(sides.map((side) => build({ ...sideModuleBuildOptions(root, side, dir), logLevel: 'silent' })));
          figure.sideFiles = sides.map((side) => ({ file: side.file, bytes: statSync(join(dir, side.file)).size }));
        }
        figure.mapBytes = existsSync(`${outfile}.map`) ? statSync(`${outfile}.map`).size : 0;
        figure.containsStripe = Object.keys(result.metafile!.inputs).some((path) => path.includes('node_modules/stripe/'));
        figure.topInputs = groupInputs(outputInputs(result.metafile!), () => true).slice(0, 6);
      } catch (error) {
        figure.error = `esbuild failed: ${(error as Error).message.split('\n')[0]}`;
      }
    }),
  );
  const order = new Map(candidates.map((candidate, index) => [candidate.name, index]));
  figures.sort((left, right) => order.get(left.name)! - order.get(right.name)!);
  if (peer) figures.push(peerFigure(peer, files));

  const dynamoInputs = new Set(Object.keys(metafiles.get(dynamoName)?.inputs ?? {}));
  for (const figure of figures) {
    const metafile = metafiles.get(figure.name);
    if (metafile && figure.kind !== 'baseline') {
      figure.beyondDynamoDb = groupInputs(outputInputs(metafile), (path) => !dynamoInputs.has(path)).slice(0, 6);
    }
  }
  return figures;
};
