import { QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { sortKey } from '../db/keys';
import type { SimDeps } from './deps';

/** A FilterExpression over sim_scope items, with its names and values. */
export interface ScopeFilter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Most range queries sent in parallel in one round. */
const maxSegments = 16;
/** A segment is sized to this share of what one page read, so most finish in one page. */
const segmentFill = 0.75;

type Page = Pick<QueryCommandOutput, 'Items' | 'LastEvaluatedKey' | 'ScannedCount'>;

interface Segment {
  low: number;
  high: number;
  ids: number[];
  next?: Record<string, unknown>;
}

const idsOf = (page: Page): number[] => (page.Items ?? []).map((item) => Number(item.sim_id));

const lastReadId = (page: Page): number | undefined =>
  page.LastEvaluatedKey ? sortKey.simIdOfScope(String(page.LastEvaluatedKey.SK)) : undefined;

/**
 * The ids, ascending, of the SIMs of one `SCOPE#<customer>` partition that pass `filter`,
 * read from the small sim_scope items only (projection: sim_id), never from the SIMs.
 *
 * A partition read page by page costs one sequential round trip per 1 MB (about 9,000 scope
 * items), so 20,000 SIMs would take three. Instead: round 1 reads the first page and, beside
 * it, the partition's first and last sort keys (two one-item queries). If the first page is
 * not the whole partition, the rest of the id range is split into disjoint sub-ranges sized
 * from the first page's density, and round 2 queries them all in parallel (`SK BETWEEN`);
 * a sub-range that needs more than a page continues in the next round. Sub-ranges never
 * overlap, so nothing is read twice; with dense ids, any partition is read in two rounds.
 */
export const scopedSimIds = async (deps: SimDeps, partitionKey: string, filter?: ScopeFilter): Promise<number[]> => {
  const query = (
    keyCondition: string,
    keyValues: Record<string, unknown>,
    options: { filtered: boolean; limit?: number; forward?: boolean; start?: Record<string, unknown> },
  ): Promise<Page> => {
    const useFilter = options.filtered && filter !== undefined;
    return deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: keyCondition,
        ...(useFilter ? { FilterExpression: filter.expression } : {}),
        ProjectionExpression: options.filtered ? 'sim_id' : 'SK',
        ExpressionAttributeNames: useFilter ? filter.names : undefined,
        ExpressionAttributeValues: { ':pk': partitionKey, ...keyValues, ...(useFilter ? filter.values : {}) },
        ScanIndexForward: options.forward ?? true,
        Limit: options.limit,
        ExclusiveStartKey: options.start,
      }),
    );
  };

  const [first, lowest, highest] = await Promise.all([
    query('PK = :pk', {}, { filtered: true }),
    query('PK = :pk', {}, { filtered: false, limit: 1 }),
    query('PK = :pk', {}, { filtered: false, limit: 1, forward: false }),
  ]);
  const ids = idsOf(first);
  const readUpTo = lastReadId(first);
  const minId = lowest.Items?.[0] ? sortKey.simIdOfScope(String(lowest.Items[0].SK)) : undefined;
  const maxId = highest.Items?.[0] ? sortKey.simIdOfScope(String(highest.Items[0].SK)) : undefined;
  if (readUpTo === undefined || maxId === undefined || minId === undefined || maxId <= readUpTo) return ids;

  // Split (readUpTo, maxId] into sub-ranges expected to hold about 3/4 of a page each.
  const perPage = Math.max(1, first.ScannedCount ?? 1);
  const density = perPage / Math.max(1, readUpTo - minId + 1);
  const expected = (maxId - readUpTo) * density;
  const count = Math.min(maxSegments, Math.max(1, Math.ceil(expected / (perPage * segmentFill))));
  const span = maxId - readUpTo;
  const segments: Segment[] = [];
  for (let index = 0; index < count; index += 1) {
    const low = readUpTo + 1 + Math.floor((span * index) / count);
    const high = readUpTo + Math.floor((span * (index + 1)) / count);
    if (high >= low) segments.push({ low, high, ids: [] });
  }

  let open = segments;
  let firstRound = true;
  while (open.length > 0) {
    const pages = await Promise.all(
      open.map((segment) =>
        query(
          'PK = :pk AND SK BETWEEN :low AND :high',
          { ':low': sortKey.simScope(segment.low), ':high': sortKey.simScope(segment.high) },
          { filtered: true, start: firstRound ? undefined : segment.next },
        ),
      ),
    );
    pages.forEach((page, index) => {
      const segment = open[index]!;
      segment.ids.push(...idsOf(page));
      segment.next = page.LastEvaluatedKey;
    });
    open = open.filter((segment) => segment.next !== undefined);
    firstRound = false;
  }
  return [...ids, ...segments.flatMap((segment) => segment.ids)];
};
