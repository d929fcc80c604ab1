import { describe, expect, it } from 'vitest';
import { documents, errorAnswer, errorParts, post, readOrder, resetStock } from '../area-b/support/checkout-api';
import { eventually } from '../support/eventually';
import { useShopRuntime } from '../support/shop-runtime';
import { readOutbox } from './support/outbox';
import { payAndWait, placeOrder, readAccount, readDevice, readTopups, readUnit, smsMessages, waitForStatus } from './support/shop';
import { sendEvent } from './support/stripe-events';

const seed = {
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
    { sku: 'TRAVEL-TOPUP-1GB', name: 'Travel top-up 1 GB', category: 'travel_topup', published: true, price: '5.00' },
    { sku: 'BUSINESS-TRAVEL-10GB', name: 'Business Travel 10 GB', category: 'business_travel', published: true, price: '35.00' },
  ],
  stock: [],
  accounts: [{ email: 'sam@travel.example', type: 'traveler', name: 'Sam', phone: '+447700900123', sms_opt_in: true }],
  devices: [{ iccid: '8944500000000008001', owner: 'sam@travel.example', assigned_to: null }],
};

const db = documents();
const okAnswer = { status: 200, contentType: 'application/json', body: { received: true } };

const { runtime, stripe } = useShopRuntime(seed, { db });

const outbox = () => runtime.env.EMAIL_OUTBOX_DIR!;

