/**
 * Executor: SQS event source. Each record asks to run (or resume) one task;
 * the claim inside TaskExecutor makes a redelivered record harmless. Records
 * that throw are reported as partial batch failures and come back later.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { loadAgent } from '../shared/agent/load.ts';
import { TaskExecutor } from '../shared/app/executor.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import { taskEngine } from '../shared/wiring.ts';

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
      await executor.run(parsed.data);
    }),
  );
  return {
    batchItemFailures: results.flatMap((r, i) =>
      r.status === 'rejected' ? [{ itemIdentifier: event.Records[i]!.messageId }] : [],
    ),
  };
};

export const handler = withObservability(executorHandler, { functionName: 'executor' });
