import { appendLogKeys, correlationId } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { randomUUID } from 'node:crypto';
import type { SimItem, SmsMessageItem } from '../db/items';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import type { CallbackUrlPolicy } from '../callbacks/callback-url';
import { confirmSent, releaseReservation, reserveMessage, type MessageTable } from './message-store';
import { SmsProviderFailure, type SmsProvider } from '../adapters/sms-provider/provider';
import { isSmsEnabled } from './sim-target';
import { validateSubmission } from './submission';
import { isoWithOffset } from './time';
import type { SmsSubmissionResult } from './sms-schema';

/** What sending an SMS needs. */
export interface SendSmsDeps {
  table: MessageTable;
  callbackPolicy: CallbackUrlPolicy;
  /** The provider adapter; resolves to undefined when the provider is not configured. */
  provider: () => Promise<SmsProvider | undefined>;
  /** What the provider's configuration lacks (logged with `sms_not_configured`). */
  providerMissing?: string;
  now: () => Date;
}

/** The caller and the target of one request. */
export interface SmsTarget {
  /** The API key's customer: root of the scope and owner of the receipt secret. */
  customerId: string;
  /**
   * The SIM of the path in that scope (findSimInScope), possibly started early beside the
   * rate-limit write; it rejects with 404 not_found, which answers only after the body rules.
   */
  sim: () => Promise<SimItem>;
}

/** The 202 body of spec A3 ("SMS submission result"): the type of smsSubmissionSchema (./sms-schema.ts). */
export type { SmsSubmissionResult } from './sms-schema';

/** Counts a submission refused at rules 7-9 (the SIM, the account, the provider) by its code. */
const countRefusal = (error: unknown): void => {
  if (error instanceof ApiError) recordMetric('SmsRefused', { code: error.code });
};

/**
 * Sends an SMS to a SIM in scope (spec A3), checking in this order: the body rules 2-5
 * (message_required, message_too_long, invalid_message_id / message_id_too_long,
 * invalid_callback_url), then the ICCID (404 not_found when malformed, unknown or out of scope),
 * then rule 6: the message id is reserved with a conditional write, globally (409
 * duplicate_message_id), then 7 no_msisdn, 8 sms_not_configured (SMS not enabled on the SIM
 * owner's customer, or no provider configured), 9 the provider (502 sms_provider_error /
 * sms_provider_unreachable). When any of 7-9 fails the reservation is deleted again, so the id
 * is not burned and the caller may retry with it.
 */
export const sendSms = async (deps: SendSmsDeps, target: SmsTarget, body: unknown): Promise<SmsSubmissionResult> => {
  const request = await validateSubmission(body, deps.callbackPolicy);
  const sim = await target.sim();
  const messageId = request.messageId ?? randomUUID();
  appendLogKeys({ message_id: messageId, sim_id: sim.id });
  const correlation = correlationId();
  const reservationId = randomUUID();
  const now = deps.now();
  const item: SmsMessageItem = {
    ...key.message(messageId),
    type: 'sms_message',
    message_id: messageId,
    status: 'reserved',
    reservation_id: reservationId,
    sim_id: sim.id,
    iccid: sim.iccid,
    msisdn: sim.msisdn,
    owner_customer_id: sim.customer_id,
    owner_customer_path: sim.customer_path,
    sender_customer_id: target.customerId,
    callback_url: request.callbackUrl,
    submitted_at: isoWithOffset(now),
    received_at: null,
    ...(correlation ? { correlation_id: correlation } : {}),
  };
  if (!(await reserveMessage(deps.table, item, Math.floor(now.getTime() / 1000)))) {
    throw new ApiError(409, 'duplicate_message_id', 'message_id has already been used.');
  }

  let providerMessageId: string | null;
  try {
    if (!sim.msisdn) throw new ApiError(422, 'no_msisdn', 'The SIM has no MSISDN.');
    if (!(await isSmsEnabled(deps.table, sim.customer_id))) {
      throw new ApiError(503, 'sms_not_configured', 'SMS is not enabled on the account.');
    }
    const provider = await deps.provider();
    if (!provider) {
      logger.error('SMS provider not configured', { missing: deps.providerMissing ?? 'SMS_PROVIDER_URL or SMS_PROVIDER_TOKEN' });
      throw new ApiError(503, 'sms_not_configured', 'SMS is not configured in this environment.');
    }
    ({ providerMessageId } = await provider.submit({ reference: messageId, to: sim.msisdn, text: request.message }));
  } catch (error) {
    await releaseReservation(deps.table, messageId, reservationId);
    if (error instanceof SmsProviderFailure) {
      logger.warn('sms provider refused or unreachable', { kind: error.kind, error: error.message });
      const answer =
        error.kind === 'error'
          ? new ApiError(
              502,
              'sms_provider_error',
              error.publicDetail ? `The SMS provider returned an error: ${error.publicDetail}.` : 'The SMS provider returned an error.',
            )
          : new ApiError(502, 'sms_provider_unreachable', 'The SMS provider could not be reached.');
      countRefusal(answer);
      throw answer;
    }
    countRefusal(error);
    throw error;
  }
  await confirmSent(deps.table, messageId, reservationId, providerMessageId);
  recordMetric('SmsSubmitted');
  logger.info('sms submitted', { provider_message_id: providerMessageId });
  return { message_id: messageId, status: 'sent', iccid: sim.iccid, msisdn: sim.msisdn };
};