describe('B1 eSIM order, paid', () => {
  it('provisions the eSIM to a new traveler account, e-mails the receipt and sends the activation SMS', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009101']);
    const order = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'Nora.Traveller@Example.com',
      customer_country: 'GB',
      customer_name: 'Nora Traveller',
      customer_phone: '+447700900555',
      sms_opt_in: true,
      customer_id: 'gid://shop/Customer/1001',
    });

    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { orderId: order.orderId, paymentIntentId: order.paymentIntentId, amount: order.amount })).toEqual(okAnswer);
    const fulfilled = await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');

    expect(fulfilled).toMatchObject({
      status: 'fulfilled',
      payment_intent_id: order.paymentIntentId,
      account_email: 'nora.traveller@example.com',
      sms_to: '+447700900555',
      held_units: [{ kind: 'esim', iccid: '8944500000000009101' }],
    });
    expect(fulfilled.paid_at).toEqual(expect.any(String));
    expect(fulfilled.fulfilled_at).toEqual(expect.any(String));
    // The worker gives the order's lease back right after the last step.
    await eventually(async () => expect(await readOrder(db, runtime.tableName, order.orderId)).not.toHaveProperty('fulfilment_lease_owner'));

    const account = await readAccount(db, runtime.tableName, 'nora.traveller@example.com');
    expect(account).toEqual({
      PK: 'ACCOUNT#nora.traveller@example.com',
      SK: 'ACCOUNT',
      GSI1PK: 'STOREFRONT_CUSTOMER#gid://shop/Customer/1001',
      GSI1SK: 'ACCOUNT',
      type: 'account',
      email: 'nora.traveller@example.com',
      account_type: 'traveler',
      name: 'Nora Traveller',
      phone: '+447700900555',
      phone_at: fulfilled.created_at,
      sms_opt_in: true,
      sms_opt_in_at: fulfilled.created_at,
      customer_id: 'gid://shop/Customer/1001',
      order_emails: new Set(['nora.traveller@example.com']),
      created_by_order: order.orderId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    expect(await readDevice(db, runtime.tableName, '8944500000000009101')).toEqual({
      PK: 'DEVICE#8944500000000009101',
      SK: 'DEVICE',
      type: 'device',
      iccid: '8944500000000009101',
      owner: 'nora.traveller@example.com',
      assigned_to: null,
      order_id: order.orderId,
      plan_sku: 'TRAVEL-EU-5GB',
      plan_name: 'Europe 5 GB',
      created_at: expect.any(String),
    });
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009101')).toEqual({
      PK: 'STOCK#esim',
      SK: 'UNIT#8944500000000009101',
      type: 'stock_unit',
      iccid: '8944500000000009101',
      kind: 'esim',
      assigned_order: order.orderId,
    });

    const [receipt, ...others] = readOutbox(outbox(), order.orderId);
    expect(others).toEqual([]);
    expect(receipt!.headers).toMatchObject({
      from: 'Storefront <orders@storefront.invalid>',
      to: 'Nora.Traveller@Example.com',
      subject: `Your receipt for order ${order.orderId}`,
      'message-id': `<${order.orderId}.receipt_email@storefront.invalid>`,
      'mime-version': '1.0',
      'content-type': 'text/plain; charset=utf-8',
    });
    expect(receipt!.attachments).toEqual([]);
    expect(receipt!.text).toContain('Hello Nora Traveller,');
    expect(receipt!.text).toContain('1 x Europe 5 GB (TRAVEL-EU-5GB): \u00a312.00 each, \u00a312.00');
    expect(receipt!.text).toContain('Total paid:  \u00a314.40 (GBP)');
    expect(receipt!.text).toContain('8944500000000009101: Europe 5 GB');

    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toEqual([
      {
        reference: `${order.orderId}.sms`,
        to: '+447700900555',
        text: `Your eSIM is ready (order ${order.orderId.slice(0, 8)}). Install from your account; the steps are in your receipt e-mail.`,
      },
    ]);
  });

  it('takes the unit out of stock: a checkout for it is then out_of_stock', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009102']);
    const order = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'olga@example.com',
      customer_country: 'GB',
    });
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { orderId: order.orderId, paymentIntentId: order.paymentIntentId, amount: order.amount });
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    // The hold would have lapsed by now if it were only a hold: make the clock irrelevant by
    // checking the unit's state, then ask for it.
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009102')).toMatchObject({ assigned_order: order.orderId });
    const answer = await post(runtime.baseUrl, '/api/v1/checkout', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'late@example.com',
      customer_country: 'GB',
    });
    expect(errorParts(answer)).toEqual(errorAnswer(409, 'out_of_stock', 'Not enough eSIM stock for this cart.'));
  });

  it('lets the owner top the new eSIM up, a stranger gets esim_not_found, and the top-up lands on the device', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009103']);
    const bought = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'pia@example.com',
      customer_country: 'GB',
      customer_phone: '+447700900777',
      sms_opt_in: true,
    });
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { orderId: bought.orderId, paymentIntentId: bought.paymentIntentId, amount: bought.amount });
    await waitForStatus(db, runtime.tableName, bought.orderId, 'fulfilled');

    const stranger = await post(runtime.baseUrl, '/api/v1/checkout', {
      cart: [{ catalog_sku: 'TRAVEL-TOPUP-1GB', quantity: 1, topup_iccid: '8944500000000009103' }],
      customer_email: 'stranger@example.com',
      customer_country: 'GB',
    });
    expect(errorParts(stranger)).toEqual(
      errorAnswer(404, 'esim_not_found', 'cart[0].topup_iccid matches no eSIM owned by or assigned to customer_email.'),
    );

    // Rules 2 and 3: this order gives neither phone nor consent; both are on file from the first order.
    const topup = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-TOPUP-1GB', quantity: 1, topup_iccid: '8944500000000009103' }],
      customer_email: 'pia@example.com',
      customer_country: 'GB',
    });
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { orderId: topup.orderId, paymentIntentId: topup.paymentIntentId, amount: topup.amount });
    await waitForStatus(db, runtime.tableName, topup.orderId, 'fulfilled');

    expect(await readTopups(db, runtime.tableName, '8944500000000009103')).toEqual([
      {
        PK: 'DEVICE#8944500000000009103',
        SK: `TOPUP#${topup.orderId}#00`,
        type: 'device_topup',
        iccid: '8944500000000009103',
        order_id: topup.orderId,
        line_index: 0,
        sku: 'TRAVEL-TOPUP-1GB',
        plan_name: 'Travel top-up 1 GB',
        bought_by: 'pia@example.com',
        created_at: expect.any(String),
      },
    ]);
    expect(await smsMessages(runtime.smsSimulatorUrl, topup.orderId)).toEqual([
      {
        reference: `${topup.orderId}.sms`,
        to: '+447700900777',
        text: `Your top-up is active on eSIM ending 9103 (order ${topup.orderId.slice(0, 8)}). Thank you!`,
      },
    ]);
    const [receipt] = readOutbox(outbox(), topup.orderId);
    expect(receipt!.text).toContain('Travel top-up 1 GB on eSIM 8944500000000009103');
    expect((await readOrder(db, runtime.tableName, topup.orderId))!.held_units).toEqual([]);
  });
});

