import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';

/** Where named schemas live in the document. */
export const componentRef = (name: string): string => `#/components/schemas/${name}`;

/**
 * A pipe that starts with `unknown` (a field the service accepts in any form and never refuses,
 * such as sms_opt_in) keeps its description: the input-type conversion stops at its transform.
 */
const unknownWithDescription: ConversionConfig['overrideSchema'] = ({ valibotSchema }) => {
  const schema = valibotSchema as { type: string; pipe?: { type: string; description?: string }[] };
  if (schema.type !== 'unknown' || !schema.pipe) return undefined;
  const description = schema.pipe.find((item) => item.type === 'description')?.description;
  return description ? { description } : undefined;
};

/**
 * The checkout schemas' "not blank" check (shared/checkout/schemas.ts, requiredText: a v.check
 * whose message starts "must be a non-empty string") in JSON Schema: at least one character
 * that is not white space, exactly what `value.trim() !== ''` accepts.
 */
const notBlankCheck: ConversionConfig['overrideAction'] = ({ valibotAction, jsonSchema }) => {
  const action = valibotAction as { type: string; message?: unknown };
  if (action.type !== 'check' || typeof action.message !== 'string' || !action.message.startsWith('must be a non-empty string')) {
    return undefined;
  }
  const schema = jsonSchema as { minLength?: number; pattern?: string };
  return { ...jsonSchema, minLength: Math.max(1, schema.minLength ?? 0), ...(schema.pattern ? {} : { pattern: '\\S' }) };
};

/**
 * valibot's maxCodePoints (Area A's character limits: shared/sms/submission.ts) in JSON
 * Schema: maxLength, which counts code points too.
 */
const maxCodePoints: ConversionConfig['overrideAction'] = ({ valibotAction, jsonSchema }) => {
  const action = valibotAction as { type: string; requirement?: unknown };
  if (action.type !== 'max_code_points' || typeof action.requirement !== 'number') return undefined;
  const { maxLength } = jsonSchema as { maxLength?: number };
  return { ...jsonSchema, maxLength: Math.min(maxLength ?? action.requirement, action.requirement) };
};

/** The overrides of actions, first answer wins. */
const actionOverrides: ConversionConfig['overrideAction'] = (context) => notBlankCheck!(context) ?? maxCodePoints!(context);

/**
 * How valibot schemas become the document's JSON Schema (2020-12, OpenAPI 3.1's dialect): the
 * input type (what a client sends; conversion stops at a transform such as toUpperCase),
 * "not blank" as a pattern, the other checks JSON Schema cannot express (well-formed text) left
 * to the descriptions, and references to named schemas pointing into components.
 */
const config: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  overrideSchema: unknownWithDescription,
  overrideAction: actionOverrides,
  overrideRef: ({ referenceId }) => componentRef(referenceId),
};

const withoutDialect = (schema: JsonSchema): Record<string, unknown> => {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
};

/** The JSON Schema of one valibot schema (named schemas it contains become references). */
export const jsonSchemaOf = (schema: v.GenericSchema, named: Record<string, v.GenericSchema> = {}): Record<string, unknown> =>
  withoutDialect(toJsonSchema(schema, { ...config, definitions: named }));

/**
 * A query parameter's default as the value it means: the schema's default is the string that
 * would arrive (`'25'`), parsed by the schema it stands in for (25).
 */
const parsedDefault: ConversionConfig['overrideSchema'] = ({ valibotSchema, jsonSchema }) => {
  const schema = valibotSchema as v.GenericSchema & { type: string; wrapped?: v.GenericSchema; default?: unknown };
  if (schema.type !== 'optional' || schema.default === undefined || !schema.wrapped) return undefined;
  const meant = v.parse(schema.wrapped, v.getDefault(schema as v.OptionalSchema<v.GenericSchema, unknown>)) as JsonSchema['default'];
  return { ...jsonSchema, default: meant };
};

/**
 * The JSON Schema of a query parameter. Its schema validates the string that arrives and then
 * the value it means (shared/sims/list-query.ts: digits, then a whole number from 1 to 100); the
 * document describes the value, as OpenAPI serialises a parameter's value into the query, so the
 * conversion starts at the pipe's last schema and a default is documented as the value it means.
 */
export const queryParameterSchemaOf = (schema: v.GenericSchema): Record<string, unknown> =>
  withoutDialect(
    toJsonSchema(schema, {
      ...config,
      typeMode: 'output',
      overrideSchema: (context) => unknownWithDescription!(context) ?? parsedDefault!(context),
    }),
  );

/** The JSON Schemas of the named schemas, referring to each other by `#/components/schemas/<name>`. */
export const componentSchemas = (named: Record<string, v.GenericSchema>): Record<string, Record<string, unknown>> =>
  Object.fromEntries(Object.entries(toJsonSchemaDefs(named, config)).map(([name, schema]) => [name, withoutDialect(schema)]));
