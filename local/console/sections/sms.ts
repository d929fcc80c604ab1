/** The console's SMS: every message the service handed to the local SMS simulator, with its simulated outcome and what became of its receipt. */
import { html } from '../html';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import { empty, statusBadge } from './format';

/** Messages shown on the page (newest first). */
export const smsShown = 100;

/** The SMS simulator's messages, newest first. */
export const smsSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'sms',
  title: 'SMS (the SMS simulator)',
  render: async () => {
    const messages = sources.smsMessages().reverse().slice(0, smsShown);
    if (messages.length === 0) {
      return empty('No SMS yet: send one with POST /developer/api/sims/{iccid}/sms/, or opt in to SMS at checkout. (Messages sent to another SMS_PROVIDER_URL are not seen here.)');
    }
    return html`<table class="sms"><thead><tr><th>Received</th><th>To</th><th>Message id</th><th>Text</th><th>Outcome</th><th>Receipt</th></tr></thead><tbody>
${messages.map((message) => html`<tr><td>${message.received_at}</td><td>${message.to}</td><td><code>${message.reference}</code></td><td><pre>${message.text}</pre></td><td>${statusBadge(message.outcome)}</td><td>${statusBadge(message.receipt.state)}${
  message.receipt.status !== undefined ? html` HTTP ${message.receipt.status}` : ''
}${message.receipt.error ? html` ${message.receipt.error}` : ''}<br><code>${message.receipt_url}</code></td></tr>
`)}</tbody></table>`;
  },
});
