/**
 * `npm run delivery-log -- <taskId> [--tenant T]`: prints a task's push delivery log (every attempt:
 * status, HTTP status, latency, error, why it gave up), for operators. Reads the task table named by
 * TABLE_NAME with the AWS SDK's usual credentials and region; locally, point it at the hub's DynamoDB
 * Local with AWS_ENDPOINT_URL_DYNAMODB (`npm start` prints both; no region or credentials are needed
 * then, shared/adapters/aws/cli-dynamo-config.ts). The log holds no URL or secret.
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { cliDynamoConfig } from '../shared/adapters/aws/cli-dynamo-config.ts';
import { DynamoDeliveryLog } from '../shared/adapters/dynamodb/delivery-log.ts';
import type { DeliveryAttempt } from '../shared/ports/delivery-log.ts';

/** One line per attempt, in delivery order (event version, config, round, attempt). */
export const formatDeliveryLog = (attempts: readonly DeliveryAttempt[]): string =>
  attempts.length === 0
    ? 'no delivery attempts recorded for this task'
    : attempts
        .map((a) =>
          [
            `v${a.version}`,
            `config ${a.configId}`,
            `${a.redrive ? `round ${a.redrive + 1} ` : ''}attempt ${a.attempt}`,
            a.status,
            a.httpStatus !== undefined ? `HTTP ${a.httpStatus}` : undefined,
            a.latencyMs !== undefined ? `${Math.round(a.latencyMs)} ms` : undefined,
            a.retryInSeconds !== undefined ? `next in ${a.retryInSeconds} s` : undefined,
            a.deadLetter ? `dead letter: ${a.deadLetter}` : undefined,
            a.error ? `error: ${a.error}` : undefined,
            a.startedAt,
          ]
            .filter(Boolean)
            .join('  '),
        )
        .join('\n');

const main = async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { tenant: { type: 'string', default: process.env.DEFAULT_TENANT ?? 'default' } },
  });
  const [taskId] = positionals;
  const table = process.env.TABLE_NAME;
  if (!taskId || !table) {
    console.error('usage: TABLE_NAME=<table> npm run delivery-log -- <taskId> [--tenant T]');
    process.exit(2);
  }
  const log = new DynamoDeliveryLog(new DynamoDBClient(cliDynamoConfig(process.env)), table);
  console.log(formatDeliveryLog(await log.list(values.tenant!, taskId)));
};

if (import.meta.url === `file://${process.argv[1]}`) await main();
