/**
 * Executor: SQS event source. Each record asks to run (or resume) one task;
 * the claim inside TaskExecutor makes a redelivered record harmless. Records
 * that throw are reported as partial batch failures and come back later.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { EXECUTOR_QUEUE } from '../shared/adapters/sqs/queues.ts';
import { retryLater } from '../shared/adapters/sqs/retry.ts';
import { loadAgent } from '../shared/agent/load.ts';
import { TaskExecutor } from '../shared/app/executor.ts';
import { countMetric, logger, MetricName, withObservability } from '../shared/observability/index.ts';
import { executorQueueUrl, sqsClient, taskEngine } from '../shared/wiring.ts';

const runSchema = z.object({
  tenant: z.string().min(1),
  taskId: z.string().min(1),
  version: z.number().int().nonnegative(),
});

const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

const receiveCount = (record: SQSRecord): number => Number(record.attributes.ApproximateReceiveCount ?? 1);

export const executorHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const executor = new TaskExecutor(taskEngine(), await loadAgent());
  const results = await Promise.allSettled(
    event.Records.map(async (record) => {
      const parsed = runSchema.safeParse(parseJson(record.body));
      // a malformed message will never succeed: drop it (log) rather than loop it into the DLQ
      if (!parsed.success) {
        logger.error('dropping malformed executor message', { body: record.body.slice(0, 1000) });
        return;
      }
      const keys = { taskId: parsed.data.taskId, tenant: parsed.data.tenant, messageId: record.messageId };
      if (receiveCount(record) > 1) countMetric(MetricName.DeliveriesRetried);
      try {
        const result = await executor.run(parsed.data);
        logger.info('executor run finished', { ...keys, result });
      } catch (e) {
        const final = receiveCount(record) >= EXECUTOR_QUEUE.maxReceiveCount;
        if (final) countMetric(MetricName.DlqArrivals);
        // come back soon rather than after the whole visibility timeout (best effort)
        const retryInSeconds = final
          ? undefined
          : await retryLater(
              sqsClient(),
              executorQueueUrl(),
              record.receiptHandle,
              receiveCount(record),
            ).catch(() => undefined);
        logger.error('executor run failed', {
          ...keys,
          receiveCount: receiveCount(record),
          final,
          retryInSeconds,
          error: e as Error,
        });
        throw e;
      }
    }),
  );
  return {
    batchItemFailures: results.flatMap((r, i) =>
      r.status === 'rejected' ? [{ itemIdentifier: event.Records[i]!.messageId }] : [],
    ),
  };
};

export const handler = withObservability(executorHandler, { functionName: 'executor' });
