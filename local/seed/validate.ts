/**
 * Validation of a seed document as a whole: its shape (./schema.ts), and in the same pass
 * references between entries and uniqueness. Any problem refuses the whole document with every problem listed,
 * each naming the offending entry, e.g. `sims[3] (id 1004): customer "nope" does not exist`.
 *
 * The document is read as a sequence of events (./json-sections.ts: a member, a section, an
 * entry), so that one checker serves a document held in memory (`npm start`, tests) and a file
 * read incrementally (`npm run seed` of a million SIMs). Every section but `sims` is held whole
 * (they are small); a SIM is checked on its own as it comes and kept only as a compact record
 * (./sim-ledger.ts) for the checks across SIMs and the references, made once the whole
 * document is read.
 */
import * as v from 'valibot';
import { apiKeyPattern, bearerTokenPattern, credentialPrefix } from './credentials';
import type { SectionEvent } from './json-sections';
import { quotedName } from './json-sections';
import { customerPaths } from './paths';
import {
  accountSchema,
  apiKeySchema,
  bearerTokenSchema,
  customerSchema,
  dataBundleSchema,
  deviceSchema,
  planSchema,
  seedSections,
  simSchema,
  stockUnitSchema,
  userSchema,
  type SeedDocument,
} from './schema';
import { SimLedger, type SeedSim } from './sim-ledger';

export type { SeedDocument } from './schema';

/** At most this many problems are spelled out in the message; `problems` holds them all (up to problemsKept). */
const problemsInMessage = 50;

/**
 * At most this many problems are kept, the first in document order; the others are counted
 * (a million broken SIMs must not cost a million sentences).
 */
export const problemsKept = 1000;

/** A seed document that breaks the rules; nothing of it may be loaded. */
export class SeedValidationError extends Error {
  /** The problems found (at most problemsKept, the first in document order), one sentence each, naming the entry. */
  readonly problems: string[];
  /** How many problems were found in all. */
  readonly total: number;

  constructor(unordered: string[], total?: number) {
    const problems = inDocumentOrder([...new Set(unordered)]);
    const count = Math.max(total ?? problems.length, problems.length);
    const listed = problems.slice(0, problemsInMessage).map((problem) => `  - ${problem}`);
    if (count > listed.length) listed.push(`  ... and ${count - listed.length} more`);
    super(count === 1 ? `Seed document refused: ${problems[0]}` : `Seed document refused (${count} problems):\n${listed.join('\n')}`);
    this.name = 'SeedValidationError';
    this.problems = problems;
    this.total = count;
  }
}

type Section = (typeof seedSections)[number];

/** A section's number in document order (-1: not a section). */
const sectionNumber = (name: string): number => (seedSections as readonly string[]).indexOf(name);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own field of an entry as given (never one of Object.prototype's). */
const field = (entry: Record<string, unknown>, name: string): unknown => (Object.hasOwn(entry, name) ? entry[name] : undefined);

/** What identifies an entry in messages. Secrets never appear: tokens and keys show their prefix. */
const entryIdentity = (section: Section, entry: unknown): string | undefined => {
  if (!isRecord(entry)) return undefined;
  const shown = (name: string, value: unknown) =>
    typeof value === 'string' || typeof value === 'number' ? `${name} ${value}` : undefined;
  switch (section) {
    case 'bearer_tokens': return shown('prefix', credentialPrefix(field(entry, 'token'), bearerTokenPattern));
    case 'api_keys': return shown('prefix', credentialPrefix(field(entry, 'key'), apiKeyPattern));
    case 'plans': return shown('sku', field(entry, 'sku'));
    case 'stock':
    case 'devices': return shown('iccid', field(entry, 'iccid'));
    case 'accounts': return shown('email', field(entry, 'email'));
    default: return shown('id', field(entry, 'id'));
  }
};

/** `sims[3] (id 1004)`, or `sims[3]` when the entry has no usable identifier. */
export const entryLabel = (section: Section, index: number, entry: unknown): string => {
  const identity = entryIdentity(section, entry);
  return identity ? `${section}[${index}] (${identity})` : `${section}[${index}]`;
};

/** Where a problem sorts: by section, then entry index; document-level ones first. */
const positionOf = (problem: string): [number, number] => {
  const match = /^(\w+)\[(\d+)\]/.exec(problem);
  return match ? [sectionNumber(match[1]!), Number(match[2])] : [-1, -1];
};

/** Problems in document order: by section, then entry index; document-level ones first. */
const inDocumentOrder = (problems: string[]): string[] =>
  problems
    .map((problem, order) => ({ problem, order, at: positionOf(problem) }))
    .sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.order - b.order)
    .map(({ problem }) => problem);

