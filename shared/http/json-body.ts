import { ApiError } from './api-error';
import type { HttpMiddleware } from './envelope';

/**
 * Parses the JSON request body into `event.body` (base64-decoded first when API Gateway marks
 * it so). The body is parsed whatever the Content-Type says (a client that forgets the header
 * still gets a useful answer); an empty, missing or malformed body is 400 `invalid_json`.
 */
export const jsonBody = (): HttpMiddleware => ({
  before: async (request) => {
    const { body, isBase64Encoded } = request.event;
    try {
      const text = isBase64Encoded ? Buffer.from(body ?? '', 'base64').toString() : (body ?? '');
      (request.event as { body: unknown }).body = JSON.parse(text);
    } catch {
      throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
    }
  },
});
