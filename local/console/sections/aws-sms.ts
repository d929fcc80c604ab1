/**
 * The console's AWS End User Messaging SMS (issue #21): the SMS the embedded emulator was handed
 * (SMS_PROVIDER=aws) with the final event it publishes, and the messages SIMs sent to the
 * service (two-way: `POST /_local/aws-sms/inbound`, or the deployed topic), newest first.
 */
import type { SmsInboundItem } from '../../../shared/db/items';
import { scanItemsOfType } from '../../scan-items';
import { html } from '../html';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import { empty, shownOf, statusBadge } from './format';

/** Messages shown per list (newest first). */
export const awsSmsShown = 100;

/** The emulator's messages and the inbound messages, newest first. */
export const awsSmsSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'aws-sms',
  title: 'SMS through AWS End User Messaging, and messages from SIMs',
  render: async () => {
    const sent = (sources.awsSmsMessages?.() ?? []).reverse().slice(0, awsSmsShown);
    const inbound = (await scanItemsOfType<SmsInboundItem>(sources.orders, 'sms_inbound')).sort((left, right) => right.received_at.localeCompare(left.received_at));
    const sentList =
      sent.length === 0
        ? empty('No SMS through the emulator yet: start with SMS_PROVIDER=aws and send one.')
        : html`<table class="sms"><thead><tr><th>Accepted</th><th>To</th><th>Message id</th><th>Text</th><th>Final event</th></tr></thead><tbody>
${sent.map((message) => html`<tr><td>${message.accepted_at}</td><td>${message.destination}</td><td><code>${message.context.message_id ?? ''}</code><br><code>${message.message_id}</code></td><td><pre>${message.body}</pre></td><td>${statusBadge(message.outcome)} ${message.events.final_event_type} (${message.events.state})</td></tr>
`)}</tbody></table>`;
    const inboundList =
      inbound.length === 0
        ? empty('No messages from SIMs yet: POST an inbound message (originationNumber = a SIM\'s MSISDN) to /_local/aws-sms/inbound.')
        : html`<table class="sms"><thead><tr><th>Received</th><th>From (ICCID, MSISDN)</th><th>Message id</th><th>Text</th><th>In reply to</th></tr></thead><tbody>
${inbound.slice(0, awsSmsShown).map((message) => html`<tr><td>${message.received_at}</td><td>${message.iccid}<br>${message.msisdn}</td><td><code>${message.message_id}</code></td><td><pre>${message.message}</pre></td><td>${message.in_reply_to === null ? '' : html`<code>${message.in_reply_to}</code>`}</td></tr>
`)}</tbody></table>`;
    return {
      body: html`<h3>Sent (the emulator)</h3>${sentList}<h3>Messages from SIMs</h3>${shownOf(awsSmsShown, inbound.length)}${inboundList}`,
      // Folded until there is something to show (the page stays short under SMS_PROVIDER=http).
      folded: sent.length === 0 && inbound.length === 0,
    };
  },
});
