/**
 * The Synapse hub as reusable CDK constructs.
 *
 * - `SynapseState`: what holds data (task table, queues + DLQs, lifecycle event bus, push signing keys,
 *   the Synapse peers secret).
 * - `SynapseServices`: what runs (functions, REST API, schedule, dashboard, alarms),
 *   given the state (possibly from another stack).
 * - `SynapseHub`: both in one scope, for your own CDK app:
 *
 *   ```ts
 *   import { SynapseHub } from 'synapse-a2a-hub/cdk';
 *   new SynapseHub(stack, 'Hub', { agent: './src/my-agent.ts', alarmEmail: 'ops@example.com' });
 *   ```
 *
 * The agent module is bundled into the functions at synth time (esbuild alias
 * for the `#agent` specifier, see `infra/bundling.ts`).
 */
import { CfnOutput, type Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DELIVERY_QUEUE,
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  REGISTRY_PROBE_QUEUE,
} from '../shared/adapters/sqs/queues.ts';
import type { RemoteSkills } from '../shared/app/synapse/bridge.ts';
import {
  JSONRPC_PATH,
  JWKS_PATH,
  REST_PATH,
  type RouteDefinition,
  SYNAPSE_CALLBACK_PATH,
} from '../shared/contracts/routes.ts';
import { DEFAULT_SERVICE_NAME, METRICS_NAMESPACE } from '../shared/observability/names.ts';
import { resolveAgentModule } from './bundling.ts';
import { Api } from './constructs/api.ts';
import type { AuthOptions } from './constructs/auth.ts';
import { Data } from './constructs/data.ts';
import { Deliveries } from './constructs/deliveries.ts';
import { TaskEvents } from './constructs/events.ts';
import { FaultInjection, type FaultInjectionOptions } from './constructs/fault-injection.ts';
import { HubFunction } from './constructs/function.ts';
import { PushSigningKeys } from './constructs/keys.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { type QueueRef, Queues } from './constructs/queues.ts';
import { DEFAULT_PROBE_TICK, RegistryProbeSchedule, RegistryProbes } from './constructs/registry.ts';
import { Schedules } from './constructs/schedules.ts';
import {
  SynapsePeers,
  type SynapseRemoteSkills,
  synapseAgentIdOf,
  synapseRemoteSkillsOf,
} from './constructs/synapse.ts';
import { Workers } from './constructs/workers.ts';
import { FUNCTION_IDS, type FunctionId } from './functions.ts';

export interface SynapseStateProps {
  /** Refuse table deletion (default true). */
  deletionProtection?: boolean;
  /** Default RETAIN: the table outlives the stack. */
  tableRemovalPolicy?: RemovalPolicy;
  /** Add CloudFormation outputs (default true). */
  outputs?: boolean;
  /** Days between push signing key rotations (default 30). */
  signingKeyRotationDays?: number;
}

/** The stateful resources the services need (from this stack or another). */
export interface SynapseStateRefs {
  table: dynamodb.ITableV2;
  queues: readonly QueueRef[];
  bus: events.IEventBus;
  /** The stream relay's on-failure destination. */
  relayFailures: sqs.IQueue;
  /** The secret holding the push signing JWK set (constructs/keys.ts). */
  signingKeys: secretsmanager.ISecret;
  /** The function rotating it (alarmed on with the services' functions). */
  signingKeyRotation?: lambda.IFunction;
  /** The secret holding the Synapse peers, a JSON array (constructs/synapse.ts). */
  synapsePeers: secretsmanager.ISecret;
  /** The registry probe schedule's tick (constructs/registry.ts); default 15 minutes. */
  registryProbeTick?: Duration;
}

/** The functions of the state (the key rotation, constructs/keys.ts): none of the services'. */
const STATE_FUNCTION_IDS = ['signing-key-rotation'] as const satisfies readonly FunctionId[];

