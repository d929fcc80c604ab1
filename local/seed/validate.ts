/**
 * Validation of a seed document as a whole: its shape (./schema.ts), and in the same pass
 * references between entries and uniqueness. Any problem refuses the whole document with every problem listed,
 * each naming the offending entry, e.g. `sims[3] (id 1004): customer "nope" does not exist`.
 */
import * as v from 'valibot';
import { apiKeyPattern, bearerTokenPattern, credentialPrefix } from './credentials';
import { msisdnDigits } from '../../shared/msisdn/msisdn-index';
import { customerPaths } from './paths';
import {
  accountSchema,
  apiKeySchema,
  bearerTokenSchema,
  customerSchema,
  dataBundleSchema,
  deviceSchema,
  planSchema,
  seedDocumentSchema,
  seedSections,
  simSchema,
  stockUnitSchema,
  userSchema,
  type SeedDocument,
} from './schema';

export type { SeedDocument } from './schema';

/** At most this many problems are spelled out in the message; `problems` holds them all. */
const problemsInMessage = 50;

/** A seed document that breaks the rules; nothing of it may be loaded. */
export class SeedValidationError extends Error {
  /** Every problem found, one sentence each, naming the entry. */
  readonly problems: string[];

  constructor(unordered: string[]) {
    const problems = inDocumentOrder([...new Set(unordered)]);
    const listed = problems.slice(0, problemsInMessage).map((problem) => `  - ${problem}`);
    if (problems.length > problemsInMessage) listed.push(`  ... and ${problems.length - problemsInMessage} more`);
    super(
      problems.length === 1
        ? `Seed document refused: ${problems[0]}`
        : `Seed document refused (${problems.length} problems):\n${listed.join('\n')}`,
    );
    this.name = 'SeedValidationError';
    this.problems = problems;
  }
}

