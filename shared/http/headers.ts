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

/**
 * The public origin of this API as the request reached it (`https://host[/stage]`), used for
 * the receipt URL when PUBLIC_BASE_URL is not set.
 */
export const requestBaseUrl = (event: Pick<APIGatewayProxyEvent, 'headers' | 'requestContext'>): string | undefined => {
  const host = header(event, 'Host');
  if (!host) return undefined;
  const protocol = header(event, 'X-Forwarded-Proto')?.split(',')[0]?.trim() || 'https';
  const stage = event.requestContext?.stage;
  const stagePrefix = stage && event.requestContext?.path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${protocol}://${host}${stagePrefix}`;
};
