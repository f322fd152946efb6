/**
 * The registry's health probe (docs/registry.md#health): SQS event source on the probe queue. A record is
 * either the schedule's tick (`{"probeTick": "<time>"}`, put there by the EventBridge rule), which queues
 * the probes due in it, each delayed to its own offset; or one probe (`{"tenant", "id"}`), which probes
 * that agent and keeps its report. A redelivered record is harmless: a tick queues a second probe of the
 * same agents (their reports are replaced), a probe probes again. Records that throw are reported as
 * partial batch failures, and go to the dead-letter queue with why after their last receive; a record
 * that is neither goes there at once (adapters/lambda/sqs-batch.ts).
 *
 * Invoked with no records (the deployment's trigger, infra/constructs/registry.ts, and `npm start`), it
 * publishes the hub's own card to its registry, approved (docs/registry.md#the-hubs-own-card): fetched
 * from PUBLIC_URL's well-known URL, a URL the deployment names, not a caller.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processSqsBatch, type SqsConsumer } from '../shared/adapters/lambda/sqs-batch.ts';
import { REGISTRY_PROBE_QUEUE } from '../shared/adapters/sqs/queues.ts';
import {
  probePoisonQueue,
  registryProber,
  registryService,
} from '../shared/composition-roots/registry-probe.ts';
import { DEFAULT_TENANT } from '../shared/config/auth.ts';
import { PUBLIC_URL } from '../shared/config/deployment.ts';
import { readSetting, requireSetting } from '../shared/config/settings.ts';
import { AGENT_CARD_PATH } from '../shared/contracts/routes.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import * as z from '../shared/validation/zod.ts';

const messageSchema = z.union([
  // a tick without a time is poison too: it could never be carried out
  z.object({
    probeTick: z.string().check(z.refine((time) => !Number.isNaN(Date.parse(time)), 'not a time')),
  }),
  z.object({ tenant: z.string().check(z.minLength(1)), id: z.string().check(z.minLength(1)) }),
]);

/** The outcome of publishing the hub's own card; a failure is logged, never thrown (it must not fail a deployment). */
const publishOwnCard = async (): Promise<{ published: boolean; recordId?: string; version?: number }> => {
  const url = `${requireSetting(PUBLIC_URL).replace(/\/+$/, '')}${AGENT_CARD_PATH}`;
  try {
    const answer = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    const record = await registryService().publishOwn(readSetting(DEFAULT_TENANT), url, await answer.json());
    logger.info("published the hub's own card", { recordId: record.id, version: record.liveVersion });
    return {
      published: true,
      recordId: record.id,
      ...(record.liveVersion ? { version: record.liveVersion } : {}),
    };
  } catch (e) {
    logger.error("the hub's own card was not published to its registry", { url, error: e as Error });
    return { published: false };
  }
};

const consumer: SqsConsumer<typeof messageSchema> = {
  schema: messageSchema,
  what: 'registry probe message',
  deadLetters: probePoisonQueue,
  maxReceiveCount: REGISTRY_PROBE_QUEUE.maxReceiveCount,
};

export const registryProbeHandler = async (
  event: Partial<SQSEvent>,
): Promise<SQSBatchResponse | Awaited<ReturnType<typeof publishOwnCard>>> => {
  if (!Array.isArray(event.Records)) return publishOwnCard();
  const prober = registryProber();
  return processSqsBatch(event as SQSEvent, consumer, async (message) => {
    if ('probeTick' in message) {
      const queued = await prober.tick(new Date(message.probeTick));
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
