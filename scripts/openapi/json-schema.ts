import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';

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
 * How valibot schemas become the document's JSON Schema (2020-12, OpenAPI 3.1's dialect): the
 * input type (what a client sends; conversion stops at a transform such as toUpperCase),
 * checks that JSON Schema cannot express (v.check: well-formed text, not blank) left to the
 * descriptions, and references to named schemas pointing into components.
 */
const config: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  overrideSchema: unknownWithDescription,
  overrideRef: ({ referenceId }) => componentRef(referenceId),
};

const withoutDialect = (schema: JsonSchema): Record<string, unknown> => {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
};

/** The JSON Schema of one valibot schema (named schemas it contains become references). */
export const jsonSchemaOf = (schema: v.GenericSchema, named: Record<string, v.GenericSchema> = {}): Record<string, unknown> =>
  withoutDialect(toJsonSchema(schema, { ...config, definitions: named }));

/** The JSON Schemas of the named schemas, referring to each other by `#/components/schemas/<name>`. */
export const componentSchemas = (named: Record<string, v.GenericSchema>): Record<string, Record<string, unknown>> =>
  Object.fromEntries(Object.entries(toJsonSchemaDefs(named, config)).map(([name, schema]) => [name, withoutDialect(schema)]));