/** The functions of the services. */
export type ServiceFunctionId = Exclude<FunctionId, (typeof STATE_FUNCTION_IDS)[number]>;

/**
 * Every function created under `scope`, by id, in the order they were created: whichever construct
 * creates a function, the services alarm on it, chart it and output its log group.
 */
const serviceFunctionsOf = (scope: Construct): Record<ServiceFunctionId, HubFunction> => {
  const found = new Map<FunctionId, HubFunction>();
  for (const child of scope.node.findAll()) {
    if (!(child instanceof HubFunction)) continue;
    if (found.has(child.functionId)) throw new Error(`${scope.node.path}: two ${child.functionId} functions`);
    found.set(child.functionId, child);
  }
  const state: readonly FunctionId[] = STATE_FUNCTION_IDS;
  const missing = FUNCTION_IDS.filter((id) => !state.includes(id) && !found.has(id));
  if (missing.length > 0) throw new Error(`${scope.node.path}: no construct creates ${missing.join(', ')}`);
  return Object.fromEntries(found) as Record<ServiceFunctionId, HubFunction>;
};

export class SynapseState extends Construct implements SynapseStateRefs {
  readonly table: dynamodb.TableV2;
  readonly queues: readonly QueueRef[];
  readonly bus: events.EventBus;
  readonly relayFailures: sqs.Queue;
  readonly pushSigningKeys: PushSigningKeys;
  readonly signingKeys: secretsmanager.Secret;
  readonly signingKeyRotation: lambda.IFunction;
  readonly synapsePeers: secretsmanager.Secret;
  readonly registryProbeTick: Duration;

