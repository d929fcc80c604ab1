import { ApiError } from '../errors/api-error';
import type { HttpMiddleware } from './envelope';

/**
 * Parses the JSON request body into `event.body` (base64-decoded first when API Gateway marks
 * it so). The body is parsed whatever the Content-Type says (a client that forgets the header
 * still gets a useful answer); an empty, missing or malformed body is 400 `invalid_json`.
 *
 * By hand rather than with @middy/http-json-body-parser (README, Dependencies): its
 * `__proto__` guard parses with a reviver, which recurses, so a valid body nested deeper than
 * about 2,300 levels overflows the stack and is refused (plain JSON.parse is iterative; the
 * checkouts accept ignored fields 200,000 levels deep), and it imports node:http at load.
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
