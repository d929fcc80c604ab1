import { describe, expect, it } from 'vitest';
import { buildMimeMessage, encodeHeaderText, formatMailDate, formatMailbox, quotedPrintable } from '../../shared/adapters/email/mime';
import { parseEmail } from './support/outbox';

const date = new Date('2026-11-22T09:05:03Z');

describe('MIME building blocks', () => {
  it('writes quoted-printable that keeps plain text readable, escapes the rest and wraps at 76 characters', () => {
    expect(quotedPrintable('Total: \u00a314.40 = paid\nNext line ')).toBe('Total: =C2=A314.40 =3D paid\r\nNext line=20');
    const long = quotedPrintable('x'.repeat(200));
    expect(long.split('\r\n').map((line) => line.length)).toEqual([76, 76, 50]);
    expect(long.replace(/=\r\n/g, '')).toBe('x'.repeat(200));
  });

  it('encodes non-ASCII header text as RFC 2047 words of at most 75 characters and strips line breaks', () => {
    expect(encodeHeaderText('Your receipt')).toBe('Your receipt');
    expect(encodeHeaderText('Bcc: evil\r\nX: 1')).toBe('Bcc: evil X: 1');
    const encoded = encodeHeaderText(`Re\u00e7u ${'\u00e9'.repeat(40)}`);
    for (const word of encoded.split('\r\n ')) expect(word.length).toBeLessThanOrEqual(75);
    expect(parseEmail(`Subject: ${encoded}\r\n\r\n`).headers.subject).toBe(`Re\u00e7u ${'\u00e9'.repeat(40)}`);
  });

  it('formats mailboxes and dates as RFC 5322 wants them', () => {
    expect(formatMailbox('a@b.example', 'Smith, Jo "JJ"')).toBe('"Smith, Jo \\"JJ\\"" <a@b.example>');
    expect(formatMailbox('a@b.example', 'Zo\u00eb')).toBe('=?UTF-8?B?Wm/Dqw==?= <a@b.example>');
    expect(formatMailDate(date)).toBe('Sun, 22 Nov 2026 09:05:03 +0000');
  });
});

describe('buildMimeMessage', () => {
  it('builds a text/plain message with CRLF line ends', () => {
    const raw = buildMimeMessage({ from: 'Shop <o@shop.example>', to: ['a@b.example'], subject: 'Hi', text: 'Hello\nthere', messageId: 'id.1@shop.example', date });
    expect(raw).toBe(
      [
        'From: Shop <o@shop.example>',
        'To: a@b.example',
        'Subject: Hi',
        'Date: Sun, 22 Nov 2026 09:05:03 +0000',
        'Message-ID: <id.1@shop.example>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Hello',
        'there',
        '',
      ].join('\r\n'),
    );
  });

  it('builds a multipart/mixed message whose base64 attachment comes back byte for byte', () => {
    const content = Uint8Array.from({ length: 300 }, (_, index) => index % 256);
    const raw = buildMimeMessage({
      from: 'o@shop.example',
      to: ['a@b.example', 'c@d.example'],
      subject: 'Invoice \u00a3',
      text: 'See attached.',
      attachments: [{ filename: 'invoice 1.pdf', contentType: 'application/pdf', content }],
      messageId: 'id.2@shop.example',
      date,
    });
    for (const line of raw.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
    const parsed = parseEmail(raw);
    expect(parsed.headers).toMatchObject({ to: 'a@b.example, c@d.example', subject: 'Invoice \u00a3' });
    expect(parsed.text).toBe('See attached.');
    expect(parsed.attachments).toEqual([{ filename: 'invoice_1.pdf', contentType: 'application/pdf', content: Buffer.from(content) }]);
  });
});
