/**
 * Whether a role of a synthesised template allows an action on a resource, as IAM evaluates
 * its identity policies: an explicit Deny wins, else an Allow whose Action and Resource patterns
 * (`*` any run of characters, `?` one; actions case-insensitively) match. The template's
 * references are resolved to ARNs first, each resource named by its logical id (which stands in
 * for the physical name CloudFormation gives it) in the local runtime's region and account, so
 * that what the local runtime recorded can be written as the same ARNs (permissions.test.ts).
 */
import { localAccountId, localRegion } from '../../local/lambda-context';
import type { CfnTemplate } from './synth';

/** The pseudo parameters, as the local runtime's region and account. */
const pseudoParameters: Record<string, string> = {
  'AWS::Partition': 'aws',
  'AWS::Region': localRegion,
  'AWS::AccountId': localAccountId,
  'AWS::URLSuffix': 'amazonaws.com',
};

/** `arn:aws:<service>:<region>:<account>:<resource>`. */
export const arn = (service: string, resource: string, options: { global?: boolean } = {}): string =>
  `arn:aws:${service}:${options.global ? '' : localRegion}:${localAccountId}:${resource}`;

/** What a Ref or Fn::GetAtt of each resource type resolves to, by attribute (`Ref` for a Ref). */
const references: Record<string, Record<string, (id: string) => string>> = {
  'AWS::DynamoDB::Table': {
    Ref: (id) => id,
    Arn: (id) => arn('dynamodb', `table/${id}`),
    StreamArn: (id) => arn('dynamodb', `table/${id}/stream/2026-01-01T00:00:00.000`),
  },
  'AWS::SQS::Queue': {
    Ref: (id) => `https://sqs.${localRegion}.amazonaws.com/${localAccountId}/${id}`,
    Arn: (id) => arn('sqs', id),
    QueueName: (id) => id,
  },
  'AWS::SNS::Topic': { Ref: (id) => arn('sns', id), TopicArn: (id) => arn('sns', id) },
  'AWS::SecretsManager::Secret': { Ref: (id) => arn('secretsmanager', `secret:${id}-AbCdEf`) },
  'AWS::Logs::LogGroup': { Ref: (id) => id, Arn: (id) => arn('logs', `log-group:${id}:*`) },
  'AWS::KMS::Key': { Ref: (id) => id, Arn: (id) => arn('kms', `key/${id}`) },
  'AWS::Lambda::Function': { Ref: (id) => id, Arn: (id) => arn('lambda', `function:${id}`) },
  'AWS::IAM::Role': { Ref: (id) => id, Arn: (id) => arn('iam', `role/${id}`, { global: true }) },
};

/** The value of a reference to a resource of the template (Ref when `attribute` is undefined). */
export const referenceValue = (json: CfnTemplate, id: string, attribute?: string): string => {
  if (attribute === undefined && Object.hasOwn(pseudoParameters, id)) return pseudoParameters[id]!;
  const type = json.Resources[id]?.Type;
  const resolve = type === undefined ? undefined : references[type]?.[attribute ?? 'Ref'];
  if (!resolve) throw new Error(`the permission check cannot resolve ${attribute === undefined ? `Ref ${id}` : `${id}.${attribute}`} (${type ?? 'no such resource'})`);
  return resolve(id);
};

/** A template value (a string or an intrinsic function of the ones CDK writes into policies) as a string. */
export const resolveValue = (json: CfnTemplate, value: unknown): string => {
  if (typeof value === 'string') return value;
  const object = (value ?? {}) as Record<string, unknown>;
  if (typeof object.Ref === 'string') return referenceValue(json, object.Ref);
  const getAtt = object['Fn::GetAtt'] as [string, string] | undefined;
  if (getAtt) return referenceValue(json, getAtt[0], getAtt[1]);
  const join = object['Fn::Join'] as [string, unknown[]] | undefined;
  if (join) return join[1].map((part) => resolveValue(json, part)).join(join[0]);
  const sub = object['Fn::Sub'];
  if (typeof sub === 'string') {
    return sub.replace(/\$\{([^}.]+)(?:\.([^}]+))?\}/g, (_, id: string, attribute?: string) => referenceValue(json, id, attribute));
  }
  const select = object['Fn::Select'] as [number | string, unknown] | undefined;
  if (select) {
    const list = select[1] as Record<string, unknown>;
    const split = list['Fn::Split'] as [string, unknown] | undefined;
    if (!split) throw new Error(`the permission check cannot resolve ${JSON.stringify(value)}`);
    return resolveValue(json, split[1]).split(split[0])[Number(select[0])] ?? '';
  }
  throw new Error(`the permission check cannot resolve ${JSON.stringify(value)}`);
};

