import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { HttpMiddleware } from './envelope';

/**
 * Parses the JSON request body. The body is parsed whatever the Content-Type says (a client
 * that forgets the header still gets a useful answer); an empty or malformed body is
 * 400 `invalid_json` (the parser's own 415 is mapped by httpEnvelope).
 */
export const jsonBody = (): HttpMiddleware => {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  return {
    before: async (request) => {
      // REST API sends `body: null` for an empty body; treat it as the empty string, which fails.
      if (request.event.body === null || request.event.body === undefined) {
        (request.event as { body: string }).body = '';
      }
      await parser.before!(request as never);
    },
  };
};
