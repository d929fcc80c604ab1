import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError } from '../errors/api-error';
import type { ErrorBody } from './error-schema';

/** Headers every JSON response carries. */
export const jsonHeaders = { 'Content-Type': 'application/json' } as const;

/** A JSON response with the given status and body. */
export const ok = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { ...jsonHeaders, ...headers },
  body: JSON.stringify(body),
});

/** The `{detail, code}` response of an ApiError (plus its extra body fields and headers). */
export const errorResponse = (error: ApiError): APIGatewayProxyResult => {
  const body: ErrorBody = { detail: error.detail, code: error.code };
  return { statusCode: error.status, headers: { ...jsonHeaders, ...error.headers }, body: JSON.stringify({ ...body, ...error.extra }) };
};
