/**
 * What the table wrote, read from its DynamoDB stream (a reader of our own,
 * next to the hub's relay): `drain()` returns every record committed since
 * the previous call. Around one request at a time that is exactly what the
 * request wrote, once the hub is quiet (no run of an earlier task still
 * going). Tests may read the table any way they like; the stream costs one
 * GetRecords per shard per drain however large the table has grown.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';

export interface WriteRecord {
  eventName: string;
  pk: string;
  sk: string;
}

export interface WriteWatcher {
  /** Records committed since the last drain (the first drain: since the table was created). */
  drain(): Promise<WriteRecord[]>;
  close(): void;
}

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function watchWrites(endpoint: string, tableName: string): Promise<WriteWatcher> {
  const dynamo = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials, maxAttempts: 3 });
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  dynamo.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${tableName} has no stream`);

  /** Per shard: the next iterator and the last sequence number read (to get a new iterator after an error). */
  const shards = new Map<
    string,
    { iterator: string | undefined; last: string | undefined; closed: boolean }
  >();
  let drains = 0;
  let rediscover = false;

  const discover = async () => {
    let start: string | undefined;
    do {
      const out = await streams.send(
        new DescribeStreamCommand({
          StreamArn: streamArn,
          ...(start ? { ExclusiveStartShardId: start } : {}),
        }),
      );
      for (const shard of out.StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || shards.has(shard.ShardId)) continue;
        shards.set(shard.ShardId, { iterator: undefined, last: undefined, closed: false });
      }
      start = out.StreamDescription?.LastEvaluatedShardId;
    } while (start);
  };

  const iteratorOf = async (shardId: string, last: string | undefined) =>
    (
      await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(last
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;

  const toWrite = (r: StreamRecord): WriteRecord => ({
    eventName: String(r.eventName),
    pk: r.dynamodb?.Keys?.pk?.S ?? JSON.stringify(r.dynamodb?.Keys ?? {}),
    sk: r.dynamodb?.Keys?.sk?.S ?? '',
  });

  const readShard = async (shardId: string): Promise<WriteRecord[]> => {
    const state = shards.get(shardId)!;
    const found: WriteRecord[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        state.iterator ??= await iteratorOf(shardId, state.last);
        while (state.iterator) {
          const out = await streams.send(
            new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }),
          );
          const records = out.Records ?? [];
          state.iterator = out.NextShardIterator;
          if (!state.iterator) {
            state.closed = true;
            rediscover = true;
          }
          for (const r of records) {
            found.push(toWrite(r));
            state.last = r.dynamodb?.SequenceNumber ?? state.last;
          }
          if (records.length === 0) break;
        }
        return found;
      } catch (e) {
        // an expired iterator: go on after the last record read
        state.iterator = undefined;
        if (attempt >= 2) throw e;
      }
    }
  };

  await discover();
  return {
    async drain() {
      // new shards appear when a shard closes (and now and then anyway)
      if (drains++ % 200 === 0 || rediscover) {
        rediscover = false;
        await discover();
      }
      const found: WriteRecord[] = [];
      for (const [id, state] of shards) {
        if (state.closed && !state.iterator) continue;
        found.push(...(await readShard(id)));
      }
      return found;
    },
    close: () => streams.destroy(),
  };
}
