/**
 * Counts what the store costs: requests, sequential round trips (requests
 * that overlap in time count once) and consumed capacity. Used by the
 * benchmark and by tests that assert cost does not grow with history.
 */
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface UsageTotals {
  requests: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  byOperation: Record<string, number>;
}

const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'TransactWriteItems',
  'BatchWriteItem',
]);

export class DynamoUsage {
  private inFlight = 0;
  totals: UsageTotals = DynamoUsage.empty();

  static empty(): UsageTotals {
    return { requests: 0, roundTrips: 0, readUnits: 0, writeUnits: 0, byOperation: {} };
  }

  /** Adds a middleware to `client` that feeds this recorder. */
  attach(client: DynamoDBClient): this {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const op = String(context.commandName ?? 'unknown').replace(/Command$/, '');
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
    const isWrite = WRITE_OPERATIONS.has(op);
    for (const c of Array.isArray(cc) ? cc : cc ? [cc] : []) {
      const units = c.CapacityUnits ?? (c.ReadCapacityUnits ?? 0) + (c.WriteCapacityUnits ?? 0);
      if (isWrite) this.totals.writeUnits += units;
      else this.totals.readUnits += units;
    }
  }
}