  constructor(scope: Construct, id: string, props: SynapseStateProps = {}) {
    super(scope, id);
    this.table = new Data(this, 'Data', {
      deletionProtection: props.deletionProtection ?? true,
      ...(props.tableRemovalPolicy ? { removalPolicy: props.tableRemovalPolicy } : {}),
    }).table;
    const queues = new Queues(this, 'Queues');
    this.queues = [...queues.byName.values()];
    this.relayFailures = queues.relayFailures;
    const probeQueue = queues.byName.get(REGISTRY_PROBE_QUEUE.name);
    if (!probeQueue) throw new Error(`no ${REGISTRY_PROBE_QUEUE.name} queue`);
    this.registryProbeTick = new RegistryProbeSchedule(this, 'RegistryProbeSchedule', {
      queue: probeQueue,
    }).tick;
    this.bus = new TaskEvents(this, 'Events').bus;
    this.pushSigningKeys = new PushSigningKeys(this, 'PushSigningKeys', {
      ...(props.signingKeyRotationDays ? { rotationDays: props.signingKeyRotationDays } : {}),
    });
    this.signingKeys = this.pushSigningKeys.secret;
    this.signingKeyRotation = this.pushSigningKeys.rotation.function;
    this.synapsePeers = new SynapsePeers(this, 'SynapsePeers').secret;
    if (props.outputs ?? true) {
      new CfnOutput(this, 'TableName', { key: 'TableName', value: this.table.tableName });
      new CfnOutput(this, 'EventBusName', { key: 'EventBusName', value: this.bus.eventBusName });
      new CfnOutput(this, 'PushSigningSecretArn', {
        key: 'PushSigningSecretArn',
        value: this.signingKeys.secretArn,
        description:
          'Secret holding the push signing JWK set (private keys; rotated every 30 days by default)',
      });
      new CfnOutput(this, 'SynapsePeersSecretArn', {
        key: 'SynapsePeersSecretArn',
        value: this.synapsePeers.secretArn,
        description: 'Secret holding the Synapse peers (JSON array; initially [], no peer): put yours there',
      });
      new CfnOutput(this, 'RelayFailuresQueueUrl', {
        key: 'RelayFailuresQueueUrl',
        value: this.relayFailures.queueUrl,
      });
      for (const { definition, queue, deadLetterQueue } of this.queues) {
        const k = definition.name.replace(/(^|-)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
        new CfnOutput(this, `${k}QueueUrl`, { key: `${k}QueueUrl`, value: queue.queueUrl });
        new CfnOutput(this, `${k}QueueName`, { key: `${k}QueueName`, value: queue.queueName });
        new CfnOutput(this, `${k}DlqUrl`, { key: `${k}DlqUrl`, value: deadLetterQueue.queueUrl });
        new CfnOutput(this, `${k}DlqName`, { key: `${k}DlqName`, value: deadLetterQueue.queueName });
      }
    }
  }
}

export interface SynapseServicesOptions {
  /**
   * Path of the agent module bundled into the functions (relative to the working
   * directory, or absolute); default the demo agent (agents/demo/index.ts).
   */
  agent?: string;
  /** The same as `agent` (its earlier name); give one of them. */
  agentModule?: string;
  /** Base URL the agent card advertises (custom domain); default the API stage URL. */
  publicUrl?: string;
  /** E-mail subscribed to a new alarm topic. */
  alarmEmail?: string;
  /** Existing SNS topic for alarm notifications (wins over alarmEmail). */
  alarmTopic?: sns.ITopic;
  /** POWERTOOLS_SERVICE_NAME, the `service` dimension of the custom metrics (default `synapse`). */
  serviceName?: string;
  /** LOG_LEVEL of the functions (default INFO). */
  logLevel?: string;
  /** Retention of the function and access log groups (default one month). */
  logRetention?: logs.RetentionDays;
  /** Stage throttling (default 100 rps, burst 200). */
  throttlingRateLimit?: number;
  throttlingBurstLimit?: number;
  /** Create the account-level API Gateway logging role (default true). */
  apiCloudWatchRole?: boolean;
  /** Further routes answered with a streamed response (those marked `stream: true` always are; see constructs/api.ts). */
  streaming?: (route: RouteDefinition) => boolean;
  /**
   * This hub's Synapse agent id, SYNAPSE_AGENT_ID of the synapse function and the delivery worker: the
   * sender of its Synapse messages and callbacks (default `synapse-hub`).
   */
  synapseAgentId?: string;
  /**
   * The skills carried out by a Synapse peer: skill id → the peer's id, or `{peer, type}` (`type` the
   * peer's task type, default the skill id). SYNAPSE_REMOTE_SKILLS of jsonrpc, rest and synapse, whose task
   * service delegates an A2A task of such a skill to that peer (shared/app/synapse/bridge.ts). Default
   * none; checked at synth (a malformed value throws). The peer must be in the peers secret.
   */
  synapseRemoteSkills?: SynapseRemoteSkills;
  /**
   * Authentication at the API edge (constructs/auth.ts, docs/security.md): the OIDC issuer whose bearer
   * JWTs the authorizer accepts besides API keys (default none: API keys only), its verdict cache
   * (default 300 s), each tenant's throttle (default 50 rps, burst 100) and quota (default none).
   */
  auth?: AuthOptions;
  /** Extra environment for every function (e.g. DEFAULT_TENANT). */
  environment?: Record<string, string>;
  /**
   * An AWS FIS experiment template injecting Lambda invocation errors and delay into the hub's functions
   * (constructs/fault-injection.ts, docs/fault-injection.md). Default none: no FIS resource, no extension
   * layer, no FIS environment variable. `layerArn`, the AWS FIS extension layer for the region (arm64),
   * is required.
   */
  faultInjection?: FaultInjectionOptions;
  /** Add CloudFormation outputs (default true). */
  outputs?: boolean;
}

/**
 * The functions the fault injection experiment targets: every service function but those behind a
 * streamed route (AWS: the FIS Lambda extension cannot be used with response streaming, and suppresses
 * it even when no fault is applied) and the authorizer (its errors are refusals, not failures, and every
 * request, streamed ones included, passes through it).
 */
export const faultInjectionTargets = (
  functions: Readonly<Record<ServiceFunctionId, HubFunction>>,
  streamed: ReadonlySet<string>,
): Record<string, HubFunction> =>
  Object.fromEntries(
    Object.entries(functions).filter(([name]) => name !== 'authorizer' && !streamed.has(name)),
  );

export interface SynapseServicesProps extends SynapseServicesOptions {
  state: SynapseStateRefs;
}

export class SynapseServices extends Construct {
  readonly api: Api;
  readonly workers: Workers;
  /** The push notification delivery worker (docs/deliveries.md). */
  readonly deliveries: Deliveries;
  readonly registryProbes: RegistryProbes;
  readonly schedules: Schedules;
  readonly monitoring: Monitoring;
  /** The fault injection experiment, when `faultInjection` is given. */
  readonly faultInjection?: FaultInjection;
  /** Every function of the services, by id, whichever construct created it. */
  readonly functions: Record<ServiceFunctionId, HubFunction>;
  /**
   * The push signing key secret: `grantPushSigningKeys(signingKeys, fn)` (constructs/keys.ts) lets a
   * function that signs push notifications read it.
   */
  readonly signingKeys: secretsmanager.ISecret;
  /** The Synapse peers secret (read by the synapse function and the delivery worker, constructs/synapse.ts). */
  readonly synapsePeers: secretsmanager.ISecret;
  /** This hub's Synapse agent id. */
  readonly synapseAgentId: string;
  /** The skills carried out by a Synapse peer, as the functions will read them (empty: none). */
  readonly synapseRemoteSkills: RemoteSkills;
  /** Absolute path of the bundled agent module. */
  readonly agentModule: string;