/** One resource pattern of a statement, and the template resource it derives from. */
export interface ResolvedResource {
  /** The ARN pattern, references resolved. */
  pattern: string;
  /**
   * The reference it is built on, `<logical id>.<attribute>` (`.Ref` for a Ref): a table's ARN
   * and its index ARNs are one family, its stream another; a literal is its own family.
   */
  family: string;
}

/** One statement of an identity policy with its patterns resolved. */
export interface ResolvedStatement {
  effect: 'Allow' | 'Deny';
  actions: string[];
  resources: ResolvedResource[];
}

/** The references (Ref, Fn::GetAtt; not pseudo parameters) inside a template value, as `<id>.<attribute>`. */
const referencesIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  if (typeof object.Ref === 'string') return object.Ref.startsWith('AWS::') ? [] : [`${object.Ref}.Ref`];
  const getAtt = object['Fn::GetAtt'] as [string, string] | undefined;
  if (getAtt) return [`${getAtt[0]}.${getAtt[1]}`];
  return Object.values(object).flatMap(referencesIn);
};

/** The family of a resource value (ResolvedResource.family). */
export const familyOf = (json: CfnTemplate, value: unknown): string => {
  const found = [...new Set(referencesIn(value))];
  if (found.length > 1) throw new Error(`a resource built on ${found.join(' and ')}, which the permission check cannot tell apart`);
  return found[0] ?? resolveValue(json, value);
};

const asArray = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/**
 * The statements of a role: its inline policies, the AWS::IAM::Policy resources attached to it
 * and its managed policies (only AWS's basic execution role is known; any other fails). A
 * statement with a Condition, NotAction or NotResource fails too: the check does not evaluate those.
 */
export const resolvedRoleStatements = (json: CfnTemplate, roleId: string): ResolvedStatement[] => {
  const role = json.Resources[roleId];
  if (role?.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role of the template`);
  const documents: unknown[] = (role.Properties?.Policies ?? []).map((policy: { PolicyDocument: unknown }) => policy.PolicyDocument);
  for (const resource of Object.values(json.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if (asArray(resource.Properties?.Roles).some((entry) => (entry as { Ref?: string }).Ref === roleId)) documents.push(resource.Properties!.PolicyDocument);
  }
  const statements = documents.flatMap((document) => asArray((document as { Statement: unknown }).Statement)) as Record<string, unknown>[];
  const resolved = statements.map((statement): ResolvedStatement => {
    const unsupported = ['Condition', 'NotAction', 'NotResource', 'NotPrincipal'].filter((key) => key in statement);
    if (unsupported.length > 0) throw new Error(`${roleId} has a statement with ${unsupported.join(', ')}, which the permission check does not evaluate`);
    return {
      effect: statement.Effect as 'Allow' | 'Deny',
      actions: asArray(statement.Action) as string[],
      resources: asArray(statement.Resource).map((resource) => ({ pattern: resolveValue(json, resource), family: familyOf(json, resource) })),
    };
  });
  for (const managed of asArray(role.Properties?.ManagedPolicyArns)) {
    const name = resolveValue(json, managed);
    if (name !== 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole') throw new Error(`${roleId} has the managed policy ${name}, which the permission check does not know`);
    resolved.push({ effect: 'Allow', actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], resources: [{ pattern: '*', family: '*' }] });
  }
  return resolved;
};

/** Whether an IAM pattern (`*`, `?`) matches a value. */
export const patternMatches = (pattern: string, value: string, options: { ignoreCase?: boolean } = {}): boolean => {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, options.ignoreCase ? 'i' : '').test(value);
};

const statementMatches = (statement: ResolvedStatement, action: string, resource: string): boolean =>
  statement.actions.some((pattern) => patternMatches(pattern, action, { ignoreCase: true })) &&
  statement.resources.some(({ pattern }) => patternMatches(pattern, resource));

/** Whether the statements allow `action` on the resource ARN `resource`: an Allow matches and no Deny does. */
export const allows = (statements: ResolvedStatement[], action: string, resource: string): boolean =>
  statements.some((statement) => statement.effect === 'Allow' && statementMatches(statement, action, resource)) &&
  !statements.some((statement) => statement.effect === 'Deny' && statementMatches(statement, action, resource));
