import { describe, expect, it } from 'vitest';
import { reserveHandlerEnvironment } from '../../local/process-environment';
import { runtimeCleanups } from '../../local/runtime-cleanups';

/**
 * The runtime puts process.env back only after what it started later has stopped: a request
 * that reached the gateway while the runtime stopped once loaded a handler whose variables were
 * already gone (502, "AWS_REGION is not set").
 */
describe('the handlers\' environment of a local runtime', () => {
  it('is put back after the steps added after it were undone, as it was, optional variables included', async () => {
    process.env.HANDLER_ENV_PROBE = 'before';
    delete process.env.HANDLER_ENV_NEW;
    process.env.STRIPE_API_BASE = 'https://outer.example';
    const cleanups = runtimeCleanups();
    const environment = reserveHandlerEnvironment(cleanups);
    const seenByLaterSteps: (string | undefined)[] = [];
    cleanups.add(() => {
      seenByLaterSteps.push(process.env.HANDLER_ENV_PROBE, process.env.HANDLER_ENV_NEW, process.env.STRIPE_API_BASE);
    });
    environment.apply({ HANDLER_ENV_PROBE: 'runtime', HANDLER_ENV_NEW: 'set' });
    expect([process.env.HANDLER_ENV_PROBE, process.env.HANDLER_ENV_NEW, process.env.STRIPE_API_BASE]).toEqual(['runtime', 'set', undefined]);

    await cleanups.runAll();

    expect(seenByLaterSteps).toEqual(['runtime', 'set', undefined]);
    expect([process.env.HANDLER_ENV_PROBE, process.env.HANDLER_ENV_NEW, process.env.STRIPE_API_BASE]).toEqual(['before', undefined, 'https://outer.example']);
    delete process.env.HANDLER_ENV_PROBE;
    delete process.env.STRIPE_API_BASE;
  });

  it('puts nothing back when it was never applied (a start that failed before)', async () => {
    process.env.HANDLER_ENV_PROBE = 'untouched';
    const cleanups = runtimeCleanups();
    reserveHandlerEnvironment(cleanups);
    await cleanups.runAll();
    expect(process.env.HANDLER_ENV_PROBE).toBe('untouched');
    delete process.env.HANDLER_ENV_PROBE;
  });
});
