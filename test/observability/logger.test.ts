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
