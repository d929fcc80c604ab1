import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { gsi1Partition } from '../../shared/db/keys';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import { useShopRuntime } from '../support/shop-runtime';
import { readOperationsOutbox, readOutbox } from './support/outbox';
import { pdfStrings } from './support/pdf-text';
import { payAndWait, placeOrder, readAccount, readDevice, readTask, readUnit, smsMessages } from './support/shop';

const seed = {
  plans: [
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: true, price: '18.00' },
  ],
  stock: [],
};

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { env: { EMAIL_FROM: 'SIM Shop <orders@shop.example>' }, db });

const outbox = () => runtime.env.EMAIL_OUTBOX_DIR!;
const shipping = { name: 'Bea Buyer', line1: '10 High Street', city: 'Leeds', postal_code: 'LS1 1AA', country: 'GB', phone: '+447700900901' };

describe('B2 physical SIM order, paid', () => {
  it('assigns the SIM to a dispatch task, e-mails the receipt, notifies operations, and sends no SMS', async () => {
    await resetStock(db, runtime.tableName, 'physical', ['8944500000000007001']);
    const order = await placeOrder(runtime, stripe, 'physical', {
      cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 1 }],
      customer_email: 'bea@shop.example',
      customer_country: 'GB',
      customer_name: 'Bea Buyer',
      customer_phone: '+447700900900',
      shipping_address: shipping,
    });
    const fulfilled = await payAndWait(runtime, db, order);
    expect(fulfilled).toMatchObject({ account_email: 'bea@shop.example', sms_to: null, sms_skip_reason: 'physical SIM orders get no SMS' });

    expect(await readAccount(db, runtime.tableName, 'bea@shop.example')).toMatchObject({
      account_type: 'consumer',
      name: 'Bea Buyer',
      phone: null,
      sms_opt_in: false,
    });
    expect(await readUnit(db, runtime.tableName, 'physical', '8944500000000007001')).toMatchObject({ assigned_order: order.orderId });
    expect(await readUnit(db, runtime.tableName, 'physical', '8944500000000007001')).not.toHaveProperty('held_by');
    expect(await readDevice(db, runtime.tableName, '8944500000000007001')).toBeUndefined();

    const task = await readTask(db, runtime.tableName, order.orderId);
    expect(task).toEqual({
      PK: `ORDER#${order.orderId}`,
      SK: 'FULFILMENT_TASK',
      GSI1PK: 'FULFILMENT_TASKS#awaiting_dispatch',
      GSI1SK: `${task!.created_at}#${order.orderId}`,
      type: 'fulfilment_task',
      order_id: order.orderId,
      status: 'awaiting_dispatch',
      units: [{ kind: 'physical', iccid: '8944500000000007001' }],
      lines: fulfilled.lines,
      customer_email: 'bea@shop.example',
      customer_name: 'Bea Buyer',
      customer_phone: '+447700900900',
      shipping_address: shipping,
      created_at: expect.any(String),
    });
    const { Items } = await db.send(
      new QueryCommand({
        TableName: runtime.tableName,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': gsi1Partition.fulfilmentTasksByStatus('awaiting_dispatch') },
      }),
    );
    expect(Items!.map((item) => item.order_id)).toContain(order.orderId);

    const mails = readOutbox(outbox(), order.orderId);
    expect(mails.map((mail) => [mail.headers.from, mail.headers.to, mail.headers.subject])).toEqual([
      ['SIM Shop <orders@shop.example>', 'bea@shop.example', `Your receipt for order ${order.orderId}`],
    ]);
    expect(mails[0]!.text).toContain('We will post your SIM card(s) to:\n  Bea Buyer\n  10 High Street\n  Leeds\n  LS1 1AA\n  GB');

    const notifications = readOperationsOutbox(outbox(), order.orderId);
    expect(notifications).toEqual([
      {
        file: expect.stringMatching(new RegExp(`-${order.orderId}\\.operations_notification-[0-9a-f]{6}\\.json$`)),
        topic: 'operations',
        subject: `Physical SIM order ${order.orderId} awaiting dispatch`,
        message: expect.stringContaining('SIMs assigned to the order:\n  8944500000000007001\n'),
        reference: `${order.orderId}.operations_notification`,
        sent_at: expect.any(String),
      },
    ]);
    expect(notifications[0]!.message).toContain('Ship to:\n  Bea Buyer\n  10 High Street\n  Leeds\n  LS1 1AA\n  GB\n  Phone: +447700900901');
    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toEqual([]);
  });
});

const consent = { agreed: true, wording: 'I agree that my data is processed to fulfil this contract.', given_at: '2026-11-20T10:00:00+01:00' };
const iotBody = (overrides: Record<string, unknown> = {}) => ({
  cart: [{ sku: 'IOT-CONTRACT-1GB', quantity: 3 }],
  customer_email: 'ada@fleet.example',
  customer_country: 'GB',
  customer_first_name: 'Ada',
  customer_last_name: 'Lovelace',
  data_processing_consent: consent,
  billing_address: { line1: '1 Billing Way', city: 'London', postal_code: 'EC2A 2AA', country: 'GB' },
  shipping_address: { line1: '2 Depot Road', city: 'London', postal_code: 'E1 1AA', country: 'GB' },
  ...overrides,
});

