/**
 * Composition root of the A2A endpoints (functions/jsonrpc.ts, functions/rest.ts):
 * one transport-neutral handler per container over the task service, the
 * store streams read, and the agent's description. Apart from shared/wiring.ts
 * so the executor, sweeper and relay bundles carry none of it.
 */

import { positiveEnv } from './adapters/aws/streamed-response.ts';
import { urlGuardFromEnv } from './adapters/http/url-guard.ts';
import { loadAgent } from './agent/load.ts';
import { pushNotificationsConfigured } from './app/a2a/card.ts';
import { A2AHandler } from './app/a2a/handler.ts';
import { STREAM_TIMING } from './app/a2a/stream.ts';
import { PushConfigService } from './app/push-configs.ts';
import { logger } from './observability/index.ts';
import { pushConfigStore, taskEngine, taskService } from './wiring.ts';

/** API Gateway REST APIs give up after 29 s: a blocking send answers with the current task before that. */
export const MAX_BLOCKING_MS = Number(process.env.BLOCKING_WAIT_MS ?? 25_000);

let handler: Promise<A2AHandler> | undefined;
export const a2aHandler = (): Promise<A2AHandler> => {
  handler ??= Promise.all([taskService(), loadAgent()]).then(
    ([tasks, agent]) =>
      new A2AHandler(tasks, {
        store: taskEngine().store,
        agent: agent.describe(),
        timing: { heartbeatMs: positiveEnv(process.env.STREAM_HEARTBEAT_MS) ?? STREAM_TIMING.heartbeatMs },
        onStreamEnd: (summary) => logger.info('stream ended', { ...summary }),
        // push configs only where deliveries are configured (the card then declares pushNotifications)
        ...(pushNotificationsConfigured()
          ? {
              pushConfigs: new PushConfigService(taskEngine(), tasks, pushConfigStore(), urlGuardFromEnv()),
            }
          : {}),
      }),
  );
  return handler;
};
