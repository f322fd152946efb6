/**
 * Composition root of the A2A endpoints (functions/jsonrpc.ts, functions/rest.ts):
 * one transport-neutral handler per container over the task service, the
 * store streams read, and the agent's description. Apart from shared/composition-roots/core.ts
 * so the executor, sweeper and relay bundles carry none of it. Its settings: shared/config/a2a.ts.
 */

import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { urlGuardFromEnv } from '../adapters/http/url-guard.ts';
import { principalOf } from '../adapters/lambda/auth-context.ts';
import { lowerCaseHeaders, publicUrlOf } from '../adapters/lambda/http.ts';
import { streamBudgetMs } from '../adapters/lambda/streamed-response.ts';
import { loadAgent } from '../agent/load.ts';
import { pushNotificationsConfigured } from '../app/a2a/card.ts';
import { A2AHandler } from '../app/a2a/handler.ts';
import { PushConfigService } from '../app/push/push-configs.ts';
import { a2aConfig } from '../config/a2a.ts';
import { appendTaskKeys, logger } from '../observability/index.ts';
import { generationsEnabled } from '../protocol/a2a/generations.ts';
import { pushConfigStore, taskEngine, taskService } from './core.ts';

let handler: Promise<A2AHandler> | undefined;
export const a2aHandler = (): Promise<A2AHandler> => {
  // the settings are checked before anything is built: a bad one fails the container's first request
  const config = a2aConfig();
  handler ??= Promise.all([taskService(), loadAgent()]).then(
    ([tasks, agent]) =>
      new A2AHandler(tasks, {
        store: taskEngine().store,
        agent: agent.describe(),
        timing: { heartbeatMs: config.streamHeartbeatMs },
        onStreamEnd: (summary) => logger.info('stream ended', { ...summary }),
        generations: generationsEnabled(),
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

/** What both A2A bindings take from an API Gateway event: the body, headers, principal and time budgets. */
export const a2aRequestOf = (event: APIGatewayProxyEvent, context: Context) => {
  const config = a2aConfig();
  return {
    body:
      event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
    headers: lowerCaseHeaders(event.headers),
    principal: principalOf(event),
    // API Gateway REST APIs give up after 29 s: a blocking send answers with the current task before that
    blockingBudgetMs: Math.max(
      0,
      Math.min(config.blockingWaitMs, context.getRemainingTimeInMillis() - 2_000),
    ),
    streamBudgetMs: streamBudgetMs(context, config.streamBudgetMs),
    publicUrl: publicUrlOf(event),
  };
};

/** The log keys of an answered A2A request, and its one log line. */
export const logA2ARequest = (
  what: string,
  event: APIGatewayProxyEvent,
  meta: { taskId?: string; contextId?: string; errorCode?: number } & Record<string, unknown>,
  response: { statusCode: number; stream?: unknown },
  fields: Record<string, unknown>,
): void => {
  appendTaskKeys({
    taskId: meta.taskId,
    contextId: meta.contextId,
    requestId: event.requestContext?.requestId,
  });
  logger.info(what, {
    ...fields,
    errorCode: meta.errorCode,
    statusCode: response.statusCode,
    ...(response.stream ? { streamed: true } : {}),
  });
};