type Section = (typeof seedSections)[number];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What identifies an entry in messages. Secrets never appear: tokens and keys show their prefix. */
const entryIdentity = (section: Section, entry: unknown): string | undefined => {
  if (!isRecord(entry)) return undefined;
  const shown = (name: string, value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? `${name} ${value}` : undefined;
  switch (section) {
    case 'bearer_tokens': return shown('prefix', credentialPrefix(entry.token, bearerTokenPattern));
    case 'api_keys': return shown('prefix', credentialPrefix(entry.key, apiKeyPattern));
    case 'plans': return shown('sku', entry.sku);
    case 'stock':
    case 'devices': return shown('iccid', entry.iccid);
    case 'accounts': return shown('email', entry.email);
    default: return shown('id', entry.id);
  }
};

/** `sims[3] (id 1004)`, or `sims[3]` when the entry has no usable identifier. */
export const entryLabel = (section: Section, index: number, entry: unknown): string => {
  const identity = entryIdentity(section, entry);
  return identity ? `${section}[${index}] (${identity})` : `${section}[${index}]`;
};

/** Problems in document order: by section, then entry index; document-level ones first. */
const inDocumentOrder = (problems: string[]): string[] => {
  const position = (problem: string): [number, number] => {
    const match = /^(\w+)\[(\d+)\]/.exec(problem);
    const section = match ? seedSections.indexOf(match[1] as Section) : -1;
    return [section, match ? Number(match[2]) : -1];
  };
  return problems
    .map((problem, order) => ({ problem, order, at: position(problem) }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.order - b.order)
    .map(({ problem }) => problem);
};

/** One sentence for a valibot issue, naming section, entry and field. */
const describeIssue = (issue: v.BaseIssue<unknown>, input: Record<string, unknown>): string => {
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  const missing = issue.type === 'strict_object' && issue.received === 'undefined';
  const unknown = issue.type === 'strict_object' && issue.expected === 'never';
  if (keys.length === 0) return `the document ${issue.message}`;
  const [section, index, ...field] = keys as [string, number | undefined, ...(string | number)[]];
  if (keys.length === 1) {
    if (unknown) return `unknown top-level key "${section}" (expected ${seedSections.join(', ')})`;
    return `${section} ${issue.message}`;
  }
  const entries = input[section] as unknown[];
  const label = entryLabel(section as Section, index as number, entries[index as number]);
  const fieldName = field.map((part, position) => (typeof part === 'number' ? `[${part}]` : position ? `.${part}` : part)).join('');
  if (unknown) return `${label}: unknown field "${fieldName}"`;
  if (missing) return `${label}: ${fieldName} is required`;
  return fieldName ? `${label}: ${fieldName} ${issue.message}` : `${label} ${issue.message}`;
};

/** The schema of one entry of each section. */
const entrySchemas: Record<Section, v.GenericSchema> = {
  customers: customerSchema,
  users: userSchema,
  bearer_tokens: bearerTokenSchema,
  api_keys: apiKeySchema,
  data_bundles: dataBundleSchema,
  sims: simSchema,
  plans: planSchema,
  stock: stockUnitSchema,
  accounts: accountSchema,
  devices: deviceSchema,
};

/**
 * The entries of a document whose shape is wrong that pass their own checks, as a document
 * (for the reference checks, so that they run in the same pass as the field checks), and each
 * kept entry's index in the input (so the problems name the entry where it is).
 */
const usableEntries = (input: Record<string, unknown>): { document: SeedDocument; positions: Map<unknown, number> } => {
  const positions = new Map<unknown, number>();
  const document = Object.fromEntries(
    seedSections.map((section) => {
      const entries = Array.isArray(input[section]) ? (input[section] as unknown[]) : [];
      const usable = entries.flatMap((entry, index) => {
        const parsed = v.safeParse(entrySchemas[section], entry);
        if (!parsed.success) return [];
        positions.set(parsed.output, index);
        return [parsed.output];
      });
      return [section, usable];
    }),
  ) as SeedDocument;
  return { document, positions };
};

/** The string values of `field` over every entry of a section of the input, usable or not. */
const inputValues = (input: Record<string, unknown>, section: Section, field: string): string[] =>
  (Array.isArray(input[section]) ? (input[section] as unknown[]) : []).flatMap((entry) =>
    isRecord(entry) && typeof entry[field] === 'string' ? [entry[field] as string] : [],
  );

/**
 * Problems of references between entries and of uniqueness, over the entries of `document`
 * (the whole document, or the usable entries of one whose shape is wrong: `positions` gives
 * their indexes in the input). A reference to an entry that exists in `input` but failed its
 * own checks is not reported again: that entry's problem is.
 */
const crossReferenceProblems = (document: SeedDocument, input: Record<string, unknown>, positions?: Map<unknown, number>): string[] => {
  const problems: string[] = [];
  const label = (section: Section, index: number, entry: unknown) => entryLabel(section, positions?.get(entry) ?? index, entry);
  const report = (section: Section, index: number, entry: unknown, problem: string) =>
    problems.push(`${label(section, index, entry)}: ${problem}`);

  /** Reports an entry whose value was already taken by an earlier one of the same kind. */
  const unique = <T>(section: Section, entries: readonly T[], value: (entry: T) => string, what: string) => {
    const first = new Map<string, number>();
    entries.forEach((entry, index) => {
      const seen = first.get(value(entry));
      if (seen === undefined) first.set(value(entry), index);
      else report(section, index, entry, `${what} "${value(entry)}" is already used by ${label(section, seen, entries[seen])}`);
    });
  };

  const { customers, users, bearer_tokens, api_keys, data_bundles, sims, plans, stock, accounts, devices } = document;
  const customerIds = new Set([...customers.map((customer) => customer.id), ...inputValues(input, 'customers', 'id')]);
  const paths = customerPaths(customers);
  const mustExist = (section: Section, index: number, entry: unknown, field: string, id: string, ids: Set<string>) => {
    if (!ids.has(id)) report(section, index, entry, `${field} "${id}" does not exist`);
  };

  // Customers: unique ids, existing parents, no cycles, unique names within a top-level group.
  unique('customers', customers, (customer) => customer.id, 'id');
  customers.forEach((customer, index) => {
    if (customer.parent === null) return;
    if (customer.parent === customer.id) report('customers', index, customer, 'parent is the customer itself');
    else mustExist('customers', index, customer, 'parent', customer.parent, customerIds);
  });
  const parentOf = new Map(customers.map((customer) => [customer.id, customer.parent]));
  const reportedCycles = new Set<string>();
  customers.forEach((customer, index) => {
    if (paths.has(customer.id) || customer.parent === customer.id) return;
    const chain = [customer.id];
    let current = parentOf.get(customer.id);
    while (current && parentOf.has(current) && !chain.includes(current)) {
      chain.push(current);
      current = parentOf.get(current);
    }
    if (current !== customer.id) return; // a missing parent (reported above), or leads into a cycle elsewhere
    const cycle = [...chain].sort().join(' ');
    if (reportedCycles.has(cycle)) return;
    reportedCycles.add(cycle);
    report('customers', index, customer, `parent chain forms a cycle (${[...chain, customer.id].join(' → ')})`);
  });
  const groupNames = new Map<string, number>();
  customers.forEach((customer, index) => {
    const path = paths.get(customer.id);
    if (!path) return;
    const nameKey = `${path[0]}\u0000${customer.name}`;
    const seen = groupNames.get(nameKey);
    if (seen === undefined) groupNames.set(nameKey, index);
    else report('customers', index, customer, `name "${customer.name}" is already used in the same customer group by ${label('customers', seen, customers[seen])}`);
  });

  // Users and their bearer tokens.
  unique('users', users, (user) => user.id, 'id');
  users.forEach((user, index) => mustExist('users', index, user, 'customer', user.customer, customerIds));
  const userIds = new Set([...users.map((user) => user.id), ...inputValues(input, 'users', 'id')]);
  unique('bearer_tokens', bearer_tokens, (token) => credentialPrefix(token.token, bearerTokenPattern)!, 'prefix');
  bearer_tokens.forEach((token, index) => mustExist('bearer_tokens', index, token, 'user', token.user, userIds));

  // API keys.
  unique('api_keys', api_keys, (apiKey) => credentialPrefix(apiKey.key, apiKeyPattern)!, 'prefix');
  api_keys.forEach((apiKey, index) => mustExist('api_keys', index, apiKey, 'customer', apiKey.customer, customerIds));

  // Data bundles and SIMs: a SIM's bundle belongs to its owner or one of the owner's ancestors.
  unique('data_bundles', data_bundles, (bundle) => bundle.id, 'id');
  data_bundles.forEach((bundle, index) => mustExist('data_bundles', index, bundle, 'customer', bundle.customer, customerIds));
  const bundles = new Map(data_bundles.map((bundle) => [bundle.id, bundle]));
  const bundleIds = new Set([...bundles.keys(), ...inputValues(input, 'data_bundles', 'id')]);
  unique('sims', sims, (sim) => String(sim.id), 'id');
  unique('sims', sims, (sim) => sim.iccid, 'iccid');
  // MSISDNs are unique too, compared by their digits (issue #21: an inbound SMS finds its SIM by it).
  const msisdnHolder = new Map<string, number>();
  sims.forEach((sim, index) => {
    const digits = sim.msisdn === null ? '' : msisdnDigits(sim.msisdn);
    if (!digits) return;
    const seen = msisdnHolder.get(digits);
    if (seen === undefined) msisdnHolder.set(digits, index);
    else report('sims', index, sim, `msisdn "${sim.msisdn}" is already used by ${entryLabel('sims', seen, sims[seen])}`);
  });
  sims.forEach((sim, index) => {
    mustExist('sims', index, sim, 'customer', sim.customer, customerIds);
    if (sim.data_bundle === null) return;
    if (!bundleIds.has(sim.data_bundle)) return report('sims', index, sim, `data_bundle "${sim.data_bundle}" does not exist`);
    const bundle = bundles.get(sim.data_bundle);
    if (!bundle) return; // it failed its own checks
    const path = paths.get(sim.customer);
    if (path && customerIds.has(bundle.customer) && !path.includes(bundle.customer)) {
      report('sims', index, sim, `data_bundle "${bundle.id}" belongs to customer "${bundle.customer}", which is neither the SIM's customer nor one of its ancestors (${path.join(' → ')})`);
    }
  });

  // Storefront: plans, stock, accounts, devices.
  unique('plans', plans, (plan) => plan.sku, 'sku');
  unique('stock', stock, (unit) => unit.iccid, 'iccid');
  unique('accounts', accounts, (account) => account.email.toLowerCase(), 'email');
  unique('devices', devices, (device) => device.iccid, 'iccid');
  const accountEmails = new Set([...accounts.map((account) => account.email), ...inputValues(input, 'accounts', 'email')].map((email) => email.toLowerCase()));
  const stockIccids = new Set(stock.map((unit) => unit.iccid));
  devices.forEach((device, index) => {
    if (!accountEmails.has(device.owner.toLowerCase())) report('devices', index, device, `owner "${device.owner}" is not the e-mail of an account`);
    if (stockIccids.has(device.iccid)) report('devices', index, device, `iccid ${device.iccid} is also listed in stock (a stock unit is unassigned, a device is owned)`);
  });
  return problems;
};

/**
 * Checks a seed document (parsed JSON) against LOCAL-CONTRACT.md, "Seed document": the shape
 * of every entry, and in the same pass references and uniqueness (over the entries whose own
 * shape is right, so one broken entry does not hide the others' problems, nor make reference
 * problems of its own). Returns the document with absent sections as empty arrays and absent
 * optional fields at their defaults; throws SeedValidationError listing every problem
 * otherwise, in document order. Top-level keys starting with `$` (`$schema`, `$comment`) are
 * ignored; any other unknown key, at the top level or in an entry, is a problem.
 */
export const parseSeedDocument = (input: unknown): SeedDocument => {
  if (!isRecord(input)) throw new SeedValidationError(['the document must be a JSON object']);
  const relevant = Object.fromEntries(Object.entries(input).filter(([name]) => !name.startsWith('$')));
  const parsed = v.safeParse(seedDocumentSchema, relevant, { abortEarly: false });
  if (!parsed.success) {
    const { document, positions } = usableEntries(relevant);
    throw new SeedValidationError([
      ...parsed.issues.map((issue) => describeIssue(issue, relevant)),
      ...crossReferenceProblems(document, relevant, positions),
    ]);
  }
  const problems = crossReferenceProblems(parsed.output, relevant);
  if (problems.length > 0) throw new SeedValidationError(problems);
  return parsed.output;
};
