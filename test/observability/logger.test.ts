import { afterEach, describe, expect, it } from 'vitest';
import { appendLogKeys, withInvocation, withLogKeys, xrayTraceId } from '../../shared/observability/invocation';
import { configureLogger, logger, parseLogLevel } from '../../shared/observability/logger';
import { captureLogLines, type LogCapture } from '../support/log-lines';

let capture: LogCapture | undefined;
afterEach(() => {
  capture?.restore();
  configureLogger({ level: 'INFO', service: 'sim-checkout-service' });
});

const invocation = (name: string, id: string) => ({ functionName: name, awsRequestId: id });

describe('the logger', () => {
  it('writes one JSON object per line with Powertools\' top-level keys, the invocation\'s and the line\'s own fields', () => {
    capture = captureLogLines();
    withInvocation(invocation('logger-test-a', 'req-1'), { correlation_id: 'corr-1' }, () => {
      appendLogKeys({ order_id: 'o-1' });
      logger.info('order fulfilled', { effect: 'receipt_email' });
    });
    expect(capture.lines()).toEqual([
      {
        level: 'INFO',
        message: 'order fulfilled',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        service: 'sim-checkout-service',
        function_name: 'logger-test-a',
        function_request_id: 'req-1',
        cold_start: true,
        correlation_id: 'corr-1',
        order_id: 'o-1',
        effect: 'receipt_email',
      },
    ]);
  });

  it('says cold_start true on the first invocation of a function only', () => {
    capture = captureLogLines();
    for (const id of ['1', '2']) withInvocation(invocation('logger-test-b', id), {}, () => logger.info('hello'));
    expect(capture.lines().map((line) => line.cold_start)).toEqual([true, false]);
  });

  it('keeps the keys of concurrent records apart', async () => {
    capture = captureLogLines();
    await withInvocation(invocation('logger-test-c', 'batch'), {}, () =>
      Promise.all(
        ['a', 'b'].map((id) =>
          withLogKeys({ correlation_id: `corr-${id}` }, async () => {
            appendLogKeys({ message_id: `m-${id}` });
            await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 20 : 1));
            logger.info('record done');
          }),
        ),
      ),
    );
    expect(capture.lines().map((line) => [line.correlation_id, line.message_id])).toEqual([
      ['corr-b', 'm-b'],
      ['corr-a', 'm-a'],
    ]);
  });

  it('writes lines at or above LOG_LEVEL only', () => {
    configureLogger({ level: parseLogLevel('warn') });
    capture = captureLogLines();
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(capture.lines().map((line) => [line.level, line.message])).toEqual([
      ['WARN', 'w'],
      ['ERROR', 'e'],
    ]);
    expect(parseLogLevel('TRACE')).toBe('DEBUG');
    expect(() => parseLogLevel('LOUD')).toThrow('must be one of DEBUG, INFO, WARN, ERROR, not "LOUD"');
  });

  it('never writes a secret: fields named like one are redacted at any depth', () => {
    capture = captureLogLines();
    logger.info('configured', {
      client_secret: 'pi_1_secret_2',
      nested: { Authorization: 'Bearer x', apiKey: 'devkey_1', list: [{ password: 'p' }], kept: 'k' },
      webhook_signature: 'v1,abc',
      token: 't',
    });
    expect(capture.lines()[0]).toMatchObject({
      client_secret: '[redacted]',
      nested: { Authorization: '[redacted]', apiKey: '[redacted]', list: [{ password: '[redacted]' }], kept: 'k' },
      webhook_signature: '[redacted]',
      token: '[redacted]',
    });
  });

  it('never writes a whole phone number or a URL path and query: by field name at any depth, and inside any text', () => {
    capture = captureLogLines();
    withInvocation(invocation('logger-test-d', 'req-d'), {}, () => {
      appendLogKeys({ msisdn: '447700900001' });
      logger.error('receipt could not be queued for +44 7700 900002 at https://hooks.example.com:8443/sms/r?token=abc.', {
        queued: {
          receipt: { message_id: 'm-12345678', iccid: '8944500000000001001', msisdn: '447700900003', status: 'delivered' },
          callback_url: 'https://user:pw@hooks.example.com/receipts/acme?token=t0k3n',
          customer_id: 'acme',
        },
        originationNumber: '+447700900004',
        to: 447700900005,
        msisdns: ['447700900006', '+447700900007'],
        QueueUrl: 'http://127.0.0.1:9324/000000000000/callbacks',
        location: 'not a url/at all',
        count: 12,
        msisdn_claim: 29,
        error: new Error('SendTextMessage answered 400: {"DestinationPhoneNumber":"447700900008"} opted out 447700900009; see https://docs.example.com/x?y=z'),
        detail: 'answered 302 to https://127.0.0.1:3000/ok/redirected; redirects are not followed',
        arn: 'arn:aws:sns:eu-west-2:123456789012:topic',
        short: 'SIM 1003 at 2026-11-25T10:00:00.000Z, id 8f0a1b2c-1234-4abc-8def-123456789012',
      });
    });
    const [line] = capture.lines();
    expect(line).toMatchObject({
      message: 'receipt could not be queued for •••0002 at https://hooks.example.com:8443.',
      msisdn: '•••0001',
      queued: {
        receipt: { message_id: 'm-12345678', iccid: '8944500000000001001', msisdn: '•••0003', status: 'delivered' },
        callback_url: 'https://hooks.example.com',
        customer_id: 'acme',
      },
      originationNumber: '•••0004',
      to: '•••0005',
      msisdns: ['•••0006', '•••0007'],
      QueueUrl: 'http://127.0.0.1:9324',
      location: '[url]',
      count: 12,
      msisdn_claim: 29,
      error: {
        name: 'Error',
        message: 'SendTextMessage answered 400: {"DestinationPhoneNumber":"•••0008"} opted out •••0009; see https://docs.example.com',
        stack: expect.stringContaining('opted out •••0009; see https://docs.example.com\n'),
      },
      detail: 'answered 302 to https://127.0.0.1:3000; redirects are not followed',
      arn: 'arn:aws:sns:eu-west-2:123456789012:topic',
      short: 'SIM 1003 at 2026-11-25T10:00:00.000Z, id 8f0a1b2c-1234-4abc-8def-123456789012',
    });
    const text = JSON.stringify(line);
    for (let last = 1; last <= 9; last += 1) expect(text).not.toContain(`44770090000${last}`);
    for (const leak of ['/sms/r', 'token=', '/receipts/acme', 'user:pw', '/ok/redirected', '/callbacks', '/x?y']) expect(text).not.toContain(leak);
  });

  it('writes an Error as its name, message and stack', () => {
    capture = captureLogLines();
    logger.error('failed', { error: new TypeError('bad') });
    expect(capture.lines()[0]!.error).toEqual({ name: 'TypeError', message: 'bad', stack: expect.stringContaining('TypeError: bad') });
  });

  it('adds xray_trace_id from Lambda\'s _X_AMZN_TRACE_ID when tracing is on', () => {
    expect(xrayTraceId({ _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' })).toBe(
      '1-5759e988-bd862e3fe1be46a994272793',
    );
    expect(xrayTraceId({})).toBeUndefined();
  });
});
