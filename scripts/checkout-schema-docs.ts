import type * as v from 'valibot';
import { esimCheckoutSchema, iotCheckoutSchema, physicalCheckoutSchema } from '../shared/checkout/schemas';
import { isCarriableText } from '../shared/text/characters';
import { codeForPath } from '../shared/checkout/validate';
import { formatBasisPoints } from '../shared/checkout/money';
import { vatRates } from '../shared/checkout/vat-rates';

/**
 * Renders the checkout schemas as the field tables of docs/area-b.md, by walking the
 * valibot schemas themselves (types, optional wrappers, length and value limits, the
 * descriptions attached with v.description) and asking shared/checkout/validate.ts which error code each
 * field's failure gives. The documentation therefore cannot drift from the validation:
 * test/area-b/docs.test.ts fails when docs/area-b.md differs from this output, and
 * `npx tsx scripts/render-area-b-docs.ts` rewrites it.
 */

type AnySchema = v.GenericSchema & {
  type: string;
  pipe?: Array<{ kind: string; type: string; requirement?: unknown; description?: string; expects?: string }>;
  wrapped?: AnySchema;
  entries?: Record<string, AnySchema>;
  item?: AnySchema;
  literal?: unknown;
};

interface FieldRow {
  field: string;
  type: string;
  required: string;
  rules: string;
  error: string;
}

const describePath = (path: (string | number)[]) =>
  path.reduce<string>((text, segment) => (typeof segment === 'number' ? `${text}[]` : text === '' ? segment : `${text}.${segment}`), '');

const unwrap = (schema: AnySchema) => {
  let current = schema;
  let optional = false;
  let nullable = false;
  for (;;) {
    if (current.type === 'optional' || current.type === 'nullish') optional = true;
    if (current.type === 'nullable' || current.type === 'nullish') nullable = true;
    if (current.type === 'optional' || current.type === 'nullable' || current.type === 'nullish') {
      current = current.wrapped!;
      continue;
    }
    return { schema: current, optional, nullable };
  }
};

const actionsOf = (schema: AnySchema) => (schema.pipe ?? []).slice(1);

const typeName = (schema: AnySchema): string => {
  const actions = actionsOf(schema);
  switch (schema.type) {
    case 'number':
      return actions.some((action) => action.type === 'integer') ? 'integer' : 'number';
    case 'literal':
      return JSON.stringify(schema.literal);
    case 'unknown':
      return 'any';
    default:
      return schema.type;
  }
};

const rulesOf = (schema: AnySchema, nullable: boolean): string => {
  const rules: string[] = [];
  const actions = actionsOf(schema);
  const find = (type: string) => actions.find((action) => action.type === type)?.requirement as number | undefined;
  const minLength = find('min_length');
  const maxLength = find('max_length');
  const unit = schema.type === 'array' ? 'items' : 'chars';
  if (minLength !== undefined && maxLength !== undefined) rules.push(`${minLength} to ${maxLength} ${unit}`);
  else if (maxLength !== undefined) rules.push(`max ${maxLength} ${unit}`);
  const minValue = find('min_value');
  const maxValue = find('max_value');
  if (minValue !== undefined && maxValue !== undefined) rules.push(`${minValue} to ${maxValue}`);
  for (const action of actions) {
    if (action.type === 'check' && action.requirement === isCarriableText) {
      rules.push('well-formed text');
      continue;
    }
    if (action.type === 'check' && schema.type === 'string' && maxLength !== undefined && !rules.includes('not blank')) {
      // requiredText's non-blank check (the country check is described by its own words).
      if (actions.some((other) => other.type === 'regex')) continue;
      rules.push('not blank');
    }
    if (action.type === 'email') rules.push('e-mail address');
    if (action.type === 'iso_timestamp') rules.push('ISO-8601 timestamp');
    if (action.type === 'regex') rules.push(`matches \`${String(action.requirement)}\``);
    if (action.type === 'to_upper_case') rules.push('upper-cased');
  }
  if (nullable) rules.push('null = absent');
  const description = actions.find((action) => action.type === 'description')?.description;
  if (description) rules.push(description);
  return rules.join('; ');
};

const collect = (schema: AnySchema, path: (string | number)[], rows: FieldRow[]) => {
  const { schema: inner, optional, nullable } = unwrap(schema);
  if (path.length > 0) {
    rows.push({
      field: `\`${describePath(path)}\``,
      type: typeName(inner),
      required: optional ? 'no' : 'yes',
      rules: rulesOf(inner, nullable),
      error: inner.type === 'unknown' ? 'never refused' : `\`${codeForPath(path)}\``,
    });
  }
  if (inner.type === 'object') {
    for (const [name, entry] of Object.entries(inner.entries ?? {})) collect(entry, [...path, name], rows);
  } else if (inner.type === 'array' && inner.item) {
    collect(inner.item, [...path, 0], rows);
  }
};

const escapeCell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The field table of one schema, as Markdown. */
export const renderFieldTable = (schema: v.GenericSchema): string => {
  const rows: FieldRow[] = [];
  collect(schema as AnySchema, [], rows);
  return [
    '| Field | Type | Required | Rules | Error when invalid |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${[row.field, row.type, row.required, row.rules, row.error].map(escapeCell).join(' | ')} |`),
  ].join('\n');
};

/** The generated section of docs/area-b.md: the three request bodies. */
export const renderCheckoutFieldDocs = (): string =>
  [
    '### B1 `POST /api/v1/checkout` (eSIM)',
    '',
    renderFieldTable(esimCheckoutSchema),
    '',
    '### B2 `POST /api/v1/physical-checkout` (physical SIM)',
    '',
    renderFieldTable(physicalCheckoutSchema),
    '',
    'Object rule: at least one of `customer_name` and `shipping_address.name` (not blank); when both are missing the',
    'answer is `invalid_shipping_address` naming `shipping_address.name`.',
    '',
    '### B3 `POST /api/v1/iot-physical-checkout` (IoT contract)',
    '',
    renderFieldTable(iotCheckoutSchema),
    '',
    renderVatTable(),
  ].join('\n');

/** The VAT rate table of shared/checkout/vat-rates.ts, as Markdown. */
export const renderVatTable = (): string => {
  const rows = [
    ...Object.entries(vatRates.unitedKingdom).map(([country, rate]) => ({ country, rate, note: 'United Kingdom (seller)' })),
    ...Object.entries(vatRates.europeanUnion)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([country, rate]) => ({ country, rate, note: 'EU standard rate' })),
  ];
  return [
    `### VAT rates (as of ${vatRates.asOf})`,
    '',
    `Source: ${vatRates.source}. Any other country: 0%.`,
    '',
    '| Country | Rate | |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.country} | ${formatBasisPoints(row.rate)}% | ${row.note} |`),
  ].join('\n');
};

/** Markers around the generated section in docs/area-b.md. */
export const generatedMarkers = {
  start: '<!-- generated by scripts/render-area-b-docs.ts from shared/checkout/schemas.ts: do not edit by hand -->',
  end: '<!-- end of generated field documentation -->',
};

/** `document` with its generated section replaced by the current rendering. */
export const withGeneratedFieldDocs = (document: string): string => {
  const start = document.indexOf(generatedMarkers.start);
  const end = document.indexOf(generatedMarkers.end);
  if (start < 0 || end < start) throw new Error('docs/area-b.md has no generated-section markers');
  return `${document.slice(0, start + generatedMarkers.start.length)}\n\n${renderCheckoutFieldDocs()}\n\n${document.slice(end)}`;
};
