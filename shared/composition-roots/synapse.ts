/**
 * Composition root of the Synapse endpoint functions/synapse.ts serves (docs/synapse-protocol.md), its
 * peers and identity from shared/composition-roots/synapse-peers.ts. From the environment
 * (shared/config/synapse.ts):
 * - SYNAPSE_PEERS (the peers as JSON, shared/protocol/synapse/peers.ts), or on AWS
 *   SYNAPSE_PEERS_SECRET_ARN (the same JSON in a Secrets Manager secret, read again every
 *   PEERS_CACHE_MS so a rotation reaches warm containers);
 * - SYNAPSE_AGENT_ID: this hub's agent id (default `synapse-hub`); its endpoint is
 *   `${PUBLIC_URL}/synapse/callback`;
 * - SYNAPSE_SIGNATURE_WINDOW_SECONDS: how far a signature's timestamp may be from now (300).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DynamoSeenSignatures } from '../adapters/dynamodb/seen-signatures.ts';
import { urlGuardFromEnv } from '../adapters/http/url-guard.ts';
import { publicUrlOf } from '../adapters/lambda/http.ts';
import { loadAgent } from '../agent/load.ts';
import { pushNotificationsConfigured } from '../app/a2a/card.ts';
import { SynapseEndpoint } from '../app/synapse/inbound.ts';
import { SynapseRequester } from '../app/synapse/requester.ts';
import { SynapseTasksApi } from '../app/synapse/tasks-api.ts';
import type { TaskService } from '../app/tasks/task-service.ts';
import { TABLE_NAME } from '../config/deployment.ts';
import { readSetting, requireSetting } from '../config/settings.ts';
import { SYNAPSE_SIGNATURE_WINDOW_SECONDS } from '../config/synapse.ts';
import {
  dynamoClient,
  pushConfigStore,
  skillResolverFor,
  taskEngine,
  taskServiceFor,
  taskStore,
} from './core.ts';
import { synapsePeers, synapseSelf } from './synapse-peers.ts';

/** The endpoint for a request arriving at `publicUrl` (the peers as configured now). */
let service: Promise<TaskService> | undefined;
/**
 * The task service of the Synapse routes: the agent's deadlines, push configs (a requester is one),
 * and no inline runner (nothing here runs the agent: the executor does, from the stream relay).
 */
const synapseTaskService = (): Promise<TaskService> => {
  service ??= loadAgent().then((agent) => taskServiceFor(agent));
  return service;
};

export const synapseEndpoint = async (event: APIGatewayProxyEvent): Promise<SynapseEndpoint> => {
  const [tasks, agent, peers] = await Promise.all([synapseTaskService(), loadAgent(), synapsePeers()]);
  return new SynapseEndpoint(tasks, {
    agent: agent.describe(),
    peers,
    seen: new DynamoSeenSignatures(dynamoClient(), requireSetting(TABLE_NAME)),
    self: synapseSelf(publicUrlOf(event)),
    urls: urlGuardFromEnv(),
    callbacksEnabled: pushNotificationsConfigured(),
    requester: synapseRequester(),
    windowSeconds: readSetting(SYNAPSE_SIGNATURE_WINDOW_SECONDS),
  });
};

/** The requester role: tasks this hub delegates (their peers' reports come in through the endpoint). */
export const synapseRequester = (): SynapseRequester =>
  new SynapseRequester(taskEngine(), pushConfigStore(), () => synapsePeers(), taskStore());

/** The requester's HTTP API under /synapse/tasks. */
export const synapseTasksApi = async (): Promise<SynapseTasksApi> => {
  const resolver = skillResolverFor(await loadAgent());
  return new SynapseTasksApi(await synapseTaskService(), synapseRequester(), (caller, skill) =>
    resolver.resolve(caller, skill),
  );
};
