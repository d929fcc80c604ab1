import type { IncomingMessage } from 'node:http';

/** A request body read up to a size: its text, and whether more was sent than that. */
export interface BoundedBody {
  /** UTF-8 text of the whole chunks received within the bound (all of it when not tooLarge). */
  text: string;
  /** More than `maxBytes` bytes were sent (the rest was read and discarded). */
  tooLarge: boolean;
}

/**
 * Reads a request's body to its end, keeping at most `maxBytes` bytes: the local endpoints
 * (/_local/feed, /_local/sims, the AWS SMS emulator) each decide what an oversized body answers.
 */
export const readBoundedBody = (request: IncomingMessage, maxBytes: number): Promise<BoundedBody> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > maxBytes }));
    request.on('error', reject);
  });
