import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A reference as it appears in a file name: anything but letters, digits, `.`, `_` and `-` becomes `_`. */
const fileReference = (reference: string): string => reference.replace(/[^A-Za-z0-9._-]/g, '_');

/** `20261122T100000123Z` */
const compactStamp = (date: Date): string => date.toISOString().replace(/[-:.]/g, '');

/**
 * Writes one message of a local outbox (an e-mail, an operations notification) as
 * `<directory>/<time>-<reference>-<random>.<extension>`: first under a hidden temporary name,
 * then renamed, so that a file with the final name is always complete. A process killed
 * while writing leaves at most a hidden `.…tmp` file, which counts as not sent
 * (findOutboxFile). A repeated message becomes a second file. Resolves with the path.
 */
export const writeOutboxFile = async (
  directory: string,
  now: Date,
  reference: string,
  extension: string,
  content: string | Uint8Array,
): Promise<string> => {
  const name = `${compactStamp(now)}-${fileReference(reference)}-${randomBytes(3).toString('hex')}.${extension}`;
  const file = join(directory, name);
  const temporary = join(directory, `.${name}.tmp`);
  await mkdir(directory, { recursive: true });
  await writeFile(temporary, content, { flag: 'wx' });
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return file;
};

/**
 * The path of the outbox file of a message with this reference and extension, or undefined
 * when there is none (the message was never completely written). How the local outbox
 * answers "was it sent?" for a worker that died after claiming a message.
 */
export const findOutboxFile = async (directory: string, reference: string, extension: string): Promise<string | undefined> => {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const suffix = new RegExp(`^\\d{8}T\\d{9}Z-${fileReference(reference).replace(/[.]/g, '\\.')}-[0-9a-f]{6}\\.${extension}$`);
  const found = names.filter((name) => suffix.test(name)).sort()[0];
  return found === undefined ? undefined : join(directory, found);
};
