import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand, DynamoDBClient, paginateListTables } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';

/**
 * The DynamoDB Local instances of a test run, handed to its test files (./dynamodb-lease.ts).
 * `POST /lease` with `{"fresh": true}` lends a file an instance of its own, unused before.
 */
export interface DynamoDbPool {
  /** Where a test file leases an instance: `POST {url}/lease`, then `POST {url}/release`. */
  url: string;
  /** Stops the pool's server and every instance. */
  stop(): Promise<void>;
}

interface Instance {
  started: Promise<DynamoDbLocal>;
  client?: DynamoDBClient;
  endpoint?: string;
  /** Test files that hold it now. */
  holders: number;
  /** Test files that held it and used it. */
  filesServed: number;
  retired: boolean;
}

/** The items of every table of an instance (DynamoDB Local counts them exactly, at once). */
const itemsHeld = async (client: DynamoDBClient): Promise<number> => {
  let items = 0;
  for await (const page of paginateListTables({ client }, {})) {
    for (const TableName of page.TableNames ?? []) {
      items += (await client.send(new DescribeTableCommand({ TableName }))).Table?.ItemCount ?? 0;
    }
  }
  return items;
};

/**
 * A pool of DynamoDB Local instances for one test run. DynamoDB Local keeps the stream records
 * of every table it ever served (deleting the table or its stream keeps them), and each write
 * to a table with a stream gets slower with their number: after one file loaded 20,000 items,
 * every write of the next files took 7 ms instead of 1 ms, and late files of a run took up to
 * ten times what they take alone. So an instance is retired once `filesPerInstance` test files
 * used it, or once its tables hold `itemsPerInstance` items (a few files load thousands): it
 * serves no new file, stops when its last holder released it, and a spare started beforehand
 * takes its place, so no file waits for a JVM to start. A file that writes thousands of items
 * asks for an instance of its own (./dynamodb-lease.ts), so neither it nor the files after it
 * wait behind the other's stream records.
 */
export const startDynamoDbPool = async (options: { filesPerInstance: number; itemsPerInstance: number }): Promise<DynamoDbPool> => {
  const instances = new Set<Instance>();
  const launch = (): Instance => {
    const instance: Instance = { started: startDynamoDbLocal(), holders: 0, filesServed: 0, retired: false };
    instance.started.then(
      (server) => {
        instance.endpoint = server.endpoint;
        instance.client = new DynamoDBClient({
          endpoint: server.endpoint,
          region: 'eu-west-2',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        });
      },
      () => undefined,
    );
    instances.add(instance);
    return instance;
  };
  const stopInstance = async (instance: Instance): Promise<void> => {
    instances.delete(instance);
    instance.client?.destroy();
    await (await instance.started.catch(() => undefined))?.stop();
  };
  let current = launch();
  let spare = launch();
  await Promise.all([current.started, spare.started]);

  const lease = async (fresh: boolean): Promise<string> => {
    let instance = current;
    if (fresh) {
      // The spare, for this file alone: retired at once, stopped when the file gives it back.
      instance = spare;
      instance.retired = true;
      spare = launch();
    }
    instance.holders += 1;
    return (await instance.started).endpoint;
  };
  const release = async (endpoint: string, used: boolean): Promise<void> => {
    const instance = [...instances].find((candidate) => candidate.endpoint === endpoint);
    if (!instance) return;
    if (used) instance.filesServed += 1;
    const full =
      used &&
      instance === current &&
      (instance.filesServed >= options.filesPerInstance || (await itemsHeld(instance.client!)) >= options.itemsPerInstance);
    instance.holders -= 1;
    if (full && instance === current) {
      instance.retired = true;
      current = spare;
      spare = launch();
    }
    if (instance.retired && instance.holders === 0) void stopInstance(instance);
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = (status: number, body: unknown) => {
      // One request a connection: a kept-alive socket the server closes when idle could be
      // reused by the next file's fetch just then ("other side closed").
      response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      response.end(JSON.stringify(body));
    };
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/lease') {
        lease((JSON.parse(text || '{}') as { fresh?: boolean }).fresh === true).then(
          (endpoint) => answer(200, { endpoint }),
          (error: Error) => answer(500, { detail: error.message }),
        );
      } else if (request.method === 'POST' && request.url === '/release') {
        const { endpoint, used } = JSON.parse(text) as { endpoint: string; used: boolean };
        release(endpoint, used).then(
          () => answer(200, {}),
          (error: Error) => answer(500, { detail: error.message }),
        );
      } else {
        answer(404, { detail: 'not found' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...instances].map(stopInstance));
    },
  };
};
