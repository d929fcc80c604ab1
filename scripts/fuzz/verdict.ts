/**
 * The pass criteria of one fuzz answer (issue 10, item 3): an answer at all, a status below
 * 500, and, except for HEAD, a JSON body with Content-Type application/json; for any status
 * outside 2xx the body is an object with string `detail` and `code`, the detail at most 512
 * characters (shared/errors/detail-text.ts).
 */
import { maxDetailLength } from '../../shared/errors/detail-text';
import type { FuzzRequest } from './fuzz-request';
import type { WireOutcome } from './wire';

/** Why an answer fails: a short kind for grouping (`status 500 internal_error`) and the details. */
export interface Problem {
  kind: string;
  detail: string;
}

const codeOf = (body: Buffer): string | undefined => {
  try {
    const code = (JSON.parse(body.toString('utf8')) as { code?: unknown } | null)?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/** The problem of an answer, or undefined when it passes. */
export const verdict = (request: FuzzRequest, outcome: WireOutcome): Problem | undefined => {
  if (!outcome.answer) {
    const error = outcome.error ?? 'no answer';
    return { kind: error.startsWith('no answer within') ? 'no answer (timeout)' : error.replace(/ \(.*$/, ''), detail: error };
  }
  const { status, headers, body } = outcome.answer;
  const contentType = headers.find(([name]) => name === 'content-type')?.[1];
  const detail = `${status}${contentType ? ` ${contentType}` : ''} ${JSON.stringify(body.subarray(0, 160).toString('utf8'))}`;
  if (status >= 500) return { kind: `status ${status} ${codeOf(body) ?? '(no code)'}`, detail };
  if (request.method.toUpperCase() === 'HEAD') return undefined;
  if (!/^application\/json\b/i.test(contentType ?? '')) return { kind: `status ${status} not JSON`, detail };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: `status ${status} invalid JSON body`, detail };
  }
  if (status >= 200 && status < 300) return undefined;
  const error = parsed as { detail?: unknown; code?: unknown } | null;
  if (typeof error !== 'object' || error === null || typeof error.detail !== 'string' || typeof error.code !== 'string') {
    return { kind: `status ${status} without string detail and code`, detail };
  }
  if (error.detail.length > maxDetailLength) return { kind: `status ${status} detail over ${maxDetailLength} characters`, detail };
  return undefined;
};
