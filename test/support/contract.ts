import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { GatewayAnswerRecord } from '../../local/gateway';
import { matchPath } from '../../shared/http/route-match';

/**
 * The response check of the HTTP tests (issue #13 point 3): every answer the local gateway of
 * a test runtime writes (test/support/runtime.ts passes `recordAnswer` as its onAnswer) is
 * checked against the committed docs/openapi.json, and each answer the document does not
 * describe is recorded as a violation; test/support/contract-setup.ts fails the test during
 * which it was recorded. So the document cannot drift from what the service answers.
 *
 * The rule, by what the gateway answered:
 * - A path and method of the document: the status must be documented for that operation, the
 *   body must match its schema (JSON Schema 2020-12, ajv with formats) and every header the
 *   response declares `required` must be present and match its schema.
 * - A path of the document with another method: its 405 as documented on the path's
 *   operations, or an answer that comes before routing (401, 403, 429; 413, 500) as
 *   documented there.
 * - A path the document does not name (the fallbacks' 404, and Area A's 401/403/429, which
 *   come before routing), or one no route could take (`stage: unrouted`: a path that is not
 *   valid percent-encoded UTF-8): a JSON error body `{detail, code}` whose code the document
 *   names.
 * - Refused by the gateway before any route (`stage: gateway`: a URL or headers over API
 *   Gateway's quotas, no Host, a method API Gateway does not serve, a body over 10 MB): a JSON
 *   error body. These are protocol-level answers of the gateway, not of an operation
 *   (docs/openapi.md). Requests Node's parser refuses (raw-socket tests, the fuzzer's broken
 *   HTTP) never reach onAnswer, and `/_local/` paths are the local runtime's own.
 */

/** The committed document. */
export const openApiDocument = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as OpenApi;

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: WebhookOperation }>;
  components: { schemas: Record<string, unknown> };
}
interface WebhookOperation {
  parameters?: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[];
  requestBody: { content: Record<string, { schema: unknown }> };
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface ResponseObject {
  headers?: Record<string, { required?: boolean; schema: Record<string, unknown> }>;
  content?: Record<string, { schema: unknown }>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument, 'openapi');

const pointer = (...parts: string[]): string => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const validators = new Map<string, ValidateFunction>();
const validatorAt = (path: string): ValidateFunction => {
  let validate = validators.get(path);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${path}` });
    validators.set(path, validate);
  }
  return validate;
};

/** The document's path that a request path reaches, matched as the router matches (shared/http/route-match.ts). */
const documentPathOf = (path: string): string | undefined =>
  Object.keys(openApiDocument.paths).find((template) => {
    try {
      return matchPath(template, path) !== undefined;
    } catch {
      return false; // not valid percent-encoded UTF-8: no route takes it either
    }
  });

/** Every error code the document names (the enums of the error answers); never empty. */
const documentedCodes = new Set(
  [...JSON.stringify(openApiDocument).matchAll(/"code":\{"type":"string","enum":\[([^\]]*)\]/g)].flatMap(
    (match) => JSON.parse(`[${match[1]}]`) as string[],
  ),
);

if (documentedCodes.size === 0) throw new Error('test/support/contract.ts found no error code enum in docs/openapi.json');

const headerValue = (headers: GatewayAnswerRecord['headers'], name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);
};

const parseJson = (answer: GatewayAnswerRecord): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(answer.body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
};

const errorsOf = (validate: ValidateFunction): string => ajv.errorsText(validate.errors, { dataVar: 'body' });

/** A JSON error body whose code is one the document names, when `known` says so. */
const checkErrorBody = (answer: GatewayAnswerRecord, known: boolean): string[] => {
  const parsed = parseJson(answer);
  if (!parsed.ok) return ['the body is not JSON'];
  const validate = validatorAt(pointer('components', 'schemas', 'Error'));
  if (!validate(parsed.value)) {
    const rateLimited = validatorAt(pointer('components', 'schemas', 'RateLimitedError'));
    if (!rateLimited(parsed.value)) return [`the body is not an error body: ${errorsOf(validate)}`];
  }
  const code = (parsed.value as { code: string }).code;
  return known && !documentedCodes.has(code) ? [`code ${code} is named nowhere in the document`] : [];
};

/**
 * What a method that is not an operation of a documented path may get: its 405, or what comes
 * before routing (Area A authenticates and counts the request first: 401, 403, 429), a body
 * over the limit (413) or an internal error (500); each as the path's operations document it.
 */
const otherMethodStatuses = new Set([401, 403, 405, 413, 429, 500]);

/** What is wrong with one answer, by the rule above; empty when the document describes it. */
export const contractProblems = (answer: GatewayAnswerRecord): string[] => {
  if (answer.stage === 'gateway') return checkErrorBody(answer, false);
  const template = answer.stage === 'route' ? documentPathOf(answer.path) : undefined;
  if (!template) return checkErrorBody(answer, true);
  const pathItem = openApiDocument.paths[template]!;
  const method = answer.method.toLowerCase();
  const operationMethod = method in pathItem ? method : Object.keys(pathItem).find((other) => pathItem[other]!.responses['405']);
  if (!operationMethod) return [`${answer.method} is not an operation of ${template} and no 405 is documented there`];
  if (operationMethod !== method && !otherMethodStatuses.has(answer.status)) {
    return [
      `${answer.method} is not an operation of ${template}: only its 405 and the answers that come before routing (${[...otherMethodStatuses].join(', ')}) are documented, but the answer is ${answer.status}`,
    ];
  }
  const responses = pathItem[operationMethod]!.responses;
  const statusKey = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((key) => responses[key]);
  if (!statusKey) return [`status ${answer.status} is not documented for ${operationMethod.toUpperCase()} ${template}`];
  const response = responses[statusKey]!;
  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = headerValue(answer.headers, name);
    if (value === undefined) {
      if (header.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as { type?: string };
    const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
    const validate = validatorAt(pointer('paths', template, operationMethod, 'responses', statusKey, 'headers', name, 'schema'));
    if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${errorsOf(validate)}`);
  }
  const media = Object.keys(response.content ?? {})[0];
  if (media && answer.method !== 'HEAD') {
    const contentType = headerValue(answer.headers, 'content-type') ?? '';
    if (!contentType.startsWith(media)) problems.push(`content type ${JSON.stringify(contentType)} is not ${media}`);
    const parsed = parseJson(answer);
    if (!parsed.ok) problems.push('the body is not JSON');
    else {
      const validate = validatorAt(pointer('paths', template, operationMethod, 'responses', statusKey, 'content', media, 'schema'));
      if (!validate(parsed.value)) problems.push(errorsOf(validate));
    }
  }
  return problems;
};

