/**
 * Requests that are odd at the HTTP level, before any route: method tokens in any case or
 * unknown, CONNECT, control characters and spaces in headers, URLs and header blocks over
 * Node's 16 KB limit, conflicting framing, other protocol versions, and a body one byte over
 * API Gateway's 10 MB. The gateway must answer each with JSON (issue 10, item 4).
 */
import type { RouteInput, RouteRequest } from './routes';

/** One protocol-level oddity. */
export const protocolOddity = ({ rng, context }: RouteInput): RouteRequest => {
  const auth: Array<[string, string]> = [['Authorization', `Bearer ${rng.pick(context.developerTokens)}`], ['X-Customer-API-Key', context.apiKey]];
  const path = rng.pick(['/developer/api/sims/', '/api/v1/checkout', '/sms-provider/receipts', '/nowhere']);
  return rng.weighted<() => RouteRequest>([
    [2, () => ({ label: 'protocol: lower-case method', method: rng.pick(['get', 'post', 'Get', 'delete']), target: path, headers: auth })],
    [2, () => ({ label: 'protocol: unknown method', method: rng.pick(['FOO', 'BREW', 'GETT', 'M-SEARCH', 'PROPFIND', 'PURGE', 'QUERY', 'LINK']), target: path, headers: auth })],
    [2, () => ({ label: 'protocol: CONNECT', method: 'CONNECT', target: rng.pick(['127.0.0.1:443', path]), headers: [] })],
    [2, () => ({ label: 'protocol: control character in a header', method: 'GET', target: path, headers: [...auth, ['X-Odd', `a${String.fromCharCode(rng.pick([1, 8, 11, 12, 27, 127]))}b`]] })],
    [1, () => ({ label: 'protocol: space in a header name', method: 'GET', target: path, headers: [...auth, ['X Odd', '1']], rawOnly: true })],
    [2, () => ({ label: 'protocol: URL over 16 KB', method: 'GET', target: `${path}?q=${'x'.repeat(rng.pick([16_400, 20_000, 70_000]))}`, headers: auth })],
    [1, () => ({ label: 'protocol: path over 16 KB', method: 'GET', target: `/developer/api/sims/${'1'.repeat(20_000)}/`, headers: auth })],
    [2, () => ({ label: 'protocol: header block over 16 KB', method: 'GET', target: path, headers: [...auth, ...Array.from({ length: 5 }, (_, index): [string, string] => [`X-Big-${index}`, 'b'.repeat(4_000)])] })],
    [1, () => ({ label: 'protocol: Transfer-Encoding and Content-Length', method: 'POST', target: path, headers: [...auth, ['Transfer-Encoding', 'chunked'], ['Content-Length', '3']], body: Buffer.from('0\r\n\r\n'), rawOnly: true })],
    [1, () => ({ label: 'protocol: broken chunked body', method: 'POST', target: path, headers: [...auth, ['Transfer-Encoding', 'chunked']], body: Buffer.from('zz\r\nabc\r\n0\r\n\r\n'), rawOnly: true })],
    [1, () => ({ label: 'protocol: obsolete line folding', method: 'GET', target: path, headers: [...auth, ['X-Folded', 'a\r\n b']], rawOnly: true })],
    [1, () => ({ label: 'protocol: HTTP/1.0 without Host', method: 'GET', target: path, headers: auth, version: 'HTTP/1.0', noHost: true, rawOnly: true })],
    [1, () => ({ label: 'protocol: HTTP/1.1 without Host', method: 'GET', target: path, headers: auth, noHost: true, rawOnly: true })],
    [1, () => ({ label: 'protocol: unknown HTTP version', method: 'GET', target: path, headers: auth, version: rng.pick(['HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'HTTPS/1.1']), rawOnly: true })],
    [1, () => ({ label: 'protocol: absolute-form target', method: 'GET', target: `http://127.0.0.1${path}`, headers: auth })],
    [1, () => ({ label: 'protocol: asterisk-form target', method: rng.pick(['OPTIONS', 'GET']), target: '*', headers: auth })],
    [1, () => ({ label: 'protocol: raw control character in the URL', method: 'GET', target: `${path}?q=a${String.fromCharCode(rng.pick([1, 9, 127]))}b`, headers: auth, rawOnly: true })],
    [1, () => ({ label: 'protocol: body of 10 MB + 1 byte', method: 'POST', target: rng.pick(['/api/v1/checkout', '/sms-provider/receipts', '/developer/api/sims/8944500000000001001/sms/']), headers: [...auth, ['Content-Type', 'application/json']], body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) })],
  ])();
};
