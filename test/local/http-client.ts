import { request } from 'node:http';

/** A response as the test sees it: status, raw header list and body bytes. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json(): unknown;
}

/**
 * Sends one HTTP request with node:http, headers given as a raw list (so a header can be
 * repeated, which fetch cannot do).
 */
export const rawRequest = (
  url: string,
  options: { method?: string; headers?: string[]; body?: Buffer | string } = {},
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    // With a raw header list node:http adds no Host header itself.
    const headers = options.headers ?? [];
    const hasHost = headers.some((value, index) => index % 2 === 0 && value.toLowerCase() === 'host');
    const all = hasHost ? headers : ['Host', new URL(url).host, ...headers];
    const req = request(url, { method: options.method ?? 'GET', headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