describe('B3 IoT contract order, paid', () => {
  it('creates the reseller account, e-mails the receipt and, separately, the PDF invoice, and sends the SMS receipt', async () => {
    const order = await placeOrder(
      runtime,
      stripe,
      'iot',
      iotBody({
        company_name: 'Fleet Telematics Ltd',
        company_registration_number: '09876543',
        vat_registration_number: 'GB987654321',
        customer_phone: '+447700900950',
        sms_opt_in: true,
        invoice_contact: { name: 'Accounts', email: 'accounts@fleet.example' },
        customer_id: 'gid://shop/Customer/3003',
      }),
    );
    const fulfilled = await payAndWait(runtime, db, order);
    expect(fulfilled).toMatchObject({ account_email: 'ada@fleet.example', sms_to: '+447700900950', held_units: [] });

    expect(await readAccount(db, runtime.tableName, 'ada@fleet.example')).toMatchObject({
      account_type: 'reseller',
      name: 'Fleet Telematics Ltd',
      phone: '+447700900950',
      sms_opt_in: true,
      customer_id: 'gid://shop/Customer/3003',
      company: {
        name: 'Fleet Telematics Ltd',
        registration_number: '09876543',
        vat_registration_number: 'GB987654321',
        billing_address: { line1: '1 Billing Way', city: 'London', postal_code: 'EC2A 2AA', country: 'GB' },
      },
    });

    const [receipt, invoice, ...others] = readOutbox(outbox(), order.orderId);
    expect(others).toEqual([]);
    expect([receipt!.headers.to, receipt!.headers.subject, receipt!.attachments]).toEqual([
      'ada@fleet.example',
      `Your receipt for order ${order.orderId}`,
      [],
    ]);
    expect(receipt!.text).toContain(`Your invoice (INV-${order.orderId}) follows in a separate e-mail.`);
    expect([invoice!.headers.to, invoice!.headers.subject]).toEqual([
      'ada@fleet.example, accounts@fleet.example',
      `Invoice INV-${order.orderId} for order ${order.orderId}`,
    ]);
    expect(invoice!.headers['content-type']).toMatch(/^multipart\/mixed; boundary="=_part_[0-9a-f]{24}"$/);
    expect(invoice!.attachments.map((attachment) => [attachment.filename, attachment.contentType])).toEqual([
      [`invoice-${order.orderId}.pdf`, 'application/pdf'],
    ]);
    const pdf = invoice!.attachments[0]!.content;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const document = await PDFDocument.load(pdf);
    expect([document.getPageCount(), document.getTitle()]).toEqual([1, `Invoice INV-${order.orderId}`]);
    const strings = pdfStrings(pdf);
    const paidDate = fulfilled.paid_at!.slice(0, 10);
    for (const expected of [
      'SIM Services Ltd', 'VAT number: GB 123 4567 89', `INV-${order.orderId}`, paidDate, order.orderId,
      'Fleet Telematics Ltd', 'Attn: Ada Lovelace', '1 Billing Way', 'VAT number: GB987654321', 'Company number: 09876543',
      'IoT 1 GB (IOT-CONTRACT-1GB)', '3', '\u00a318.00', '\u00a354.00',
      `VAT (${fulfilled.vat_rate}%)`, `\u00a3${fulfilled.tax_amount}`, `\u00a3${fulfilled.amount_total}`,
    ]) {
      expect(strings, expected).toContain(expected);
    }
    expect(strings[strings.indexOf('Net') + 1]).toBe(`\u00a3${fulfilled.subtotal}`);
    expect(strings[strings.indexOf('Total') + 1]).toBe(`\u00a3${fulfilled.amount_total}`);

    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toEqual([
      {
        reference: `${order.orderId}.sms_receipt`,
        to: '+447700900950',
        text: `Payment of \u00a3${fulfilled.amount_total} received for order ${order.orderId.slice(0, 8)}. Your receipt and invoice are on their way by e-mail.`,
      },
    ]);
  });

  it('sends no SMS receipt without sms_opt_in, and names the account after the buyer without company_name', async () => {
    const order = await placeOrder(runtime, stripe, 'iot', iotBody({ customer_email: 'solo@trader.example', customer_phone: '+447700900951' }));
    expect(await payAndWait(runtime, db, order)).toMatchObject({ sms_to: null, sms_skip_reason: 'sms_opt_in is not true on the order' });
    expect(await readAccount(db, runtime.tableName, 'solo@trader.example')).toMatchObject({
      account_type: 'reseller',
      name: 'Ada Lovelace',
      phone: '+447700900951',
      sms_opt_in: false,
      company: { name: 'Ada Lovelace' },
    });
    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toEqual([]);
    expect(readOutbox(outbox(), order.orderId).map((mail) => mail.headers.subject)).toEqual([
      `Your receipt for order ${order.orderId}`,
      `Invoice INV-${order.orderId} for order ${order.orderId}`,
    ]);
    expect((await readOrder(db, runtime.tableName, order.orderId))!.status).toBe('fulfilled');
  });
});
