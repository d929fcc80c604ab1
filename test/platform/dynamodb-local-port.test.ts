import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { freePort } from '../../local/free-port';

/**
 * A port picked for DynamoDB Local can be taken by another process before the JVM binds it
 * (parallel test files, outgoing connections in the ephemeral range). CI saw
 * "BindException: Address already in use" from `npm start` once; the start now picks again.
 */
let squatter: Server | undefined;
const squattedConnections = new Set<Socket>();
let local: DynamoDbLocal | undefined;

afterAll(async () => {
  await local?.stop();
  for (const socket of squattedConnections) socket.destroy();
  await new Promise<void>((resolve) => (squatter ? squatter.close(() => resolve()) : resolve()));
});

describe('starting DynamoDB Local on a picked port', () => {
  it('picks another port when the first one was taken before the JVM bound it, and serves there', async () => {
    // It accepts and never answers, as a port taken by anything but DynamoDB would.
    squatter = createServer((socket) => squattedConnections.add(socket));
    await new Promise<void>((resolve) => squatter!.listen(0, '0.0.0.0', resolve));
    const taken = (squatter.address() as AddressInfo).port;
    const picked: number[] = [];
    const pickPort = async () => {
      const port = picked.length === 0 ? taken : await freePort();
      picked.push(port);
      return port;
    };

    local = await startDynamoDbLocal({ pickPort });

    expect(picked).toHaveLength(2);
    expect(picked[0]).toBe(taken);
    expect(local.port).toBe(picked[1]);
    const client = new DynamoDBClient({
      endpoint: local.endpoint,
      region: 'eu-west-2',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      maxAttempts: 1,
    });
    await expect(client.send(new ListTablesCommand({}))).resolves.toMatchObject({ TableNames: [] });
    client.destroy();
  }, 60_000);

  it('does not pick again when the caller named the port: the bind error is the answer', async () => {
    await expect(startDynamoDbLocal({ port: (squatter!.address() as AddressInfo).port })).rejects.toThrow(
      /DynamoDB Local exited with code 1[\s\S]*Address already in use/,
    );
  }, 60_000);
});
