import { afterEach, describe, expect, it } from 'vitest';
import { withInvocation } from '../../shared/observability/invocation';
import { configureMetrics, defaultMetricsNamespace, emfLine, metricNames, recordMetric, type MetricName } from '../../shared/observability/metrics';
import { captureLogLines, type LogCapture } from '../support/log-lines';
import { emfProblems } from './emf-schema';


let capture: LogCapture | undefined;
afterEach(() => {
  capture?.restore();
  configureMetrics({ namespace: defaultMetricsNamespace });
});

describe('EMF lines', () => {
  it.each(Object.keys(metricNames) as MetricName[])('%s is valid EMF with the service and its own dimensions', (name) => {
    const dimensions = Object.fromEntries(metricNames[name].dimensions.map((dimension) => [dimension, `${dimension}-value`]));
    const line = JSON.parse(emfLine(name, 3, dimensions, 1_795_000_000_000)) as Record<string, unknown>;
    expect(emfProblems(line)).toEqual([]);
    const own = metricNames[name].dimensions;
    expect(line).toEqual({
      _aws: {
        Timestamp: 1_795_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'SimCheckoutService',
            Dimensions: own.length > 0 ? [['service'], ['service', ...own]] : [['service']],
            Metrics: [{ Name: name, Unit: metricNames[name].unit }],
          },
        ],
      },
      service: 'sim-checkout-service',
      ...dimensions,
      [name]: 3,
    });
  });

  it('records a dimension left out as `none`, so the line stays valid', () => {
    const line = JSON.parse(emfLine('RateLimited', 1, {})) as Record<string, unknown>;
    expect(line.code).toBe('none');
    expect(emfProblems(line)).toEqual([]);
  });

  it('carries the invocation\'s correlation and request ids as plain properties, in the configured namespace', async () => {
    configureMetrics({ namespace: 'Other' });
    capture = captureLogLines();
    withInvocation({ functionName: 'send-sms', awsRequestId: 'aws-1' }, { correlation_id: 'corr-1' }, () => recordMetric('SmsSubmitted'));
    const [line] = capture.lines();
    expect(emfProblems(line!)).toEqual([]);
    expect(line).toEqual({
      _aws: { Timestamp: expect.any(Number), CloudWatchMetrics: [{ Namespace: 'Other', Dimensions: [['service']], Metrics: [{ Name: 'SmsSubmitted', Unit: 'Count' }] }] },
      service: 'sim-checkout-service',
      SmsSubmitted: 1,
      correlation_id: 'corr-1',
      function_request_id: 'aws-1',
    });
  });

  it('the schema refuses what the specification forbids', () => {
    const good = JSON.parse(emfLine('Requests', 1, { route: 'GET /', status_class: '2xx' })) as Record<string, unknown>;
    const aws = good._aws as Record<string, unknown>;
    expect(emfProblems({ ...good, _aws: { ...aws, Timestamp: 'now' } })).not.toEqual([]);
    expect(emfProblems({ ...good, _aws: { CloudWatchMetrics: aws.CloudWatchMetrics } })).not.toEqual([]);
    expect(emfProblems({ ...good, _aws: { ...aws, Extra: 1 } })).not.toEqual([]);
    const directive = (aws.CloudWatchMetrics as Array<Record<string, unknown>>)[0]!;
    expect(emfProblems({ ...good, _aws: { ...aws, CloudWatchMetrics: [{ ...directive, Metrics: [{ Name: 'Requests', Unit: 'Things' }] }] } })).not.toEqual([]);
    expect(emfProblems({ ...good, _aws: { ...aws, CloudWatchMetrics: [{ ...directive, Namespace: '' }] } })).not.toEqual([]);
    expect(emfProblems({ ...good, route: undefined })).toEqual(['dimension route is not a string member of 1 to 1024 characters']);
    expect(emfProblems({ ...good, Requests: 'one' })).toEqual(['metric Requests has no number member']);
  });
});
