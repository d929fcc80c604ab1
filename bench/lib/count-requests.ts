import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** What countRequests counts: requests by command (without "Command") and capacity units read and written. */
export interface RequestCounts {
  requests: Record<string, number>;
  units: { read: number; write: number };
}

/**
 * Counts a client's requests by command and the capacity units DynamoDB Local reports for them
 * (it asks for `ReturnConsumedCapacity: TOTAL` on each), without keeping the calls: their
 * inputs would fill memory over a run of a hundred thousand records.
 */
export const countRequests = (client: DynamoDBDocumentClient, name = 'benchRequestCounter'): RequestCounts => {
  const counts: RequestCounts = { requests: {}, units: { read: 0, write: 0 } };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String((context as { commandName?: string }).commandName).replace(/Command$/, '');
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      counts.requests[command] = (counts.requests[command] ?? 0) + 1;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity;
      const total = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((sum, entry) => sum + Number(entry.CapacityUnits ?? 0), 0);
      if (/^(Get|BatchGet|Query|Scan)/.test(command)) counts.units.read += total;
      else counts.units.write += total;
      return result;
    },
    { step: 'initialize', name },
  );
  return counts;
};
