/**
 * Questions the infrastructure tests ask of a synthesised template: which API Gateway
 * method sits on which path and invokes which function, what a role may do, and what a
 * function's environment holds.
 */
import type { CfnTemplate } from './synth';

/** One API Gateway method as a caller sees it. */
export interface ApiMethod {
  httpMethod: string;
  /** '/' or '/a/b/{c}'. */
  path: string;
  /** Logical id of the Lambda function the method invokes. */
  functionId: string;
}

/** One IAM policy statement, with Action and Resource always arrays. */
export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
}

const ofType = (json: CfnTemplate, type: string): [string, Record<string, any>][] =>
  Object.entries(json.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id, resource]) => [id, resource.Properties ?? {}]);

/** Logical ids of the resources of a type. */
export const idsOfType = (json: CfnTemplate, type: string): string[] => ofType(json, type).map(([id]) => id);

/** Logical ids referenced (Ref or Fn::GetAtt) anywhere inside `value`. */
export const referencedIds = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(referencedIds);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  if (typeof object.Ref === 'string') return [object.Ref];
  const getAtt = object['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return [getAtt[0]];
  return Object.values(object).flatMap(referencedIds);
};

/** Every API Gateway method with its full resource path and the function it invokes. */
export const apiMethods = (json: CfnTemplate): ApiMethod[] => {
  const resources = new Map(ofType(json, 'AWS::ApiGateway::Resource'));
  const pathOf = (resourceId: unknown): string => {
    const [id] = referencedIds(resourceId);
    const resource = id === undefined ? undefined : resources.get(id);
    if (!resource) return ''; // Fn::GetAtt RestApi.RootResourceId: the root
    return `${pathOf(resource.ParentId)}/${resource.PathPart}`;
  };
  const functions = new Set(idsOfType(json, 'AWS::Lambda::Function'));
  return ofType(json, 'AWS::ApiGateway::Method').map(([, method]) => {
    const targets = referencedIds(method.Integration?.Uri).filter((id) => functions.has(id));
    if (method.Integration?.Type !== 'AWS_PROXY' || targets.length !== 1) {
      throw new Error(`method ${method.HttpMethod} is not a Lambda proxy integration with one function`);
    }
    return { httpMethod: method.HttpMethod, path: pathOf(method.ResourceId) || '/', functionId: targets[0]! };
  });
};

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** The statements of every policy attached to a role (inline policies and AWS::IAM::Policy). */
export const roleStatements = (json: CfnTemplate, roleId: string): Statement[] => {
  const role = json.Resources[roleId]?.Properties ?? {};
  const inline = (role.Policies ?? []).map((policy: { PolicyDocument: unknown }) => policy.PolicyDocument);
  const attached = ofType(json, 'AWS::IAM::Policy')
    .filter(([, policy]) => referencedIds(policy.Roles).includes(roleId))
    .map(([, policy]) => policy.PolicyDocument);
  return [...inline, ...attached].flatMap((document: { Statement: Record<string, unknown>[] }) =>
    document.Statement.map((statement) => ({
      Effect: statement.Effect as string,
      Action: asArray(statement.Action) as string[],
      Resource: asArray(statement.Resource),
    })),
  );
};

/** The logical id of a function's role. */
export const roleOf = (json: CfnTemplate, functionId: string): string => {
  const [roleId] = referencedIds(json.Resources[functionId]?.Properties?.Role);
  if (!roleId) throw new Error(`function ${functionId} has no role`);
  return roleId;
};

/** The actions a role is allowed on a resource (a logical id; its ARN or its index ARNs). */
export const actionsOn = (json: CfnTemplate, roleId: string, resourceId: string): string[] =>
  roleStatements(json, roleId)
    .filter((statement) => statement.Effect === 'Allow')
    .filter((statement) => statement.Resource.some((resource) => referencedIds(resource).includes(resourceId)))
    .flatMap((statement) => statement.Action);

/** Every action a role is allowed, on anything. */
export const allActions = (json: CfnTemplate, roleId: string): string[] =>
  roleStatements(json, roleId)
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => statement.Action);

/** The environment variables of a function. */
export const environmentOf = (json: CfnTemplate, functionId: string): Record<string, unknown> =>
  json.Resources[functionId]?.Properties?.Environment?.Variables ?? {};

/**
 * A dependency cycle among the resources (Ref, Fn::GetAtt, Fn::Sub and DependsOn), as the
 * list of logical ids around it; undefined when there is none. CloudFormation refuses a
 * cyclic template only at deploy time, so the tests look for cycles at synth.
 */
export const dependencyCycle = (json: CfnTemplate): string[] | undefined => {
  const ids = new Set(Object.keys(json.Resources));
  const edges = new Map<string, string[]>();
  for (const [id, resource] of Object.entries(json.Resources)) {
    const dependsOn = (resource as { DependsOn?: string | string[] }).DependsOn;
    const subs = JSON.stringify(resource.Properties ?? {}).match(/\$\{[A-Za-z0-9]+/g) ?? [];
    const targets = [
      ...referencedIds(resource.Properties ?? {}),
      ...(dependsOn === undefined ? [] : asArray(dependsOn).map(String)),
      ...subs.map((sub) => sub.slice(2)),
    ];
    edges.set(id, [...new Set(targets.filter((target) => ids.has(target) && target !== id))]);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
};
