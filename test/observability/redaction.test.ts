import { describe, expect, it } from 'vitest';
import { redactText } from '../../shared/observability/redaction';

/** The text rules of shared/observability/redaction.ts, on whole texts. */
describe('redactText', () => {
  it('cuts a URL to its origin and masks phone numbers, but keeps the file:// frames of a stack whole', () => {
    const stack = [
      "TypeError: Cannot read properties of null (reading 'path') calling https://hooks.example.com:8443/sms/receipts?token=x for +44 7700 900001",
      '    at Se (file:///var/task/index.mjs:2:13456)',
      '    at file:///tmp/sim-service-bundles-20261129/default-fallback/index.mjs:12:345',
      '    at AsyncLocalStorage.run (node:internal/async_local_storage/async_context_frame:65:14)',
      '    provider said: number 447700900002 is not reachable; ICCID 8944500000000000001 kept',
    ].join('\n');
    expect(redactText(stack)).toBe(
      [
        "TypeError: Cannot read properties of null (reading 'path') calling https://hooks.example.com:8443 for •••0001",
        '    at Se (file:///var/task/index.mjs:2:13456)',
        '    at file:///tmp/sim-service-bundles-20261129/default-fallback/index.mjs:12:345',
        '    at AsyncLocalStorage.run (node:internal/async_local_storage/async_context_frame:65:14)',
        '    provider said: number •••0002 is not reachable; ICCID 8944500000000000001 kept',
      ].join('\n'),
    );
  });
});
