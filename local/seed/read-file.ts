import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { SeedValidationError } from './validate';

/** The demo seed document shipped with the repository (loaded by `npm start` without SEED_FILE). */
export const demoSeedFile = fileURLToPath(new URL('../demo-seed.json', import.meta.url));

/**
 * Reads a seed document file as parsed JSON, still unvalidated (see loadSeedDocument). A file
 * that is not JSON is refused like any broken document, with a SeedValidationError.
 */
export const readSeedFile = async (path: string): Promise<unknown> => {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SeedValidationError([`the file ${path} is not valid JSON (${(error as Error).message})`]);
  }
};
