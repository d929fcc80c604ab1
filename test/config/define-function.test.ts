import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../local/handler-loader';
import { defineFunction } from '../../shared/config/define-function';
import { ConfigurationError } from '../../shared/config/variables';

const run = promisify(execFile);

/** The deps and handler of a test function, counting how often each is built. */
const counting = () => {
  const built = { deps: 0, handler: 0 };
  return {
    built,
    wiring: {
      deps: (config: { tableName: string; region: string }) => {
        built.deps += 1;
        return { table: config.tableName, region: config.region };
      },
      handler: (deps: { table: string; region: string }) => {
        built.handler += 1;
        return async () => deps;
      },
    },
  };
};

describe('defineFunction', () => {
  it('reads the configuration once and builds the deps and the handler once, at definition', async () => {
    const { built, wiring } = counting();
    const handler = defineFunction('get-sim', wiring, { AWS_REGION: 'eu-west-2', TABLE_NAME: 'orders' });
    expect(built).toEqual({ deps: 1, handler: 1 });
    expect(await handler()).toEqual({ table: 'orders', region: 'eu-west-2' });
    await handler();
    expect(built).toEqual({ deps: 1, handler: 1 });
  });

  it('fails before building anything, naming every missing variable, with no default for the table or the region', () => {
    const { built, wiring } = counting();
    let thrown: unknown;
    try {
      defineFunction('get-sim', wiring, { AWS_DEFAULT_REGION: 'eu-west-2', TABLE_NAME: '' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).message).toBe('get-sim: invalid configuration: AWS_REGION is not set; TABLE_NAME is not set');
    expect((thrown as ConfigurationError).problems).toEqual(['AWS_REGION is not set', 'TABLE_NAME is not set']);
    expect(built).toEqual({ deps: 0, handler: 0 });
  });

  it('names a variable that is set but invalid beside one that is missing', () => {
    expect(() =>
      defineFunction('forward-receipt', { deps: () => ({}), handler: () => () => undefined }, { CALLBACK_TOTAL_TIMEOUT_MS: 'ten seconds' }),
    ).toThrow('forward-receipt: invalid configuration: CALLBACK_TOTAL_TIMEOUT_MS must be a positive number, not "ten seconds"');
    expect(() =>
      defineFunction('fulfil-order', { deps: () => ({}), handler: () => () => undefined }, {
        AWS_REGION: 'eu-west-2',
        STOCK_HOLD_MINUTES: '-1',
        SMS_PROVIDER_URL: 'not a url',
      }),
    ).toThrow(
      'fulfil-order: invalid configuration: TABLE_NAME is not set; SMS_PROVIDER_URL must be an absolute URL, not "not a url"; STOCK_HOLD_MINUTES must be a positive number, not "-1"',
    );
  });
});

describe('every function of functions/ at init', () => {
  it('fails at import, naming each variable it requires, when the environment lacks them', { timeout: 60_000 }, async () => {
    const modules = readdirSync(join(repositoryRoot, 'functions'))
      .filter((file) => file.endsWith('.ts'))
      .sort();
    // One child process imports every handler module in turn with an environment stripped of
    // all configuration, as a deployed function whose stack forgot its variables would start.
    const script = `
      const results = {};
      for (const file of ${JSON.stringify(modules)}) {
        try {
          const module = await import('./functions/' + file);
          results[file] = typeof module.handler === 'function' ? 'loaded' : 'no handler';
        } catch (error) {
          results[file] = error.message;
        }
      }
      console.log(JSON.stringify(results));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH ?? '' },
    });
    const tableFunction = (name: string) => `${name}: invalid configuration: AWS_REGION is not set; TABLE_NAME is not set`;
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      'apply-operator-feed.ts': tableFunction('apply-operator-feed'),
      'checkout-esim.ts': tableFunction('checkout-esim'),
      'checkout-iot.ts': tableFunction('checkout-iot'),
      'checkout-physical.ts': tableFunction('checkout-physical'),
      'create-webhook.ts': tableFunction('create-webhook'),
      'default-fallback.ts': 'loaded',
      'delete-webhook.ts': tableFunction('delete-webhook'),
      'deliver-webhook.ts': `${tableFunction('deliver-webhook')}; WEBHOOK_DELIVERY_QUEUE_URL is not set`,
      'developer-fallback.ts': tableFunction('developer-fallback'),
      'expire-sim-actions.ts': tableFunction('expire-sim-actions'),
      // No table, no region: its one setting of its own, the timeouts, have documented defaults.
      'forward-receipt.ts': 'loaded',
      'fulfil-order.ts': tableFunction('fulfil-order'),
      'get-sim.ts': tableFunction('get-sim'),
      'get-sim-action.ts': tableFunction('get-sim-action'),
      'get-sms.ts': tableFunction('get-sms'),
      'get-webhook.ts': tableFunction('get-webhook'),
      'list-sim-actions.ts': tableFunction('list-sim-actions'),
      'list-sims.ts': tableFunction('list-sims'),
      'list-webhook-deliveries.ts': tableFunction('list-webhook-deliveries'),
      'list-webhooks.ts': tableFunction('list-webhooks'),
      'maintain-sim-lists.ts': `${tableFunction('maintain-sim-lists')}; SIM_LISTS_FAILURE_QUEUE_URL is not set`,
      'publish-lifecycle-events.ts': `${tableFunction('publish-lifecycle-events')}; WEBHOOK_DELIVERY_QUEUE_URL is not set; LIFECYCLE_FAILURE_QUEUE_URL is not set`,
      'receive-inbound-sms.ts': tableFunction('receive-inbound-sms'),
      'receive-sms-receipt.ts': `${tableFunction('receive-sms-receipt')}; CALLBACK_QUEUE_URL is not set`,
      'record-sms-events.ts': `${tableFunction('record-sms-events')}; CALLBACK_QUEUE_URL is not set`,
      'request-sim-action.ts': `${tableFunction('request-sim-action')}; OPERATOR_ACTION_QUEUE_URL is not set`,
      'rotate-webhook-secret.ts': tableFunction('rotate-webhook-secret'),
      'send-sim-action.ts': `${tableFunction('send-sim-action')}; OPERATOR_ACTION_QUEUE_URL is not set`,
      'send-sms.ts': tableFunction('send-sms'),
      // No table: the webhook only verifies and queues.
      'stripe-webhook.ts': 'stripe-webhook: invalid configuration: AWS_REGION is not set; FULFILMENT_QUEUE_URL is not set',
    });
  });
});
