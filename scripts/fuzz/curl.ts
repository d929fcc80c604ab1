/**
 * One shell command that reproduces a fuzz request: curl with the exact method, request
 * target, headers (curl's own Accept, User-Agent, Content-Type and Expect suppressed) and
 * body bytes. Bodies over 1 KB, or holding NUL, go to a file next to the report. Requests
 * that curl cannot express (a space in a header name, conflicting framing, another HTTP
 * version, no Host) are written whole to a file and sent with curl's telnet:// (raw TCP).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FuzzRequest } from './fuzz-request';
import { requestBytes } from './wire';

/** Bash ANSI-C quoting of bytes: printable ASCII as is, everything else as \xHH. */
export const shellBytes = (bytes: Buffer): string => {
  let out = "$'";
  for (const byte of bytes) {
    if (byte === 0x27) out += "\\'";
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
};

const quote = (text: string) => shellBytes(Buffer.from(text, 'utf8'));

const inexpressible = (request: FuzzRequest) =>
  request.rawOnly === true || [request.method, request.target, ...request.headers.flat()].some((text) => /[\u0000\r\n]/.test(text));

/** Where a reproduction's files go: `<dir>/fuzz-<seed>-<index>.<ext>`. */
const fileFor = (dir: string, runSeed: number, request: FuzzRequest, extension: string, content: Buffer): string => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `fuzz-${runSeed}-${request.index}.${extension}`);
  writeFileSync(path, content);
  return path;
};

/** A curl config-file string (`-K`): backslash and double quote escaped, other bytes as they are. */
const configQuote = (text: string): string => `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;

/** Longest curl command printed inline; a longer one keeps its options in a `-K` config file. */
const inlineLimit = 1500;

/**
 * The curl command for a request against `baseUrl`; files it needs are written under `dir`.
 * Short requests are spelled out inline; long ones (a 16 KB URL, a 12 KB header) keep method,
 * target and headers in a curl config file (`-K`), which holds any byte but a line break.
 */
export const curlCommand = (request: FuzzRequest, baseUrl: string, runSeed: number, dir: string): string => {
  const url = new URL(baseUrl);
  if (inexpressible(request)) {
    const path = fileFor(dir, runSeed, request, 'http', requestBytes(request, url.host));
    return `curl -sS --max-time 30 telnet://${url.host} < ${path}`;
  }
  const has = (name: string) => request.headers.some(([candidate]) => candidate.toLowerCase() === name);
  const options: Array<[string, string]> = [];
  // curl's --head takes no body; a HEAD with a body is sent with -X HEAD, and Connection:
  // close ends the transfer that curl would otherwise wait on for Content-Length bytes.
  const head = request.method === 'HEAD' && request.body === undefined;
  if (head) options.push(['head', '']);
  else options.push(['request', request.method]);
  if (request.method === 'HEAD' && !head) options.push(['header', 'Connection: close']);
  options.push(['request-target', request.target]);
  for (const [name, value] of request.headers) options.push(['header', value === '' ? `${name};` : `${name}: ${value}`]);
  for (const name of ['Accept', 'User-Agent', 'Expect', 'Content-Type']) {
    if (!has(name.toLowerCase())) options.push(['header', `${name}:`]);
  }
  const parts = ['curl', '-sS', '-i', '--max-time', '40', '--path-as-is'];
  const inline = options.map(([name, value]) => (value === '' && name === 'head' ? '--head' : `--${name} ${quote(value)}`));
  if (inline.join(' ').length <= inlineLimit) {
    parts.push(...inline);
  } else {
    const config = options.map(([name, value]) => (name === 'head' ? 'head' : `${name} = ${configQuote(value)}`)).join('\n');
    parts.push('-K', fileFor(dir, runSeed, request, 'curl', Buffer.from(`${config}\n`, 'utf8')));
  }
  if (request.body) {
    if (request.body.length === 0) parts.push('--data-raw', "''");
    else if (request.body.length > 1024 || request.body.includes(0)) parts.push('--data-binary', `@${fileFor(dir, runSeed, request, 'body', request.body)}`);
    else parts.push('--data-raw', shellBytes(request.body));
  }
  parts.push(`'${baseUrl}'`);
  return parts.join(' ');
};
