import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError } from './api-error';

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
export const errorResponse = (error: ApiError): APIGatewayProxyResult => ({
  statusCode: error.status,
  headers: { ...jsonHeaders, ...error.headers },
  body: JSON.stringify({ detail: error.detail, code: error.code, ...error.extra }),
});
