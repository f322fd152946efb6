/**
 * Test access to DynamoDB Local: the instance started by test/run.ts, or one
 * of our own when a file is run directly. Each caller gets a fresh table.
 */
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type DynamoLocal, startDynamoLocal } from '../../local/dynamodb-local.ts';
import { createTableInput } from '../../shared/adapters/dynamodb/table.ts';
import { DynamoUsage } from '../../shared/adapters/dynamodb/usage.ts';

export interface TestTable {
  client: DynamoDBClient;
  tableName: string;
  usage: DynamoUsage;
  endpoint: string;
  drop(): Promise<void>;
}

let own: Promise<DynamoLocal> | undefined;

export const dynamoEndpoint = async (): Promise<string> => {
  const shared = process.env.SYNAPSE_TEST_DYNAMO_ENDPOINT;
  if (shared) return shared;
  own ??= startDynamoLocal();
  return (await own).endpoint;
};

/** A fresh table, on the shared test instance or on the one at `endpoint`. */
export const createTestTable = async (endpoint?: string): Promise<TestTable> => {
  endpoint ??= await dynamoEndpoint();
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const usage = new DynamoUsage().attach(client);
  const tableName = `test-${crypto.randomUUID()}`;
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  usage.reset();
  return {
    client,
    tableName,
    usage,
    endpoint,
    drop: async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
      // an instance of our own is killed when this test process exits (see startDynamoLocal)
    },
  };
};