const violations: string[] = [];
let checked = 0;

/** How many answers recordAnswer has checked in this process (so a test can see the check ran). */
export const answersChecked = (): number => checked;

/** The gateway's onAnswer of the test runtimes: checks the answer and records what is wrong. */
export const recordAnswer = (answer: GatewayAnswerRecord): void => {
  checked += 1;
  const problems = contractProblems(answer);
  if (problems.length === 0) return;
  const body = answer.body.toString('utf8');
  violations.push(
    `${answer.method} ${answer.path} answered ${answer.status} ${body.length > 300 ? `${body.slice(0, 300)}…` : body}\n  - ${problems.join('\n  - ')}`,
  );
};

/** A request the service sent to a webhook receiver (a subscriber's URL, a callback_url). */
export interface SentWebhook {
  /** Lower-case names, as Node's HTTP server gives them. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * What is wrong with one request the service sent, against the document's webhook `name`
 * (`webhooks.<name>.post`): every required header parameter present and matching its schema,
 * a JSON body (Content-Type included) matching the request body's schema. Empty when it is
 * described.
 */
export const webhookProblems = (name: string, sent: SentWebhook): string[] => {
  const webhook = openApiDocument.webhooks[name]?.post;
  if (!webhook) return [`the document has no webhook ${JSON.stringify(name)}`];
  const problems: string[] = [];
  for (const [index, parameter] of (webhook.parameters ?? []).entries()) {
    if (parameter.in !== 'header') continue;
    const value = headerValue(sent.headers, parameter.name);
    if (value === undefined) {
      if (parameter.required) problems.push(`required header ${parameter.name} is missing`);
      continue;
    }
    const validate = validatorAt(pointer('webhooks', name, 'post', 'parameters', String(index), 'schema'));
    if (!validate(value)) problems.push(ajv.errorsText(validate.errors, { dataVar: `header ${parameter.name}` }));
  }
  const media = Object.keys(webhook.requestBody.content)[0]!;
  const contentType = headerValue(sent.headers, 'content-type') ?? '';
  if (!contentType.startsWith(media)) problems.push(`content type ${JSON.stringify(contentType)} is not ${media}`);
  let body: unknown;
  try {
    body = JSON.parse(sent.body);
  } catch {
    return [...problems, 'the body is not JSON'];
  }
  const validate = validatorAt(pointer('webhooks', name, 'post', 'requestBody', 'content', media, 'schema'));
  if (!validate(body)) problems.push(errorsOf(validate));
  return problems;
};

/**
 * Checks a request the service sent to a test's webhook receiver against the document's
 * webhook `name` and records what is wrong (the test during which it arrived then fails, as
 * for answers).
 */
export const recordWebhook = (name: string, sent: SentWebhook): void => {
  const problems = webhookProblems(name, sent);
  if (problems.length === 0) return;
  violations.push(`webhook ${name} sent ${sent.body.length > 300 ? `${sent.body.slice(0, 300)}…` : sent.body}\n  - ${problems.join('\n  - ')}`);
};

/** The violations recorded since the last call, emptied. */
export const takeContractViolations = (): string[] => violations.splice(0, violations.length);