/** The problems of a document: the first problemsKept in document order, and how many in all. */
class Problems {
  private kept: { at: [number, number]; order: number; text: string }[] = [];
  private last = '';
  total = 0;

  add(text: string, at: [number, number] = positionOf(text)): void {
    if (text === this.last) return; // one entry's same problem twice
    this.last = text;
    this.total += 1;
    this.kept.push({ at, order: this.total, text });
    if (this.kept.length >= 2 * problemsKept) this.trim();
  }

  /** The kept problems in document order. */
  list(): string[] {
    this.trim();
    return this.kept.map((problem) => problem.text);
  }

  private trim(): void {
    this.kept.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1] || a.order - b.order);
    this.kept.length = Math.min(this.kept.length, problemsKept);
  }
}

/** The schema of one entry of each section. */
const entrySchemas = new Map<Section, v.GenericSchema>([
  ['customers', customerSchema],
  ['users', userSchema],
  ['bearer_tokens', bearerTokenSchema],
  ['api_keys', apiKeySchema],
  ['data_bundles', dataBundleSchema],
  ['sims', simSchema],
  ['plans', planSchema],
  ['stock', stockUnitSchema],
  ['accounts', accountSchema],
  ['devices', deviceSchema],
]);

/** One sentence for a valibot issue of one entry, naming section, entry and field. */
const describeIssue = (issue: v.BaseIssue<unknown>, section: Section, index: number, entry: unknown): string => {
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  const missing = issue.type === 'strict_object' && issue.received === 'undefined';
  const unknown = issue.type === 'strict_object' && issue.expected === 'never';
  const label = entryLabel(section, index, entry);
  const fieldName = keys.map((part, position) => (typeof part === 'number' ? `[${part}]` : position ? `.${part}` : part)).join('');
  if (unknown) return `${label}: unknown field ${quotedName(String(keys.at(-1)))}`;
  if (missing) return `${label}: ${fieldName} is required`;
  return fieldName ? `${label}: ${fieldName} ${issue.message}` : `${label} ${issue.message}`;
};

/** One entry of a small section: as given, and its checked value when it passed its own checks. */
interface HeldEntry {
  given: unknown;
  checked?: unknown;
}

/** What the first pass over a document learnt: every section but the SIMs, checked, and the SIMs' ledger. */
export interface SeedScan {
  /** The document's sections as checked (defaults applied); `sims` empty unless kept (keepSims). */
  document: SeedDocument;
  /** Every SIM entry's compact record (./sim-ledger.ts). */
  sims: SimLedger;
}

/**
 * Checks a document event by event (`take`), then as a whole (`finish`): the shape of every
 * entry, and once the document is read, references and uniqueness over the entries whose own
 * shape is right (so one broken entry does not hide the others' problems, nor make reference
 * problems of its own). Top-level keys starting with `$` (`$schema`, `$comment`) are ignored;
 * any other unknown key, at the top level or in an entry, is a problem, and so is a top-level
 * key given twice (JSON.parse would keep the last silently).
 */
export class SeedChecker {
  private readonly problems = new Problems();
  private readonly seen = new Set<string>();
  private readonly held = new Map<Section, HeldEntry[]>();
  private readonly ledger = new SimLedger();
  private readonly keptSims: SeedSim[] = [];
  /** The section whose entries are being read (undefined: one to skip). */
  private current: Section | undefined;

  constructor(
    private readonly options: {
      /** Keep every checked SIM entry in `document.sims` (a document held in memory). */
      keepSims?: boolean;
      /** Hears each SIM entry that passed its own checks (the loader's check against the table). */
      onSim?: (index: number, sim: SeedSim) => void;
    } = {},
  ) {}

  /** Reports a problem of SIM entry `index` found elsewhere (the loader's check against the table). */
  reportSim(index: number, problem: string): void {
    this.problems.add(`${this.ledger.label(index)}: ${problem}`, [sectionNumber('sims'), index]);
  }

  /** Reads one event of the document. */
  take(event: SectionEvent): void {
    switch (event.type) {
      case 'member':
        if (this.begin(event.name) && event.value !== null && event.value !== undefined) this.problems.add(`${event.name} must be an array`);
        this.current = undefined;
        return;
      case 'section':
        this.current = this.begin(event.name);
        return;
      case 'entry':
        if (this.current !== undefined) this.entry(this.current, event.index, event.value);
        return;
      case 'section-end':
        this.current = undefined;
    }
  }

  /** Problems of the document as a whole: SeedValidationError, or what the first pass learnt. */
  finish(): SeedScan {
    const document = Object.fromEntries(
      seedSections.map((section) => [section, section === 'sims' ? this.keptSims : (this.held.get(section) ?? []).flatMap((entry) => (entry.checked === undefined ? [] : [entry.checked]))]),
    ) as SeedDocument;
    this.crossReferences(document);
    this.ledger.seal();
    if (this.problems.total > 0) throw new SeedValidationError(this.problems.list(), this.problems.total);
    return { document, sims: this.ledger };
  }

