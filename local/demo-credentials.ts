/**
 * Picks, from a seed document, credentials that work together against Area A, so that the
 * start banner, the event fixtures and the docs can show requests that succeed on the demo
 * data. Reads the document loosely: it is validated by the seed loader, not here.
 */

/** A developer bearer token, an API key of the same customer group and a SIM in its scope. */
export interface DemoCredentials {
  bearerToken?: string;
  apiKey?: string;
  /** Internal id of a SIM in the key's scope. */
  simId?: number;
  /** ICCID of that SIM. */
  iccid?: string;
}

type Loose = Record<string, unknown>;

const list = (document: unknown, section: string): Loose[] => {
  const value = (document as Loose | null | undefined)?.[section];
  return Array.isArray(value) ? (value.filter((entry) => typeof entry === 'object' && entry !== null) as Loose[]) : [];
};

/** The ids of a customer and all its descendants. */
const scopeOf = (customers: Loose[], root: unknown): Set<unknown> => {
  const scope = new Set<unknown>([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const customer of customers) {
      if (!scope.has(customer.id) && scope.has(customer.parent)) {
        scope.add(customer.id);
        grew = true;
      }
    }
  }
  return scope;
};

/**
 * The first active developer's unrevoked token, an unrevoked key of that developer's customer,
 * and the first SIM in that key's scope; fields are absent when the document has none.
 */
export const demoCredentials = (document: unknown): DemoCredentials => {
  const users = list(document, 'users');
  const tokens = list(document, 'bearer_tokens').filter((token) => token.revoked !== true);
  const keys = list(document, 'api_keys').filter((key) => key.revoked !== true);
  const developers = users.filter(
    (user) => user.active === true && Array.isArray(user.roles) && user.roles.includes('developer'),
  );
  for (const developer of developers) {
    const token = tokens.find((candidate) => candidate.user === developer.id);
    const key = keys.find((candidate) => candidate.customer === developer.customer);
    if (!token || !key) continue;
    const scope = scopeOf(list(document, 'customers'), key.customer);
    const sim = list(document, 'sims').find((candidate) => scope.has(candidate.customer));
    return {
      bearerToken: String(token.token),
      apiKey: String(key.key),
      ...(sim ? { simId: Number(sim.id), iccid: String(sim.iccid) } : {}),
    };
  }
  return {};
};
