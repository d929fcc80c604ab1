import {
  AdminError,
  issueApiKey,
  issueBearerToken,
  revokeApiKey,
  revokeBearerToken,
  setApiKeyScopes,
  setUserActive,
} from '../shared/auth/admin';
import { apiKeyScopes, type ApiKeyScope } from '../shared/auth/scopes';
import { scopeNames } from './arguments';
import { customerReceiptSecret, ReceiptSecretUnavailable } from '../shared/callbacks/customer-secret';
import { UsageError, type AdminCommand } from './command';

/** The scopes of `--scopes` (checked by ./arguments.ts before the command runs), in the documentation's order. */
const parseScopes = (value: string): ApiKeyScope[] => {
  const names = scopeNames(value);
  return apiKeyScopes.filter((scope) => names.includes(scope));
};

/**
 * The admin commands on Area A credentials: bearer tokens, API keys and users (shared/auth/admin.ts),
 * and the secret that signs a customer's SMS receipts (issue #4).
 */
export const credentialCommands: Record<string, AdminCommand> = {
  'issue-token': async (deps, _argument, options, io) => {
    if (!options.user) throw new UsageError('issue-token needs --user USER_ID');
    const issued = await issueBearerToken(deps, options.user);
    io.err(`Issued bearer token ${issued.prefix} for user ${options.user}. It is shown once; store it now:`);
    io.out(issued.value);
  },
  'issue-key': async (deps, _argument, options, io) => {
    if (!options.customer) throw new UsageError('issue-key needs --customer CUSTOMER_ID');
    const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
    const issued = await issueApiKey(deps, options.customer, scopes);
    io.err(`Issued API key ${issued.prefix} for customer ${options.customer}. It is shown once; store it now:`);
    io.out(issued.value);
  },
  'set-key-scopes': async (deps, argument, options, io) => {
    if (!argument || options.scopes === undefined) throw new UsageError('set-key-scopes needs PREFIX_OR_KEY and --scopes LIST');
    const scopes = parseScopes(options.scopes);
    io.out(`API key ${await setApiKeyScopes(deps, argument, scopes)} has the scopes: ${scopes.join(', ') || '(none)'}`);
  },
  'revoke-token': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('revoke-token needs PREFIX_OR_TOKEN');
    io.out(`Revoked bearer token ${await revokeBearerToken(deps, argument)}`);
  },
  'revoke-key': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('revoke-key needs PREFIX_OR_KEY');
    io.out(`Revoked API key ${await revokeApiKey(deps, argument)}`);
  },
  'deactivate-user': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('deactivate-user needs USER_ID');
    io.out(`Deactivated user ${argument} (${await setUserActive(deps, argument, false)} tokens updated)`);
  },
  'activate-user': async (deps, argument, _options, io) => {
    if (!argument) throw new UsageError('activate-user needs USER_ID');
    io.out(`Activated user ${argument} (${await setUserActive(deps, argument, true)} tokens updated)`);
  },
};

// --- SMS receipts (issue #4) ---------------------------------------------------------------
/**
 * `webhook-secret --customer ID`: prints the Standard Webhooks secret (`whsec_...`) that signs
 * the delivery receipts of the customer's SMS (docs/sms.md). It is derived from
 * CALLBACK_SIGNING_SECRET, so the same command prints the same secret until that is rotated.
 */
credentialCommands['webhook-secret'] = async (deps, _argument, options, io) => {
  if (!options.customer) throw new UsageError('webhook-secret needs --customer CUSTOMER_ID');
  try {
    const secret = await customerReceiptSecret(deps, options.customer, io.env);
    io.err(`Receipt signing secret of customer ${options.customer} (verify webhook-signature with it):`);
    io.out(secret);
  } catch (error) {
    if (error instanceof ReceiptSecretUnavailable) throw new AdminError(error.message);
    throw error;
  }
};
