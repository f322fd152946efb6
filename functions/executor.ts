/**
 * Executor: SQS event source. Each record asks to run (or resume) one task,
 * or to check on the lease of a claimed one; the claim inside TaskExecutor
 * makes a redelivered record harmless. A lease still running is looked at
 * again later (a new delayed message). Records that throw are reported as
 * partial batch failures and come back after a backoff, to the dead-letter
 * queue after the last receive; a record that is not a run goes there at once
 * (adapters/lambda/sqs-batch.ts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  backoffOn,
  processSqsBatch,
  receiveCount,
  type SqsConsumer,
} from '../shared/adapters/lambda/sqs-batch.ts';
import { EXECUTOR_QUEUE } from '../shared/adapters/sqs/queues.ts';
import { MAX_DELAY_SECONDS } from '../shared/app/delivery/relay.ts';
import {
  executorQueueFromEnv,
  executorQueueUrl,
  poisonQueueAt,
  sqsClient,
  taskExecutor,
} from '../shared/composition-roots/core.ts';
import { EXECUTOR_DLQ_URL } from '../shared/config/deployment.ts';
import { countMetric, logger, MetricName, withObservability } from '../shared/observability/index.ts';
import * as z from '../shared/validation/zod.ts';

const runSchema = z.object({
  tenant: z.string().check(z.minLength(1)),
  taskId: z.string().check(z.minLength(1)),
  version: z.number().check(z.int(), z.nonnegative()),
  watch: z.optional(z.literal('lease')),
});

const consumer: SqsConsumer<typeof runSchema> = {
  schema: runSchema,
  what: 'executor message',
  deadLetters: () => poisonQueueAt(EXECUTOR_DLQ_URL),
  maxReceiveCount: EXECUTOR_QUEUE.maxReceiveCount,
  // come back soon rather than after the whole visibility timeout
  comeBack: backoffOn(sqsClient, executorQueueUrl),
  keysOf: (run) => ({ taskId: run.taskId, tenant: run.tenant }),
};

export const executorHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const executor = await taskExecutor();
  return processSqsBatch(event, consumer, async (run, record) => {
    const keys = { taskId: run.taskId, tenant: run.tenant, messageId: record.messageId };
    if (receiveCount(record) > 1) countMetric(MetricName.DeliveriesRetried);
    const outcome = await executor.run(run);
    if (outcome.result === 'recheck') {
      await executorQueueFromEnv().enqueue(
        [run],
        Math.min(MAX_DELAY_SECONDS, Math.max(1, outcome.recheckInSeconds ?? MAX_DELAY_SECONDS)),
      );
    }
    logger.info('executor run finished', { ...keys, result: outcome.result });
  });
};

export const handler = withObservability(executorHandler, { functionName: 'executor' });
