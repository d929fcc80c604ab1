import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * A request header by name, case-insensitively: API Gateway's REST API passes headers with
 * the client's own spelling, and HTTP header names are case-insensitive.
 */
export const header = (event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined => {
  const headers = event.headers ?? {};
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};