/** A top-up of a device, with SMS fields as given. */
const topupOf = (iccid: string, email: string, sms: Record<string, unknown> = {}) => ({
  cart: [{ catalog_sku: 'TRAVEL-TOPUP-1GB', quantity: 1, topup_iccid: iccid }],
  customer_email: email,
  customer_country: 'GB',
  ...sms,
});

const smsFor = (orderId: string) => smsMessages(runtime.smsSimulatorUrl, orderId);

describe('SMS rule 1: an SMS only with a phone number and sms_opt_in true present when the order was created', () => {
  it('sends none for a phone without opt-in, and keeps the number on file', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009201']);
    const order = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule1a@example.com',
      customer_country: 'GB',
      customer_phone: '+447700900601',
    });
    const fulfilled = await payAndWait(runtime, db, order);
    expect(fulfilled).toMatchObject({ sms_to: null, sms_skip_reason: 'no SMS consent on the order or on file' });
    expect(await smsFor(order.orderId)).toEqual([]);
    expect(await readAccount(db, runtime.tableName, 'rule1a@example.com')).toMatchObject({
      phone: '+447700900601',
      phone_at: fulfilled.created_at,
      sms_opt_in: false,
    });
  });

  it('sends none for opt-in without a number on the order or on file ("true" as a string is no consent either)', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009202', '8944500000000009203']);
    const withoutPhone = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule1b@example.com',
      customer_country: 'GB',
      sms_opt_in: true,
    });
    expect(await payAndWait(runtime, db, withoutPhone)).toMatchObject({ sms_to: null, sms_skip_reason: 'no phone number on the order or on file' });
    const stringConsent = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule1c@example.com',
      customer_country: 'GB',
      customer_phone: '+447700900602',
      sms_opt_in: 'true',
    });
    expect(await payAndWait(runtime, db, stringConsent)).toMatchObject({ sms_to: null });
    expect(await smsFor(withoutPhone.orderId)).toEqual([]);
    expect(await smsFor(stringConsent.orderId)).toEqual([]);
  });

  it('sends none for an order whose phone and consent only arrived with a later order, even when that one is paid first', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009204', '8944500000000009205']);
    const earlier = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule1d@example.com',
      customer_country: 'GB',
    });
    const later = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule1d@example.com',
      customer_country: 'GB',
      customer_phone: '+447700900603',
      sms_opt_in: true,
    });
    await payAndWait(runtime, db, later);
    expect(await payAndWait(runtime, db, earlier)).toMatchObject({ sms_to: null, sms_skip_reason: 'no phone number on the order or on file' });
    expect(await smsFor(later.orderId)).toEqual([expect.objectContaining({ to: '+447700900603' })]);
    expect(await smsFor(earlier.orderId)).toEqual([]);
  });
});

describe('SMS rule 2: the most recent explicit sms_opt_in is honoured; omitting never revokes', () => {
  it('revokes with an explicit false, keeps the revocation when omitted, restores with true, and honours consent on file', async () => {
    const device = '8944500000000008001'; // sam@travel.example: opted in, +447700900123 on file (seed)
    const revoke = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example', { sms_opt_in: false }));
    expect(await payAndWait(runtime, db, revoke)).toMatchObject({ sms_to: null, sms_skip_reason: 'sms_opt_in is false on the order' });
    expect(await readAccount(db, runtime.tableName, 'sam@travel.example')).toMatchObject({ sms_opt_in: false, phone: '+447700900123' });

    const omitted = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example'));
    expect(await payAndWait(runtime, db, omitted)).toMatchObject({ sms_to: null, sms_skip_reason: 'no SMS consent on the order or on file' });
    expect(await readAccount(db, runtime.tableName, 'sam@travel.example')).toMatchObject({ sms_opt_in: false });

    const restore = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example', { sms_opt_in: true }));
    expect(await payAndWait(runtime, db, restore)).toMatchObject({ sms_to: '+447700900123' });
    const honoured = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example'));
    expect(await payAndWait(runtime, db, honoured)).toMatchObject({ sms_to: '+447700900123' });

    expect(await smsFor(revoke.orderId)).toEqual([]);
    expect(await smsFor(omitted.orderId)).toEqual([]);
    expect(await smsFor(restore.orderId)).toEqual([expect.objectContaining({ reference: `${restore.orderId}.sms`, to: '+447700900123' })]);
    expect(await smsFor(honoured.orderId)).toEqual([expect.objectContaining({ reference: `${honoured.orderId}.sms`, to: '+447700900123' })]);
  });

  it('keeps the answer of the most recently created order when payments arrive in the other order', async () => {
    const device = '8944500000000008001';
    const older = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example', { sms_opt_in: false }));
    const newer = await placeOrder(runtime, stripe, 'esim', topupOf(device, 'sam@travel.example', { sms_opt_in: true }));
    await payAndWait(runtime, db, newer);
    await payAndWait(runtime, db, older);
    const account = await readAccount(db, runtime.tableName, 'sam@travel.example');
    expect(account).toMatchObject({ sms_opt_in: true, sms_opt_in_at: (await readOrder(db, runtime.tableName, newer.orderId))!.created_at });
    expect(await smsFor(newer.orderId)).toHaveLength(1);
    expect(await smsFor(older.orderId)).toEqual([]);
  });
});

