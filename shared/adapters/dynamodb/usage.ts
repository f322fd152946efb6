/**
 * Counts what the store costs: requests, sequential round trips (requests
 * that overlap in time count once) and consumed capacity. Used by the
 * benchmark and by tests that assert cost does not grow with history.
 *
 * A conditional write that fails returns no ConsumedCapacity, yet DynamoDB
 * charges it: write units for the larger of the existing and the new item.
 * The recorder adds that charge itself, from the request and the returned
 * old item, so duplicates and lost races are priced too.
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type ConsumedCapacity,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { itemSize, writeUnits } from './item-size.ts';

export interface UsageTotals {
  requests: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  byOperation: Record<string, number>;
  /** Conditional writes refused (their units are in writeUnits). */
  failedConditions: number;
}

const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'TransactWriteItems',
  'BatchWriteItem',
]);

const AV_TYPES = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL']);
const isAttributeValue = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 1 && AV_TYPES.has(Object.keys(v)[0]!);

/** Size of an item given in either form (document client or marshalled), depending on the middleware step. */
const sizeOf = (item: Record<string, unknown> | undefined): number => {
  if (!item) return 0;
  const marshalled = Object.values(item).every(isAttributeValue);
  return itemSize(marshalled ? unmarshall(item as Record<string, AttributeValue>) : item);
};

export class DynamoUsage {
  private inFlight = 0;
  totals: UsageTotals = DynamoUsage.empty();

  static empty(): UsageTotals {
    return { requests: 0, roundTrips: 0, readUnits: 0, writeUnits: 0, byOperation: {}, failedConditions: 0 };
  }

  /** Adds a middleware to `client` that feeds this recorder. */
  attach(client: DynamoDBClient): this {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        // a COUNT query is told apart: it answers totals, not pages
        const op =
          name === 'Query' && (args.input as { Select?: string }).Select === 'COUNT' ? 'Query(COUNT)' : name;
        if (this.inFlight++ === 0) this.totals.roundTrips++;
        this.totals.requests++;
        this.totals.byOperation[op] = (this.totals.byOperation[op] ?? 0) + 1;
        try {
          const result = await next(args);
          this.addCapacity(
            op,
            (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity,
          );
          return result;
        } catch (e) {
          if (e instanceof ConditionalCheckFailedException) {
            const attempted = (args.input as { Item?: Record<string, unknown> }).Item;
            this.totals.failedConditions++;
            this.totals.writeUnits += writeUnits(
              Math.max(sizeOf(attempted), sizeOf(e.Item as Record<string, unknown>)),
            );
          }
          throw e;
        } finally {
          this.inFlight--;
        }
      },
      { step: 'initialize', name: 'synapseUsage' },
    );
    return this;
  }

  reset(): UsageTotals {
    const t = this.totals;
    this.totals = DynamoUsage.empty();
    return t;
  }

  // Responses report CapacityUnits (total, table + indexes); attribute them by what the operation does.
  private addCapacity(op: string, cc: ConsumedCapacity | ConsumedCapacity[] | undefined): void {
    const isWrite = WRITE_OPERATIONS.has(op.replace(/\(.*\)$/, ''));
    for (const c of Array.isArray(cc) ? cc : cc ? [cc] : []) {
      const units = c.CapacityUnits ?? (c.ReadCapacityUnits ?? 0) + (c.WriteCapacityUnits ?? 0);
      if (isWrite) this.totals.writeUnits += units;
      else this.totals.readUnits += units;
    }
  }
}
