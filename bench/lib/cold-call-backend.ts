/**
 * What the cold calls of section 1 run against: DynamoDB Local with the service table and the
 * bench seed (the `bench` group's SIMs and developers, bench/lib/bench-seed.ts; no SIMs at
 * scale), and the SMS simulator, whose receipts are held back an hour so that none arrives
 * while measuring. Started for the section and stopped after it; nothing else of the local
 * runtime (no gateway, queues or stream reader: no Area A route uses them on its request path).
 *
 * The cold processes reach DynamoDB Local over HTTPS, through a TLS front in this process
 * (a self-signed certificate their NODE_EXTRA_CA_CERTS trusts), because a function reaches
 * DynamoDB over HTTPS: its first call makes a TLS handshake, and it never loads `node:http`,
 * which the SDK imports only for an `http://` endpoint and whose ES module facade costs about
 * 100 M instructions (it loads Node's bundled undici for `http.WebSocket`). Over plain HTTP,
 * the first call would pay for that instead of the handshake.
 *
 * A peer bundle (`--peer-bundle`, bench/lib/peer.ts) gets a table of its own in the same
 * DynamoDB Local.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTable } from '../../local/create-table';
import { demoSecrets, localAwsEnv } from '../../local/demo-config';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { selfSignedCertificate } from '../../local/self-signed-certificate';
import { startSmsSimulator } from '../../local/sms-simulator';
import { loadSeedDocument } from '../../local/seed/load';
import { benchSeedDocument, type BenchData } from './bench-seed';

/** A running backend for cold calls. */
export interface ColdCallBackend {
  /** The functions' own variables (table, endpoints, secrets, credentials, the trusted CA), beside Lambda's. */
  env: Record<string, string>;
  data: BenchData;
  /** DynamoDB Local through the TLS front (`https://127.0.0.1:<port>`). */
  dynamodbEndpoint: string;
  /** NODE_EXTRA_CA_CERTS of every cold process: the front's certificate. */
  trustedCa: Record<string, string>;
  /** A client of the backend's DynamoDB Local (the peer's table is made with it). */
  client: DynamoDBClient;
  stop(): Promise<void>;
}

const tableName = 'sim-service-cold';

/** The credentials every cold process finds in its environment, as Lambda hands them over (any value does for DynamoDB Local). */
export const coldCallCredentials = {
  AWS_ACCESS_KEY_ID: localAwsEnv.AWS_ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: localAwsEnv.AWS_SECRET_ACCESS_KEY,
  AWS_SESSION_TOKEN: 'local',
};

/**
 * A TLS server on a free port of 127.0.0.1 that pipes every connection to `port` (DynamoDB
 * Local), with a fresh self-signed certificate written to a temporary file for
 * NODE_EXTRA_CA_CERTS.
 */
const startTlsFront = async (port: number): Promise<{ endpoint: string; caFile: string; stop: () => Promise<void> }> => {
  const { cert, key } = selfSignedCertificate({ commonName: 'sim-service bench DynamoDB Local', ipAddresses: ['127.0.0.1'], days: 1 });
  const folder = mkdtempSync(join(tmpdir(), 'sim-bench-tls-'));
  const caFile = join(folder, 'ca.pem');
  writeFileSync(caFile, cert);
  const open = new Set<{ destroy: () => void }>();
  const server = createServer({ cert, key }, (socket) => {
    const upstream = connect(port, '127.0.0.1');
    open.add(socket).add(upstream);
    socket.once('close', () => open.delete(socket));
    upstream.once('close', () => open.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await closed;
      rmSync(folder, { recursive: true, force: true });
    },
  };
};

/** Starts DynamoDB Local behind its TLS front and the SMS simulator and seeds the bench group with `developers` developers. */
export const startColdCallBackend = async (root: string, developers: number): Promise<ColdCallBackend> => {
  const stops: Array<() => Promise<void> | void> = [];
  const stop = async () => {
    for (const next of stops.splice(0).reverse()) await next();
  };
  try {
    const dynamodb = await startDynamoDbLocal();
    stops.push(() => dynamodb.stop());
    const client = new DynamoDBClient({
      endpoint: dynamodb.endpoint,
      region: localAwsEnv.AWS_REGION,
      credentials: { accessKeyId: localAwsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: localAwsEnv.AWS_SECRET_ACCESS_KEY },
    });
    stops.push(() => client.destroy());
    const front = await startTlsFront(dynamodb.port);
    stops.push(() => front.stop());
    // No stream: nothing reads it here.
    await createTable(client, tableName, { stream: false });
    const seeded = benchSeedDocument(root, { benchUsers: developers });
    await loadSeedDocument(seeded.document, { client, tableName });
    const simulator = await startSmsSimulator({
      token: demoSecrets.SMS_PROVIDER_TOKEN,
      receiptSecret: demoSecrets.SMS_RECEIPT_SECRET,
      delayMs: 3_600_000,
      quiet: true,
    });
    stops.push(() => simulator.stop());
    const trustedCa = { NODE_EXTRA_CA_CERTS: front.caFile };
    return {
      env: {
        ...coldCallCredentials,
        ...trustedCa,
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: front.endpoint,
        SMS_PROVIDER_URL: simulator.url,
        ...demoSecrets,
      },
      data: seeded.data,
      dynamodbEndpoint: front.endpoint,
      trustedCa,
      client,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
