/**
 * The local outbox as the developer console reads it: the `.eml` files the e-mail adapter
 * writes into EMAIL_OUTBOX_DIR (shared/adapters/email/outbox-mailer.ts) and the JSON files of
 * operations notifications under `operations/` (shared/adapters/notifications/outbox-notifier.ts).
 * Only plain file names directly in those folders are ever opened: a name is checked against
 * the pattern and against the folder's listing, so no path can reach outside them.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseMessage, type ParsedMessage } from './mime';

/** A file the console may open: letters, digits, `.`, `_`, `-`, not hidden. */
const fileNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
/** Larger e-mails are listed but not read (the raw file can still be downloaded). */
export const maxRenderedBytes = 10 * 1024 * 1024;

/** One e-mail of the outbox. */
export interface OutboxEmail {
  /** The file name (`<time>-<reference>-<random>.eml`). */
  name: string;
  size: number;
  modifiedAt: Date;
  /** Undefined when the file is too large to read here. */
  message?: ParsedMessage;
}

/** One operations notification of the outbox. */
export interface OutboxNotification {
  name: string;
  modifiedAt: Date;
  /** The JSON document written, or the text when it is not JSON. */
  content: unknown;
}

/** The files of a folder with an extension, newest first (by modification time, then name); none when it does not exist. */
const listFiles = async (directory: string, extension: string): Promise<Array<{ name: string; size: number; modifiedAt: Date }>> => {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
  const files = await Promise.all(
    names
      .filter((name) => fileNamePattern.test(name) && name.endsWith(extension))
      .map(async (name) => {
        try {
          const info = await stat(join(directory, name));
          return info.isFile() ? { name, size: info.size, modifiedAt: info.mtime } : undefined;
        } catch {
          return undefined; // removed meanwhile
        }
      }),
  );
  return files
    .filter((file) => file !== undefined)
    .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || b.name.localeCompare(a.name));
};

/** The folder of operations notifications in an outbox. */
export const operationsFolder = (outboxDir: string): string => join(outboxDir, 'operations');

/** The newest `limit` e-mails of the outbox, each read and parsed; `total` counts them all. */
export const listOutboxEmails = async (outboxDir: string, limit: number): Promise<{ emails: OutboxEmail[]; total: number }> => {
  const files = await listFiles(outboxDir, '.eml');
  const emails = await Promise.all(
    files.slice(0, limit).map(async (file): Promise<OutboxEmail> => {
      if (file.size > maxRenderedBytes) return file;
      try {
        return { ...file, message: parseMessage(await readFile(join(outboxDir, file.name))) };
      } catch {
        return file;
      }
    }),
  );
  return { emails, total: files.length };
};

/** The newest `limit` operations notifications; `total` counts them all. */
export const listOutboxNotifications = async (outboxDir: string, limit: number): Promise<{ notifications: OutboxNotification[]; total: number }> => {
  const directory = operationsFolder(outboxDir);
  const files = await listFiles(directory, '.json');
  const notifications = await Promise.all(
    files.slice(0, limit).map(async (file): Promise<OutboxNotification> => {
      const text = file.size > maxRenderedBytes ? '(too large to show)' : await readFile(join(directory, file.name), 'utf8').catch(() => '');
      try {
        return { name: file.name, modifiedAt: file.modifiedAt, content: JSON.parse(text) as unknown };
      } catch {
        return { name: file.name, modifiedAt: file.modifiedAt, content: text };
      }
    }),
  );
  return { notifications, total: files.length };
};

/**
 * The raw bytes of one outbox e-mail by its file name, or undefined when the name is not a
 * plain `.eml` file name of the folder (never a path: no `/`, no `..`, not hidden).
 */
export const readOutboxEmail = async (outboxDir: string, name: string): Promise<Buffer | undefined> => {
  if (!fileNamePattern.test(name) || !name.endsWith('.eml')) return undefined;
  const listed = await listFiles(outboxDir, '.eml');
  if (!listed.some((file) => file.name === name)) return undefined;
  try {
    return await readFile(join(outboxDir, name));
  } catch {
    return undefined;
  }
};