describe('SMS rule 3: customer_phone persists onto the account', () => {
  it('texts a later order without a phone at the number on file, and a new number replaces it', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009301']);
    const first = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
      customer_email: 'rule3@example.com',
      customer_country: 'GB',
      customer_phone: '+447700900701',
      sms_opt_in: true,
    });
    await payAndWait(runtime, db, first);
    const noPhone = await placeOrder(runtime, stripe, 'esim', topupOf('8944500000000009301', 'rule3@example.com', { sms_opt_in: true }));
    expect(await payAndWait(runtime, db, noPhone)).toMatchObject({ sms_to: '+447700900701' });
    const newPhone = await placeOrder(runtime, stripe, 'esim', topupOf('8944500000000009301', 'rule3@example.com', { customer_phone: '+447700900702' }));
    expect(await payAndWait(runtime, db, newPhone)).toMatchObject({ sms_to: '+447700900702' });

    expect(await smsFor(first.orderId)).toEqual([expect.objectContaining({ to: '+447700900701' })]);
    expect(await smsFor(noPhone.orderId)).toEqual([expect.objectContaining({ to: '+447700900701' })]);
    expect(await smsFor(newPhone.orderId)).toEqual([expect.objectContaining({ to: '+447700900702' })]);
    expect(await readAccount(db, runtime.tableName, 'rule3@example.com')).toMatchObject({ phone: '+447700900702', sms_opt_in: true });
  });
});

describe('B1 accounts', () => {
  it('makes a business account for a Business plan', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009401']);
    const order = await placeOrder(runtime, stripe, 'esim', {
      cart: [{ catalog_sku: 'BUSINESS-TRAVEL-10GB', quantity: 1 }],
      customer_email: 'fleet@initech.example',
      customer_country: 'GB',
      customer_name: 'Initech Fleet',
    });
    await payAndWait(runtime, db, order);
    expect(await readAccount(db, runtime.tableName, 'fleet@initech.example')).toMatchObject({ account_type: 'business', name: 'Initech Fleet' });
    expect(await readDevice(db, runtime.tableName, '8944500000000009401')).toMatchObject({ owner: 'fleet@initech.example' });
  });

  it('keeps the identity by customer_id when the buyer e-mail changed: same account, new e-mail recorded', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009501', '8944500000000009502']);
    const cart = [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }];
    const first = await placeOrder(runtime, stripe, 'esim', {
      cart, customer_email: 'old@mail.example', customer_country: 'GB', customer_id: 'gid://shop/Customer/2002',
    });
    await payAndWait(runtime, db, first);
    const second = await placeOrder(runtime, stripe, 'esim', {
      cart, customer_email: 'new@mail.example', customer_country: 'GB', customer_id: 'gid://shop/Customer/2002',
    });
    expect(await payAndWait(runtime, db, second)).toMatchObject({ account_email: 'old@mail.example' });

    expect(await readAccount(db, runtime.tableName, 'new@mail.example')).toBeUndefined();
    expect(await readAccount(db, runtime.tableName, 'old@mail.example')).toMatchObject({
      customer_id: 'gid://shop/Customer/2002',
      contact_email: 'new@mail.example',
      order_emails: new Set(['old@mail.example', 'new@mail.example']),
    });
    const secondOrder = (await readOrder(db, runtime.tableName, second.orderId))!;
    expect(await readDevice(db, runtime.tableName, secondOrder.held_units[0]!.iccid)).toMatchObject({ owner: 'old@mail.example' });
    expect(readOutbox(outbox(), second.orderId).map((mail) => mail.headers.to)).toEqual(['new@mail.example']);
  });
});