  /** A top-level key: its section, or undefined (a `$` key, an unknown or repeated one, reported). */
  private begin(name: string): Section | undefined {
    if (name.startsWith('$')) return undefined;
    const repeated = this.seen.has(name);
    this.seen.add(name);
    const number = sectionNumber(name);
    if (number === -1) {
      if (!repeated) this.problems.add(`unknown top-level key ${quotedName(name)} (expected ${seedSections.join(', ')})`);
      return undefined;
    }
    if (repeated) {
      this.problems.add(`the top-level key "${name}" is given twice (a document has each section once)`);
      return undefined;
    }
    return seedSections[number];
  }

  private entry(section: Section, index: number, given: unknown): void {
    const parsed = v.safeParse(entrySchemas.get(section)!, given, { abortEarly: false });
    const sectionAt = sectionNumber(section);
    if (!parsed.success) for (const issue of parsed.issues) this.problems.add(describeIssue(issue, section, index, given), [sectionAt, index]);
    if (section === 'sims') {
      const sim = parsed.success ? (parsed.output as SeedSim) : undefined;
      this.ledger.add(sim, (at, problem) => this.reportSim(at, problem));
      if (sim && this.options.keepSims) this.keptSims.push(sim);
      if (sim) this.options.onSim?.(index, sim);
      return;
    }
    let entries = this.held.get(section);
    if (!entries) this.held.set(section, (entries = []));
    entries.push(parsed.success ? { given, checked: parsed.output } : { given });
  }

  /** The string values of `name` over every entry of a section, usable or not. */
  private givenValues(section: Section, name: string): string[] {
    return (this.held.get(section) ?? []).flatMap(({ given }) => {
      const value = isRecord(given) ? field(given, name) : undefined;
      return typeof value === 'string' ? [value] : [];
    });
  }