  constructor(scope: Construct, id: string, props: SynapseServicesProps) {
    super(scope, id);
    if (props.agent !== undefined && props.agentModule !== undefined)
      throw new Error(`${this.node.path}: give the agent module as \`agent\` or \`agentModule\`, not both`);
    this.agentModule = resolveAgentModule(props.agent ?? props.agentModule);
    const executorQueue = props.state.queues.find((q) => q.definition.name === EXECUTOR_QUEUE.name);
    if (!executorQueue) throw new Error(`state has no ${EXECUTOR_QUEUE.name} queue`);
    const heartbeatQueue = props.state.queues.find((q) => q.definition.name === HEARTBEAT_QUEUE.name);
    if (!heartbeatQueue) throw new Error(`state has no ${HEARTBEAT_QUEUE.name} queue`);
    const deliveryQueue = props.state.queues.find((q) => q.definition.name === DELIVERY_QUEUE.name);
    if (!deliveryQueue) throw new Error(`state has no ${DELIVERY_QUEUE.name} queue`);
    const probeQueue = props.state.queues.find((q) => q.definition.name === REGISTRY_PROBE_QUEUE.name);
    if (!probeQueue) throw new Error(`state has no ${REGISTRY_PROBE_QUEUE.name} queue`);
    const serviceName = props.serviceName ?? DEFAULT_SERVICE_NAME;
    this.signingKeys = props.state.signingKeys;
    this.synapsePeers = props.state.synapsePeers;
    this.synapseAgentId = synapseAgentIdOf(props.synapseAgentId);
    this.synapseRemoteSkills = synapseRemoteSkillsOf(props.synapseRemoteSkills).skills;

    // AGENT_MODULE is deliberately absent: the agent is bundled (`#agent`), see infra/bundling.ts.
    const environment: Record<string, string> = {
      ...props.environment,
      TABLE_NAME: props.state.table.tableName,
      EVENT_BUS_NAME: props.state.bus.eventBusName,
      POWERTOOLS_SERVICE_NAME: serviceName,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      LOG_LEVEL: props.logLevel ?? 'INFO',
    };
    for (const { definition, queue } of props.state.queues) environment[definition.urlEnv] = queue.queueUrl;

    this.api = new Api(this, 'Api', {
      agentModule: this.agentModule,
      environment,
      table: props.state.table,
      signingKeys: props.state.signingKeys,
      synapsePeers: props.state.synapsePeers,
      synapseAgentId: this.synapseAgentId,
      ...(props.synapseRemoteSkills ? { synapseRemoteSkills: props.synapseRemoteSkills } : {}),
      ...(props.publicUrl ? { publicUrl: props.publicUrl } : {}),
      ...(props.throttlingRateLimit !== undefined ? { throttlingRateLimit: props.throttlingRateLimit } : {}),
      ...(props.throttlingBurstLimit !== undefined
        ? { throttlingBurstLimit: props.throttlingBurstLimit }
        : {}),
      ...(props.apiCloudWatchRole !== undefined ? { cloudWatchRole: props.apiCloudWatchRole } : {}),
      ...(props.streaming ? { streaming: props.streaming } : {}),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      ...(props.auth ? { auth: props.auth } : {}),
    });
    this.workers = new Workers(this, 'Workers', {
      agentModule: this.agentModule,
      environment: { ...environment, PUBLIC_URL: this.api.publicUrl },
      table: props.state.table,
      executorQueue,
      heartbeatQueue,
      bus: props.state.bus,
      relayFailures: props.state.relayFailures,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.deliveries = new Deliveries(this, 'Deliveries', {
      agentModule: this.agentModule,
      // PUBLIC_URL: the push JWT's issuer, and `${PUBLIC_URL}/synapse/callback` the callbacks' sender endpoint
      environment: { ...environment, PUBLIC_URL: this.api.publicUrl },
      table: props.state.table,
      queue: deliveryQueue,
      signingKeys: props.state.signingKeys,
      synapsePeers: props.state.synapsePeers,
      synapseAgentId: this.synapseAgentId,
      relay: this.workers.relay.function,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.schedules = new Schedules(this, 'Schedules', { sweeper: this.workers.sweeper.function });
    this.registryProbes = new RegistryProbes(this, 'RegistryProbes', {
      agentModule: this.agentModule,
      environment: { ...environment, PUBLIC_URL: this.api.publicUrl },
      table: props.state.table,
      queue: probeQueue,
      tick: props.state.registryProbeTick ?? DEFAULT_PROBE_TICK,
      publishOwnCardAfter: [this.api],
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.functions = serviceFunctionsOf(this);
    this.monitoring = new Monitoring(this, 'Monitoring', {
      restApi: this.api.restApi,
      functions: {
        ...Object.fromEntries(Object.entries(this.functions).map(([k, f]) => [k, f.function])),
        ...(props.state.signingKeyRotation ? { 'signing-key-rotation': props.state.signingKeyRotation } : {}),
      },
      // its thrown `Unauthorized` (a 401) is a Lambda error: alarmed through the API's 5xx instead
      errorsAreRefusals: ['authorizer'],
      table: props.state.table,
      queues: props.state.queues,
      relayFailures: props.state.relayFailures,
      relay: this.workers.relay.function,
      deliveries: deliveryQueue,
      serviceName,
      ...(props.alarmTopic ? { alarmTopic: props.alarmTopic } : {}),
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
    if (props.faultInjection) {
      this.faultInjection = new FaultInjection(this, 'FaultInjection', {
        ...props.faultInjection,
        functions: faultInjectionTargets(this.functions, this.api.streamedFunctions),
        // not the functions' Errors alarms: the injected errors raise them by design
        stopAlarms: [this.monitoring.apiServerErrors, ...this.monitoring.lostWork],
      });
    }

    if (props.outputs ?? true) {
      new CfnOutput(this, 'ApiUrl', {
        key: 'ApiUrl',
        value: this.api.urlFor('/'),
        description: 'Base URL (with the trailing slash @a2a-js/sdk needs to keep the stage path)',
      });
      new CfnOutput(this, 'JsonRpcUrl', {
        key: 'JsonRpcUrl',
        value: this.api.urlFor(JSONRPC_PATH),
        description: 'A2A JSON-RPC endpoint',
      });
      new CfnOutput(this, 'RestUrl', {
        key: 'RestUrl',
        value: this.api.urlFor(REST_PATH),
        description: 'A2A HTTP+JSON (REST) base URL: its routes (/message:send, /tasks/{id}…) are below it',
      });
      new CfnOutput(this, 'AgentCardUrl', {
        key: 'AgentCardUrl',
        value: this.api.urlFor('/.well-known/agent-card.json'),
        description: 'Agent card',
      });
      new CfnOutput(this, 'JwksUrl', {
        key: 'JwksUrl',
        value: this.api.urlFor(JWKS_PATH),
        description: 'JWKS that verifies the push notification JWTs (docs/push-signing.md)',
      });
      new CfnOutput(this, 'SynapseCallbackUrl', {
        key: 'SynapseCallbackUrl',
        value: this.api.urlFor(SYNAPSE_CALLBACK_PATH),
        description: 'Synapse P2P endpoint: where peers send their p2p messages (docs/synapse-protocol.md)',
      });
      // what the admin CLI needs to put tenants' API keys in the usage plan and flush the authorizer
      // cache (scripts/auth.ts: SYNAPSE_REST_API_ID, SYNAPSE_STAGE_NAME, SYNAPSE_USAGE_PLAN_ID)
      new CfnOutput(this, 'SynapseRestApiId', {
        key: 'SynapseRestApiId',
        value: this.api.restApi.restApiId,
        description: 'REST API id (SYNAPSE_REST_API_ID of npm run auth)',
      });
      new CfnOutput(this, 'SynapseStageName', {
        key: 'SynapseStageName',
        value: this.api.restApi.deploymentStage.stageName,
        description: 'API stage (SYNAPSE_STAGE_NAME of npm run auth)',
      });
      new CfnOutput(this, 'SynapseUsagePlanId', {
        key: 'SynapseUsagePlanId',
        value: this.api.auth.usagePlan.usagePlanId,
        description: "The tenants' usage plan: npm run auth -- tenants add puts each tenant's API key in it",
      });
      if (this.faultInjection) {
        new CfnOutput(this, 'FaultInjectionTemplateId', {
          key: 'FaultInjectionTemplateId',
          value: this.faultInjection.template.attrId,
          description:
            'AWS FIS experiment template: aws fis start-experiment --experiment-template-id <this>',
        });
      }
      new CfnOutput(this, 'DashboardName', {
        key: 'DashboardName',
        value: this.monitoring.dashboard.dashboardName,
      });
      for (const [name, fn] of Object.entries(this.functions)) {
        const k = name.replace(/(^|-)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
        new CfnOutput(this, `${k}LogGroup`, { key: `${k}LogGroup`, value: fn.logGroup.logGroupName });
      }
    }
  }
}

export interface SynapseHubProps extends SynapseServicesOptions, Omit<SynapseStateProps, 'outputs'> {}

/** The whole hub (state and services) in one scope. */
export class SynapseHub extends Construct {
  readonly state: SynapseState;
  readonly services: SynapseServices;

  constructor(scope: Construct, id: string, props: SynapseHubProps = {}) {
    super(scope, id);
    const { deletionProtection, tableRemovalPolicy, signingKeyRotationDays, ...services } = props;
    this.state = new SynapseState(this, 'State', {
      ...(deletionProtection !== undefined ? { deletionProtection } : {}),
      ...(tableRemovalPolicy ? { tableRemovalPolicy } : {}),
      ...(signingKeyRotationDays ? { signingKeyRotationDays } : {}),
      ...(props.outputs !== undefined ? { outputs: props.outputs } : {}),
    });
    this.services = new SynapseServices(this, 'Services', { ...services, state: this.state });
  }
}
