/**
 * The console's outbox: every e-mail the service wrote to EMAIL_OUTBOX_DIR, rendered (subject,
 * from, to, date, the text body, an HTML body as its source and as a sandboxed view) with its
 * attachments to download (the B3 PDF invoice), and the operations notifications under
 * `operations/`. Paths: `GET /_local/outbox/{file}` (the raw `.eml`) and
 * `GET /_local/outbox/{file}/parts/{index}` (one part: an attachment as a download, a body
 * shown in a sandbox).
 */
import { ApiError } from '../../../shared/errors/api-error';
import { quoteInput } from '../../../shared/errors/detail-text';
import { html, type Html } from '../html';
import { sendDownload, sendSandboxed } from '../http';
import type { MessagePart } from '../mime';
import { parseMessage } from '../mime';
import { listOutboxEmails, listOutboxNotifications, readOutboxEmail, type OutboxEmail } from '../outbox';
import { consolePath } from '../page';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import { byteSize, definitions, empty, jsonBlock, shownOf } from './format';

/** E-mails and notifications shown on the page (newest first). */
export const outboxShown = 50;

/** The id of an e-mail's article on the page (the orders section links its e-mail effects there). */
export const emailAnchor = (fileName: string): string => `email-${fileName}`;

/** A content type that may be sent as a header value as is; anything else is sent as application/octet-stream. */
const safeContentType = (type: string): string => (/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : 'application/octet-stream');

const partPath = (email: OutboxEmail, part: MessagePart) => `${consolePath}/outbox/${encodeURIComponent(email.name)}/parts/${part.index}`;

const renderEmail = (email: OutboxEmail): Html => {
  const message = email.message;
  const raw = html`<a href="${consolePath}/outbox/${encodeURIComponent(email.name)}" download>${email.name}</a> (${byteSize(email.size)})`;
  if (!message) return html`<article class="email" id="${emailAnchor(email.name)}"><p>${raw}: too large to show here; download it.</p></article>`;
  const htmlPart = message.parts.find((part) => !part.attachment && part.contentType === 'text/html');
  const attachments = message.parts.filter((part) => part.attachment);
  return html`<article class="email" id="${emailAnchor(email.name)}">
<h3>${message.subject || '(no subject)'}</h3>
${definitions([
  ['From', message.from],
  ['To', message.to],
  ['Date', message.date],
  ['File', raw],
  ['Attachments', attachments.length === 0 ? undefined : html`<ul class="attachments">${attachments.map(
    (part) => html`<li><a href="${partPath(email, part)}" download="${part.filename ?? `part-${part.index}`}">${part.filename ?? `part ${part.index}`}</a> (${part.contentType}, ${byteSize(part.content.length)})</li>`,
  )}</ul>`],
])}
${message.text !== undefined ? html`<pre class="email-text">${message.text}</pre>` : ''}
${htmlPart && message.html !== undefined
  ? html`<p>HTML body: <a href="${partPath(email, htmlPart)}" target="_blank" rel="noopener">view it in a sandbox</a></p><details><summary>HTML source</summary><pre>${message.html}</pre></details>`
  : ''}
</article>
`;
};

/** The e-mails of the outbox, with their downloads. */
export const outboxSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'outbox',
  title: 'E-mail outbox',
  render: async () => {
    const { emails, total } = await listOutboxEmails(sources.outboxDir, outboxShown);
    return html`<p class="meta">EMAIL_OUTBOX_DIR: <code>${sources.outboxDir}</code></p>${shownOf(emails.length, total)}${
      emails.length === 0 ? empty('No e-mails yet: they are written when a paid order is fulfilled.') : emails.map(renderEmail)
    }`;
  },
  routes: [
    {
      method: 'GET',
      path: /^\/outbox\/([^/]+)$/,
      handle: async ({ response, params: [name = ''] }) => {
        const raw = await readOutboxEmail(sources.outboxDir, name);
        if (!raw) throw new ApiError(404, 'outbox_file_not_found', `There is no e-mail ${quoteInput(name)} in the outbox.`);
        sendDownload(response, raw, 'message/rfc822', name);
      },
    },
    {
      method: 'GET',
      path: /^\/outbox\/([^/]+)\/parts\/([^/]+)$/,
      handle: async ({ response, params: [name = '', index = ''] }) => {
        const raw = await readOutboxEmail(sources.outboxDir, name);
        if (!raw) throw new ApiError(404, 'outbox_file_not_found', `There is no e-mail ${quoteInput(name)} in the outbox.`);
        const part = /^\d{1,4}$/.test(index) ? parseMessage(raw).parts[Number(index)] : undefined;
        if (!part) throw new ApiError(404, 'outbox_part_not_found', `E-mail ${quoteInput(name)} has no part ${quoteInput(index)}.`);
        const type = safeContentType(part.contentType);
        if (!part.attachment && (type === 'text/html' || type === 'text/plain')) {
          sendSandboxed(response, part.content, `${type}; charset=${/^[A-Za-z0-9_.:-]+$/.test(part.charset ?? '') ? part.charset : 'utf-8'}`);
        } else {
          sendDownload(response, part.content, type, part.filename ?? `${name}.part-${part.index}`);
        }
      },
    },
  ],
});

/** The operations notifications of the outbox (`operations/*.json`). */
export const operationsSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'operations',
  title: 'Operations notifications',
  render: async () => {
    const { notifications, total } = await listOutboxNotifications(sources.outboxDir, outboxShown);
    if (notifications.length === 0) return empty('No operations notifications yet: a paid B2 (physical SIM) order sends one.');
    return html`${shownOf(notifications.length, total)}${notifications.map((notification) => {
      const content = notification.content as { subject?: unknown; message?: unknown; sent_at?: unknown } | string;
      const document = typeof content === 'object' && content !== null ? content : undefined;
      return html`<article class="notification">
<h3>${typeof document?.subject === 'string' ? document.subject : notification.name}</h3>
${definitions([['File', notification.name], ['Sent', typeof document?.sent_at === 'string' ? document.sent_at : undefined]])}
${typeof document?.message === 'string' ? html`<pre>${document.message}</pre>` : jsonBlock(notification.content)}
</article>
`;
    })}`;
  },
});
