/**
 * Writes an event fixture (events/<name>.json) for a route or queue consumer, built by the
 * same code as the local gateway and pollers, with the demo seed's credentials:
 *
 *     npx tsx local/make-event.ts NAME [--path /actual/path] [--query 'a=1&b=2']
 *         [--body '<text>' | --body-file FILE] [--header 'Name: value']... [--no-auth]
 *         [--out FILE | --out -] [--force]
 *
 * Routes get the headers their area needs: Area A the demo bearer token and API key, Area B
 * the storefront token (and a Stripe-Signature for the Stripe webhook), the SMS provider's
 * receipt route an X-Provider-Signature over the body. Consumers get an SQSEvent with one
 * record whose body is --body. Signatures use the local demo secrets; Stripe's expire after
 * five minutes, so make a fresh fixture before invoking such a route.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allRoutes } from '../shared/topology/routes';
import { queueDefinitions } from '../shared/topology/queues';
import { readSeed, UsageError } from './cli-options';
import { demoCredentials } from './demo-credentials';
import { makeQueueEvent, makeRouteEvent, type RouteEventOptions } from './event-fixtures';
import { repositoryRoot } from './handler-loader';

const parseArguments = (args: string[]) => {
  const [name, ...rest] = args;
  if (!name || name.startsWith('--')) throw new UsageError('Usage: npx tsx local/make-event.ts NAME [--path P] [--query Q] [--body B | --body-file F] [--header "N: v"]... [--no-auth] [--out FILE|-] [--force]');
  const options: RouteEventOptions & { out?: string; force?: boolean } = { headers: [] };
  for (let index = 0; index < rest.length; index += 1) {
    const flag = rest[index]!;
    const value = () => {
      const next = rest[++index];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    if (flag === '--path') options.path = value();
    else if (flag === '--query') options.query = value();
    else if (flag === '--body') options.body = value();
    else if (flag === '--body-file') options.body = readFileSync(value(), 'utf8');
    else if (flag === '--header') options.headers!.push(value());
    else if (flag === '--no-auth') options.noAuth = true;
    else if (flag === '--out') options.out = value();
    else if (flag === '--force') options.force = true;
    else throw new UsageError(`Unknown option ${flag}`);
  }
  return { name, options };
};

const main = (): void => {
  const { name, options } = parseArguments(process.argv.slice(2));
  const credentials = demoCredentials(readSeed().seed);
  const route = allRoutes().find((candidate) => candidate.name === name);
  const queue = queueDefinitions.find((candidate) => candidate.consumer.name === name);
  let event: unknown;
  if (route) event = makeRouteEvent(route, { ...options, credentials });
  else if (queue) event = makeQueueEvent(queue, options.body ?? '{}');
  else {
    const known = [...allRoutes().map((candidate) => candidate.name), ...queueDefinitions.map((candidate) => candidate.consumer.name)];
    throw new UsageError(`Unknown route or consumer ${name}. Known: ${known.sort().join(', ')}`);
  }
  const text = `${JSON.stringify(event, null, 2)}\n`;
  if (options.out === '-') {
    process.stdout.write(text);
    return;
  }
  const file = options.out ?? join(repositoryRoot, 'events', `${name}.json`);
  if (existsSync(file) && !options.force) throw new UsageError(`${file} exists; pass --force to replace it.`);
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
};

try {
  main();
} catch (error) {
  console.error(error instanceof UsageError ? error.message : String(error));
  process.exit(error instanceof UsageError ? 2 : 1);
}
