import { describe, expect, it } from 'vitest';
import type { FulfilmentEffectItem } from '../../shared/db/items';
import { documents, resetStock } from '../area-b/support/checkout-api';
import { eventually } from '../support/eventually';
import { useShopRuntime } from '../support/shop-runtime';
import { placeOrder, readEffects, waitForStatus } from './support/shop';
import { sendEvent } from './support/stripe-events';

/**
 * Issue #21: the activation SMS after a checkout goes through AWS End User Messaging too
 * (SMS_PROVIDER=aws, the embedded emulator), with its own id in Context (the order and the
 * effect), and its delivery events are recorded on the fulfilment effect (no callback).
 */

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { env: { SMS_PROVIDER: 'aws', SMS_SIMULATOR_DELAY_MS: '100' }, db });

describe('the activation SMS through AWS End User Messaging', () => {
  it('is one SendTextMessage with the order and effect in Context, and its delivery events land on the effect', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009201']);
    const order = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'ana@travel.example',
      customer_country: 'GB',
      customer_name: 'Ana',
      customer_phone: '+44 7700 900556',
      sms_opt_in: true,
    });
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { orderId: order.orderId, paymentIntentId: order.paymentIntentId, amount: order.amount });
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');

    const sent = runtime.awsSms.messages().filter((message) => message.context.order_id === order.orderId);
    expect(sent.map(({ destination, message_type, context, configuration_set }) => ({ destination, message_type, context, configuration_set }))).toEqual([
      {
        destination: '+447700900556',
        message_type: 'TRANSACTIONAL',
        context: { order_id: order.orderId, effect: 'sms', message_id: `${order.orderId}.sms` },
        configuration_set: 'sim-service-local',
      },
    ]);
    const effect = await eventually(async () => {
      const found = (await readEffects(db, runtime.tableName, order.orderId)).sms;
      if (!found?.delivery_status) throw new Error('no delivery status on the sms effect yet');
      return found;
    });
    expect(effect).toMatchObject({
      status: 'done',
      detail: { provider_message_id: sent[0]!.message_id, to: '+44 7700 900556', reference: `${order.orderId}.sms` },
      delivery_status: 'delivered',
      delivery_received_at: expect.stringMatching(/\+00:00$/),
    });
    await runtime.topics.settled();
    const again = (await readEffects(db, runtime.tableName, order.orderId)).sms as FulfilmentEffectItem;
    expect(again.delivery_events?.map((event) => [event.type, event.final]).sort(([, left], [, right]) => Number(left) - Number(right))).toEqual([
      ['TEXT_SUCCESSFUL', false],
      ['TEXT_DELIVERED', true],
    ]);
  });
});
