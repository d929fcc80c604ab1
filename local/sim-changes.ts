import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ApiError, isApiError } from '../shared/errors/api-error';
import { changeSim, parseSimChange, SimChangeRefused } from '../shared/sims/change-sim';
import { simObject, type SimObject } from '../shared/sims/sim-object';
import { iccid as iccidRule } from '../shared/vocabulary/fields';
import type { LocalMount } from './gateway';
import { readBoundedBody } from './request-body';

/** The mount prefix of the SIM changes (the gateway picks the longest matching prefix). */
export const simChangesMount = '/_local/sims';

/** Largest body read (bytes). */
const maxBodyBytes = 16 * 1024;

const readBody = async (request: IncomingMessage): Promise<string> => {
  const { text, tooLarge } = await readBoundedBody(request, maxBodyBytes);
  if (tooLarge) throw new SimChangeRefused(`the body must be at most ${maxBodyBytes} bytes`);
  return text;
};

const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

/** The table a SIM change writes to. */
export interface SimChangeTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/**
 * The one code path that changes a SIM locally: `POST /_local/sims/<iccid>` (JSON) and the
 * developer console's SIM form (local/console/sections/sims.ts) both call it. Checks `change`
 * (`{status?, data_used_mb?}`, shared/sims/change-sim.ts parseSimChange) and the ICCID by the
 * seed's rule (shared/vocabulary/fields.ts), both before anything is read, writes it as any
 * writer of SIMs must (changeSim), and returns the SIM as its owner's key sees it. Throws an
 * ApiError: 400 `invalid_request` for a bad value (the rule's words), 404 `not_found` for an
 * unknown ICCID.
 */
export const applySimChange = async (table: SimChangeTable, iccid: string, change: unknown, nowMs: number): Promise<SimObject> => {
  const checked = v.safeParse(iccidRule(), iccid);
  if (!checked.success) throw new ApiError(400, 'invalid_request', `iccid ${checked.issues[0].message}.`);
  try {
    const changed = await changeSim(table, iccid, parseSimChange(change), nowMs);
    return simObject(changed, changed.customer_id);
  } catch (error) {
    if (!(error instanceof SimChangeRefused)) throw error;
    const unknown = error.message.startsWith('no SIM');
    throw new ApiError(unknown ? 404 : 400, unknown ? 'not_found' : 'invalid_request', `${error.message}.`);
  }
};

/**
 * `POST {base}/_local/sims/<iccid>` with `{status?, data_used_mb?}` (issue #15, point 5): changes
 * a SIM of the local table as any writer would (shared/sims/change-sim.ts), so the table's
 * stream makes line.activated / line.suspended / usage.updated of it and the subscriptions
 * receive them. Answers 200 with the SIM object as its owner's key sees it; 400
 * `invalid_request` (bad JSON or values), 404 `not_found` (no such SIM), 405
 * `method_not_allowed`, always JSON. Local only: the deployed stack has no `/_local/` paths
 * (the admin CLI's `set-sim` does the same against a deployed table).
 */
export const simChangesHandler =
  (table: () => SimChangeTable, now: () => number = Date.now): LocalMount =>
  async (request, response, path) => {
    const iccid = /^\/(\d{1,20})\/?$/.exec(path)?.[1];
    if (!iccid) return answer(response, 404, { detail: 'Not found: use POST /_local/sims/<iccid>.', code: 'not_found' });
    if (request.method !== 'POST') {
      return answer(response, 405, { detail: `Method ${request.method} is not allowed on this path; use POST.`, code: 'method_not_allowed' }, { Allow: 'POST' });
    }
    try {
      const text = await readBody(request);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ApiError(400, 'invalid_request', 'the body is not valid JSON.');
      }
      answer(response, 200, await applySimChange(table(), iccid, body, now()));
    } catch (error) {
      if (error instanceof SimChangeRefused) return answer(response, 400, { detail: `${error.message}.`, code: 'invalid_request' });
      if (!isApiError(error)) throw error;
      answer(response, error.status, { detail: error.detail, code: error.code });
    }
  };
