/**
 * Heartbeat: SQS event source on the heartbeat queue. Each record is the
 * watch of one running task (shared/app/heartbeat/heartbeat.ts): it stops, comes back
 * later (a new delayed message), or resolves a lost run (run again or
 * failed, one conditional write). A redelivered record is harmless: the
 * watch acts on the task as it is now. Records that throw are reported as
 * partial batch failures and come back after a backoff, to the dead-letter
 * queue after the last receive; a record that is not a watch goes there at
 * once (adapters/lambda/sqs-batch.ts).
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { backoffOn, processSqsBatch, type SqsConsumer } from '../shared/adapters/lambda/sqs-batch.ts';
import { HEARTBEAT_QUEUE } from '../shared/adapters/sqs/queues.ts';
import {
  heartbeatQueueUrl,
  heartbeatWatcher,
  poisonQueueAt,
  sqsClient,
} from '../shared/composition-roots/core.ts';
import { HEARTBEAT_DLQ_URL } from '../shared/config/deployment.ts';
import { countMetric, logger, MetricName, withObservability } from '../shared/observability/index.ts';
import * as z from '../shared/validation/zod.ts';

const watchSchema = z.object({
  tenant: z.string().check(z.minLength(1)),
  taskId: z.string().check(z.minLength(1)),
  version: z.number().check(z.int(), z.nonnegative()),
  claim: z.optional(z.string().check(z.minLength(1))),
});

const consumer: SqsConsumer<typeof watchSchema> = {
  schema: watchSchema,
  what: 'heartbeat watch',
  deadLetters: () => poisonQueueAt(HEARTBEAT_DLQ_URL),
  maxReceiveCount: HEARTBEAT_QUEUE.maxReceiveCount,
  comeBack: backoffOn(sqsClient, heartbeatQueueUrl),
  keysOf: (watch) => ({ taskId: watch.taskId, tenant: watch.tenant }),
};

export const heartbeatHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const watcher = await heartbeatWatcher();
  return processSqsBatch(event, consumer, async (watch, record) => {
    const keys = { taskId: watch.taskId, tenant: watch.tenant, messageId: record.messageId };
    const outcome = await watcher.check(watch);
    if (outcome.result === 'rerun' || outcome.result === 'failed') {
      countMetric(MetricName.HeartbeatsLost);
      logger.warn('heartbeat lost', { ...keys, result: outcome.result });
    } else logger.debug('heartbeat checked', { ...keys, ...outcome });
  });
};

export const handler = withObservability(heartbeatHandler, { functionName: 'heartbeat' });
