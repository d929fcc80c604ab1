import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { JsonSectionReader, JsonSyntaxError, NotAnObject } from './json-sections';
import { loadSeed, type SeedLoadOptions, type SeedLoadResult, type SeedSource, type SeedTarget } from './load';
import { SeedValidationError } from './validate';

/** The demo seed document shipped with the repository (loaded by `npm start` without SEED_FILE). */
export const demoSeedFile = fileURLToPath(new URL('../demo-seed.json', import.meta.url));

/** Bytes read from the file at a time. */
const chunkBytes = 64 * 1024;

/**
 * A seed document file as a source (./load.ts), read incrementally each time it is asked
 * (./json-sections.ts), never whole: memory is bounded by a chunk and one entry. A file that is
 * not JSON is refused like any broken document, with a SeedValidationError naming the line and
 * column (and the entry) of the fault. The file must not change between the loader's two
 * reads: a changed size or modification time is an error before anything is written.
 */
export const seedFileSource = (path: string): SeedSource => {
  let first: { size: number; modified: number } | undefined;
  return {
    async *events(wanted) {
      const { size, mtimeMs } = await stat(path);
      if (first && (first.size !== size || first.modified !== mtimeMs)) {
        throw new Error(`the file ${path} changed after it was checked; load it again`);
      }
      first ??= { size, modified: mtimeMs };
      const reader = new JsonSectionReader(wanted);
      try {
        for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) yield reader.push(chunk as Buffer);
        yield reader.end();
      } catch (error) {
        if (error instanceof JsonSyntaxError) throw new SeedValidationError([`the file ${path} is not valid JSON (${error.message})`]);
        if (error instanceof NotAnObject) throw new SeedValidationError([error.message]);
        throw error;
      }
    },
  };
};

/** Loads a seed document file into a table (loadSeed over seedFileSource): a file of any size, read twice, never whole. */
export const loadSeedFile = (path: string, target: SeedTarget, options: SeedLoadOptions = {}): Promise<SeedLoadResult> =>
  loadSeed(seedFileSource(path), target, options);
