import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in answered: which API and the raw body. */
export interface StandInRequest {
  api: 'ses:SendEmail' | 'sns:Publish';
  body: string;
}

/** A running stand-in for Amazon SES v2 and SNS. */
export interface SesSnsStandIn {
  /** Its base URL: AWS_ENDPOINT_URL_SESV2 and AWS_ENDPOINT_URL_SNS of the functions. */
  url: string;
  requests(): StandInRequest[];
  stop(): Promise<void>;
}

/**
 * An HTTP server on a free port answering the two calls the fulfilment consumer makes to AWS
 * besides DynamoDB and SMS, as the SDK's clients expect them: SES v2 SendEmail (REST JSON,
 * `POST /v2/email/outbound-emails`, `{MessageId}`) and SNS Publish (the query protocol's XML).
 * Anything else is a 400 in SES's error shape, so a call the stand-in does not know fails.
 */
export const startSesSnsStandIn = async (): Promise<SesSnsStandIn> => {
  const requests: StandInRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.method === 'POST' && request.url === '/v2/email/outbound-emails') {
        requests.push({ api: 'ses:SendEmail', body });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ MessageId: `local-${randomUUID()}` }));
        return;
      }
      if (request.method === 'POST' && new URLSearchParams(body).get('Action') === 'Publish') {
        requests.push({ api: 'sns:Publish', body });
        response.writeHead(200, { 'content-type': 'text/xml' });
        response.end(
          `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult>` +
            `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
        );
        return;
      }
      response.writeHead(400, { 'content-type': 'application/json', 'x-amzn-errortype': 'BadRequestException' });
      response.end(JSON.stringify({ message: `the stand-in does not answer ${request.method} ${request.url}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => [...requests],
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
