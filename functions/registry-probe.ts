/**
 * The registry's health probe (docs/registry.md#health): SQS event source on the probe queue. A record is
 * either the schedule's tick (`{"probeTick": "<time>"}`, put there by the EventBridge rule), which queues
 * the probes due in it, each delayed to its own offset; or one probe (`{"tenant", "id"}`), which probes
 * that agent and keeps its report. A redelivered record is harmless: a tick queues a second probe of the
 * same agents (their reports are replaced), a probe probes again. Records that throw are reported as
 * partial batch failures.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord } from '../shared/adapters/lambda/sqs-batch.ts';
import { registryProber } from '../shared/composition-roots/registry-probe.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import * as z from '../shared/validation/zod.ts';

const messageSchema = z.union([
  z.object({ probeTick: z.string().check(z.minLength(1)) }),
  z.object({ tenant: z.string().check(z.minLength(1)), id: z.string().check(z.minLength(1)) }),
]);

export const registryProbeHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const prober = registryProber();
  return eachRecord(event, messageSchema, 'registry probe message', async (message, record) => {
    if ('probeTick' in message) {
      const time = new Date(message.probeTick);
      if (Number.isNaN(time.getTime())) {
        logger.error('dropping a probe tick without a time', { body: record.body.slice(0, 200) });
        return;
      }
      const queued = await prober.tick(time);
      logger.info('registry probe tick', { time: message.probeTick, queued });
      return;
    }
    const report = await prober.probe(message);
    logger.info('registry probe', {
      tenant: message.tenant,
      recordId: message.id,
      status: report?.status ?? 'not live',
    });
  });
};

export const handler = withObservability(registryProbeHandler, { functionName: 'registry-probe' });
