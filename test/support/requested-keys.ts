/**
 * Records which partitions a DynamoDB client's requests address: a middleware on the real client that
 * notes every table partition key (`Key`, `Item`, `:pk` of a key condition, the keys of a batch) and
 * every index partition (`:p` of an index query) a command names, before it is sent. Tests of tenant
 * isolation assert on them: what a request never addresses, it cannot read.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface RequestedKeys {
  /** `<Command> <pk>` for each table partition key addressed, in order. */
  tablePartitions: Array<{ command: string; pk: string }>;
  /** Index partitions queried (`:p` of a query on an index). */
  indexPartitions: Array<{ command: string; index: string; partition: string }>;
  commands: string[];
  reset(): void;
  detach(): void;
}

/** A string attribute in either form (document client or marshalled, depending on the middleware's place). */
const str = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : typeof (v as { S?: unknown } | undefined)?.S === 'string'
      ? (v as { S: string }).S
      : undefined;

let counter = 0;

export const recordRequestedKeys = (client: DynamoDBClient): RequestedKeys => {
  const name = `requestedKeys${++counter}`;
  const recorded: RequestedKeys = {
    tablePartitions: [],
    indexPartitions: [],
    commands: [],
    reset() {
      recorded.tablePartitions.length = 0;
      recorded.indexPartitions.length = 0;
      recorded.commands.length = 0;
    },
    detach() {
      client.middlewareStack.remove(name);
    },
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'unknown');
      const input = args.input as Record<string, unknown>;
      recorded.commands.push(command);
      const table = (pk: unknown) => {
        // a request that names a partition key in any other shape is recorded as such, so it fails the checks
        recorded.tablePartitions.push({ command, pk: str(pk) ?? `<unreadable ${JSON.stringify(pk)}>` });
      };
      const key = (input.Key ?? input.Item) as Record<string, unknown> | undefined;
      if (key) table(key.pk);
      const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
      if (input.KeyConditionExpression) {
        if (input.IndexName)
          recorded.indexPartitions.push({
            command,
            index: String(input.IndexName),
            partition: str(values[':p']) ?? '<unreadable>',
          });
        else table(values[':pk']);
      }
      const batches = (input.RequestItems ?? {}) as Record<string, unknown>;
      for (const request of Object.values(batches)) {
        if (Array.isArray(request)) {
          for (const r of request as Array<{ PutRequest?: { Item?: Record<string, unknown> } }>)
            table(r.PutRequest?.Item?.pk);
        } else {
          for (const k of ((request as { Keys?: Array<Record<string, unknown>> }).Keys ?? []) as Array<
            Record<string, unknown>
          >)
            table(k.pk);
        }
      }
      if (command === 'ScanCommand') table('<a scan reads every partition>');
      return next(args);
    },
    { step: 'initialize', name },
  );
  return recorded;
};
