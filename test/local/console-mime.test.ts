import { describe, expect, it } from 'vitest';
import { buildMimeMessage } from '../../shared/adapters/email/mime';
import { decodeHeaderValue, parseMessage } from '../../local/console/mime';

// The developer console's reader of outbox `.eml` files (local/console/mime.ts): what the
// service's own adapter writes reads back exactly, and any other message is read as far as it
// can be, never with an exception.
describe('the console\'s MIME reader', () => {
  it('reads back what the e-mail adapter writes: encoded headers, quoted-printable text, a base64 attachment', () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 250, 255]), Buffer.from('\n%%EOF')]);
    const raw = buildMimeMessage({
      from: 'Storefront <orders@storefront.invalid>',
      to: ['zoë@example.com'],
      subject: 'Your receipt — £21.60 for order 1234, 5 GB “Europe”',
      text: 'Hello Zoë,\nTotal: £21.60\n\n'.repeat(3) + 'x'.repeat(100),
      attachments: [{ filename: 'invoice-1234.pdf', contentType: 'application/pdf', content: pdf }],
      messageId: 'order.receipt@storefront.invalid',
      date: new Date('2026-11-25T10:00:00Z'),
    });
    const message = parseMessage(Buffer.from(raw, 'utf8'));
    expect({ subject: message.subject, from: message.from, to: message.to, date: message.date, text: message.text, html: message.html }).toEqual({
      subject: 'Your receipt — £21.60 for order 1234, 5 GB “Europe”',
      from: 'Storefront <orders@storefront.invalid>',
      to: 'zoë@example.com',
      date: 'Wed, 25 Nov 2026 10:00:00 +0000',
      text: `${'Hello Zoë,\r\nTotal: £21.60\r\n\r\n'.repeat(3)}${'x'.repeat(100)}`,
      html: undefined,
    });
    expect(message.parts.map(({ index, contentType, filename, attachment }) => ({ index, contentType, filename, attachment }))).toEqual([
      { index: 0, contentType: 'text/plain', filename: undefined, attachment: false },
      { index: 1, contentType: 'application/pdf', filename: 'invoice-1234.pdf', attachment: true },
    ]);
    expect(message.parts[1]!.content.equals(pdf)).toBe(true);
  });

  it('reads nested multiparts, HTML and other charsets, RFC 2231 names, and keeps odd header names as plain entries', () => {
    const raw = [
      '__proto__: polluted',
      'Subject: =?ISO-8859-1?Q?Caf=E9_cr=E8me?= =?UTF-8?B?4pyT?=',
      'From: "Shop" <shop@example.com>',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      'preamble',
      '--outer',
      'Content-Type: multipart/alternative; boundary=inner',
      '',
      '--inner',
      'Content-Type: text/plain; charset=iso-8859-1',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Caf=E9 =',
      'au lait',
      '--inner',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p onclick="x()">Caf\u00e9</p>',
      '--inner--',
      '--outer',
      "Content-Type: application/octet-stream",
      "Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.txt",
      'Content-Transfer-Encoding: base64',
      '',
      'aGVs',
      'bG8=',
      '--outer--',
      'epilogue',
    ].join('\r\n');
    const message = parseMessage(Buffer.from(raw, 'utf8'));
    expect(message.subject).toBe('Café crème✓');
    expect(message.text).toBe('Café au lait');
    expect(message.html).toBe('<p onclick="x()">Café</p>');
    expect(message.parts.map((part) => [part.contentType, part.filename, part.attachment, part.content.toString('utf8')])).toEqual([
      ['text/plain', undefined, false, 'Caf\ufffd au lait'],
      ['text/html', undefined, false, '<p onclick="x()">Café</p>'],
      ['application/octet-stream', 'résumé.txt', true, 'hello'],
    ]);
    expect(Object.getPrototypeOf(message.headers)).toBe(Object.prototype);
    expect(message.headers.__proto__).toBe('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads anything without throwing: no body, an unknown charset, broken encodings, a boundary that never comes', () => {
    for (const raw of ['', 'no colon here', 'Subject: only headers', 'Content-Type: text/plain; charset=x-unknown\r\n\r\nabc',
      'Content-Type: multipart/mixed; boundary=b\r\n\r\nno parts at all', 'Content-Transfer-Encoding: base64\r\n\r\n!!!', 'Subject: =?UTF-8?Q?=ZZ?=\r\n\r\nx']) {
      expect(() => parseMessage(Buffer.from(raw, 'utf8')), raw).not.toThrow();
    }
    expect(parseMessage(Buffer.from('Content-Type: text/plain; charset=x-unknown\r\n\r\nabc')).text).toBe('abc');
    expect(decodeHeaderValue('=?UTF-8?B?SGVsbG8=?= world')).toBe('Hello world');
  });
});
