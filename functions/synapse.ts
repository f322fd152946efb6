/**
 * Synapse P2P endpoint: `POST /synapse/callback` hands the raw body and headers to the transport-neutral
 * SynapseEndpoint (shared/app/synapse/inbound.ts), which answers p2p:ack, p2p:nack (at its error code's
 * HTTP status, docs/synapse-protocol.md#error-codes), p2p:task_ack or p2p:capability_response;
 * `/synapse/tasks…` is the requester's API (delegate a task to a peer, read, answer, cancel it). The JSON
 * Schemas are served by functions/agent-card.ts.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalOf } from '../shared/adapters/lambda/auth-context.ts';
import { lowerCaseHeaders } from '../shared/adapters/lambda/http.ts';
import { synapseEndpoint, synapseTasksApi } from '../shared/composition-roots/synapse.ts';
import { SYNAPSE_TASKS_PATH } from '../shared/contracts/routes.ts';
import { appendTaskKeys, logger, withObservability } from '../shared/observability/index.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** `/synapse/tasks…`: the requester's API (shared/app/synapse/tasks-api.ts). */
const tasksRequest = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const path = event.path ?? '';
  const at = path.indexOf(SYNAPSE_TASKS_PATH);
  const below = at >= 0 ? path.slice(at + SYNAPSE_TASKS_PATH.length) : '';
  const body =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const answer = await (await synapseTasksApi()).handle({
    method: event.httpMethod,
    path: below,
    body: body ?? undefined,
    principal: principalOf(event),
  });
  appendTaskKeys({ taskId: answer.meta.taskId, requestId: event.requestContext?.requestId });
  logger.info('synapse tasks request', { ...answer.meta, statusCode: answer.statusCode });
  return {
    statusCode: answer.statusCode,
    headers: { ...JSON_HEADERS, ...answer.headers },
    body: JSON.stringify(answer.body),
  };
};

export const synapseHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  if ((event.path ?? '').includes(SYNAPSE_TASKS_PATH)) return tasksRequest(event);
  const body =
    event.isBase64Encoded && event.body
      ? Buffer.from(event.body, 'base64').toString('utf8')
      : (event.body ?? undefined);
  const endpoint = await synapseEndpoint(event);
  const answer = await endpoint.handle({ body, headers: lowerCaseHeaders(event.headers) });
  appendTaskKeys({ taskId: answer.meta.taskId, requestId: event.requestContext?.requestId });
  logger.info('synapse message', { ...answer.meta, statusCode: answer.statusCode });
  // agent_not_ready and rate_limited say "try again": when (docs/reliability.md)
  const retry: Record<string, string> =
    answer.statusCode === 503 || answer.statusCode === 429 ? { 'Retry-After': '1' } : {};
  return {
    statusCode: answer.statusCode,
    headers: { ...JSON_HEADERS, ...retry },
    body: JSON.stringify(answer.body),
  };
};

export const handler = withObservability(synapseHandler, { functionName: 'synapse' });
