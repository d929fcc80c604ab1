import Ajv from 'ajv';

/**
 * The CloudWatch embedded metric format (EMF) as a JSON Schema, written from the
 * specification ("Specification: Embedded metric format", Amazon CloudWatch User Guide,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
 *
 * - the root node MUST have the `_aws` member, the metadata object;
 * - metadata: `Timestamp` (REQUIRED, a number: milliseconds since the epoch) and
 *   `CloudWatchMetrics` (REQUIRED, an array of MetricDirective objects); no other members;
 * - MetricDirective: `Namespace` (REQUIRED string, 1 to 1024 characters), `Dimensions`
 *   (REQUIRED array of DimensionSets: each an array of at most 30 dimension keys, strings of
 *   1 to 250 characters that name target members), `Metrics` (REQUIRED array of at most 100
 *   MetricDefinitions);
 * - MetricDefinition: `Name` (REQUIRED string, 1 to 1024 characters, names a target member),
 *   `Unit` (OPTIONAL, one of the CloudWatch units), `StorageResolution` (OPTIONAL, 1 or 60).
 *
 * What a JSON Schema cannot say about references, `targetMemberProblems` checks: each
 * dimension key names a top-level string member (value 1 to 1024 characters) and each metric
 * name a top-level number or array of at most 100 numbers.
 */
export const emfUnits = [
  'Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits',
  'Megabits', 'Gigabits', 'Terabits', 'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second',
  'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second',
  'Terabits/Second', 'Count/Second', 'None',
];

/** The JSON Schema (draft 7) of an EMF root node. */
export const emfSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      additionalProperties: false,
      properties: {
        Timestamp: { type: 'integer', minimum: 0 },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            additionalProperties: false,
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 1024 },
              Dimensions: {
                type: 'array',
                items: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1, maxLength: 250 } },
              },
              Metrics: {
                type: 'array',
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  additionalProperties: false,
                  properties: {
                    Name: { type: 'string', minLength: 1, maxLength: 1024 },
                    Unit: { type: 'string', enum: emfUnits },
                    StorageResolution: { type: 'integer', enum: [1, 60] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

/** What is wrong with the target members of an EMF document (empty: nothing). */
export const targetMemberProblems = (document: Record<string, unknown>): string[] => {
  const problems: string[] = [];
  const directives = (document._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> }).CloudWatchMetrics;
  for (const directive of directives) {
    for (const key of directive.Dimensions.flat()) {
      const value = document[key];
      if (typeof value !== 'string' || value.length < 1 || value.length > 1024) problems.push(`dimension ${key} is not a string member of 1 to 1024 characters`);
    }
    for (const { Name } of directive.Metrics) {
      const value = document[Name];
      const ok = typeof value === 'number' || (Array.isArray(value) && value.length <= 100 && value.every((item) => typeof item === 'number'));
      if (!ok) problems.push(`metric ${Name} has no number member`);
    }
  }
  return problems;
};

const validate = new Ajv({ allErrors: true, strict: true }).compile(emfSchema);

/** The schema's errors and the target-member problems of one EMF line (empty: a valid line). */
export const emfProblems = (line: Record<string, unknown>): string[] => {
  if (!validate(line)) return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
  return targetMemberProblems(line);
};