  /**
   * Problems of references between entries and of uniqueness, over the entries that passed
   * their own checks. A reference to an entry that exists but failed its own checks is not
   * reported again: that entry's problem is.
   */
  private crossReferences(document: SeedDocument): void {
    const report = (section: Section, index: number, entry: unknown, problem: string) =>
      this.problems.add(`${entryLabel(section, index, entry)}: ${problem}`, [sectionNumber(section), index]);
    /** Each checked entry of a section with its index in the document. */
    const usable = <T>(section: Section): { entry: T; index: number }[] =>
      (this.held.get(section) ?? []).flatMap((held, index) => (held.checked === undefined ? [] : [{ entry: held.checked as T, index }]));
    /** Reports an entry whose value was already taken by an earlier one of the same kind. */
    const unique = <T>(section: Section, entries: { entry: T; index: number }[], value: (entry: T) => string, what: string) => {
      const first = new Map<string, { entry: T; index: number }>();
      for (const item of entries) {
        const seen = first.get(value(item.entry));
        if (seen === undefined) first.set(value(item.entry), item);
        else report(section, item.index, item.entry, `${what} "${value(item.entry)}" is already used by ${entryLabel(section, seen.index, seen.entry)}`);
      }
    };
    const mustExist = (section: Section, item: { entry: unknown; index: number }, name: string, id: string, ids: Set<string>) => {
      if (!ids.has(id)) report(section, item.index, item.entry, `${name} "${id}" does not exist`);
    };

    type Of<S extends Section> = SeedDocument[S][number];
    const customers = usable<Of<'customers'>>('customers');
    const customerIds = new Set([...customers.map(({ entry }) => entry.id), ...this.givenValues('customers', 'id')]);
    const paths = customerPaths(document.customers);

    // Customers: unique ids, existing parents, no cycles, unique names within a top-level group.
    unique('customers', customers, (customer) => customer.id, 'id');
    for (const item of customers) {
      const { parent, id } = item.entry;
      if (parent === null) continue;
      if (parent === id) report('customers', item.index, item.entry, 'parent is the customer itself');
      else mustExist('customers', item, 'parent', parent, customerIds);
    }
    const parentOf = new Map(customers.map(({ entry }) => [entry.id, entry.parent]));
    const reportedCycles = new Set<string>();
    for (const { entry: customer, index } of customers) {
      if (paths.has(customer.id) || customer.parent === customer.id) continue;
      const chain = [customer.id];
      let current = parentOf.get(customer.id);
      while (current && parentOf.has(current) && !chain.includes(current)) {
        chain.push(current);
        current = parentOf.get(current);
      }
      if (current !== customer.id) continue; // a missing parent (reported above), or leads into a cycle elsewhere
      const cycle = [...chain].sort().join(' ');
      if (reportedCycles.has(cycle)) continue;
      reportedCycles.add(cycle);
      report('customers', index, customer, `parent chain forms a cycle (${[...chain, customer.id].join(' → ')})`);
    }
    const groupNames = new Map<string, { entry: Of<'customers'>; index: number }>();
    for (const item of customers) {
      const path = paths.get(item.entry.id);
      if (!path) continue;
      const nameKey = `${path[0]}\u0000${item.entry.name}`;
      const seen = groupNames.get(nameKey);
      if (seen === undefined) groupNames.set(nameKey, item);
      else report('customers', item.index, item.entry, `name "${item.entry.name}" is already used in the same customer group by ${entryLabel('customers', seen.index, seen.entry)}`);
    }

    // Users and their bearer tokens.
    const users = usable<Of<'users'>>('users');
    unique('users', users, (user) => user.id, 'id');
    for (const item of users) mustExist('users', item, 'customer', item.entry.customer, customerIds);
    const userIds = new Set([...users.map(({ entry }) => entry.id), ...this.givenValues('users', 'id')]);
    const tokens = usable<Of<'bearer_tokens'>>('bearer_tokens');
    unique('bearer_tokens', tokens, (token) => credentialPrefix(token.token, bearerTokenPattern)!, 'prefix');
    for (const item of tokens) mustExist('bearer_tokens', item, 'user', item.entry.user, userIds);

    // API keys.
    const apiKeys = usable<Of<'api_keys'>>('api_keys');
    unique('api_keys', apiKeys, (apiKey) => credentialPrefix(apiKey.key, apiKeyPattern)!, 'prefix');
    for (const item of apiKeys) mustExist('api_keys', item, 'customer', item.entry.customer, customerIds);

    // Data bundles, then the SIMs' references (their uniqueness was checked as they came).
    const bundles = usable<Of<'data_bundles'>>('data_bundles');
    unique('data_bundles', bundles, (bundle) => bundle.id, 'id');
    for (const item of bundles) mustExist('data_bundles', item, 'customer', item.entry.customer, customerIds);
    const bundleOwners = new Map(bundles.map(({ entry }) => [entry.id, entry.customer]));
    const bundleIds = new Set([...bundleOwners.keys(), ...this.givenValues('data_bundles', 'id')]);
    this.ledger.checkReferences({ customerIds, bundleIds, paths, bundleOwners }, (at, problem) => this.reportSim(at, problem));

    // Storefront: plans, stock, accounts, devices.
    unique('plans', usable<Of<'plans'>>('plans'), (plan) => plan.sku, 'sku');
    const stock = usable<Of<'stock'>>('stock');
    unique('stock', stock, (unit) => unit.iccid, 'iccid');
    const accounts = usable<Of<'accounts'>>('accounts');
    unique('accounts', accounts, (account) => account.email.toLowerCase(), 'email');
    const devices = usable<Of<'devices'>>('devices');
    unique('devices', devices, (device) => device.iccid, 'iccid');
    const accountEmails = new Set([...accounts.map(({ entry }) => entry.email), ...this.givenValues('accounts', 'email')].map((email) => email.toLowerCase()));
    const stockIccids = new Set(stock.map(({ entry }) => entry.iccid));
    for (const { entry: device, index } of devices) {
      if (!accountEmails.has(device.owner.toLowerCase())) report('devices', index, device, `owner "${device.owner}" is not the e-mail of an account`);
      if (stockIccids.has(device.iccid)) report('devices', index, device, `iccid ${device.iccid} is also listed in stock (a stock unit is unassigned, a device is owned)`);
    }
  }
}

/**
 * The events of a document held in memory (parsed JSON), as ./json-sections.ts reads them
 * from a file: SeedValidationError when it is not an object.
 */
export function* documentEvents(input: unknown, wanted: (name: string) => boolean = () => true): Generator<SectionEvent> {
  if (!isRecord(input)) throw new SeedValidationError(['the document must be a JSON object']);
  for (const [name, value] of Object.entries(input)) {
    if (!wanted(name)) continue;
    if (!Array.isArray(value)) {
      yield { type: 'member', name, value };
      continue;
    }
    yield { type: 'section', name };
    for (let index = 0; index < value.length; index += 1) yield { type: 'entry', name, index, value: value[index] };
    yield { type: 'section-end', name, entries: value.length };
  }
}

/**
 * Checks a seed document (parsed JSON) against LOCAL-CONTRACT.md, "Seed document" (SeedChecker).
 * Returns the document with absent sections as empty arrays and absent optional fields at
 * their defaults; throws SeedValidationError listing every problem otherwise, in document order.
 */
export const parseSeedDocument = (input: unknown): SeedDocument => {
  const checker = new SeedChecker({ keepSims: true });
  for (const event of documentEvents(input)) checker.take(event);
  return checker.finish().document;
};
