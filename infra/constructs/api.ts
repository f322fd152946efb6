/**
 * The HTTP edge: an API Gateway REST API whose resources and methods come
 * from `ROUTES`, each a Lambda proxy integration to the function serving it
 * (agent-card, jsonrpc, rest, jwks, synapse). Stage `prod` with JSON access logs, error-level
 * execution logs, X-Ray tracing and default throttling (the stage's, for every route).
 *
 * Response streaming (SSE, docs/streaming.md): a route marked `stream: true` in
 * ROUTES (the JSON-RPC and REST routes), or one for which the `streaming(route)` prop is
 * true, gets `responseTransferMode: STREAM` (API Gateway invokes the function
 * through `.../response-streaming-invocations`) and the 5-minute integration
 * timeout of STREAMING, and its function the same timeout; its handler must be
 * a response-streaming one (`awslambda.streamifyResponse`, middy:
 * `streamifyResponse: true`), as functions/jsonrpc.ts and rest.ts are. A route marked
 * `stream: true` always streams (its function answers only that way).
 *
 * Authentication (constructs/auth.ts, docs/security.md): every route not marked `public` in ROUTES is
 * behind the Lambda authorizer (CUSTOM, on the Authorization header) and requires the tenant's API key,
 * which the authorizer names (key source AUTHORIZER), so the tenants' usage plan throttles each tenant;
 * the public routes (agent card, JWKS, Synapse schemas, Synapse callback) have neither. The stage's own
 * throttling applies to all routes.
 */
import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import {
  type FunctionName,
  ROUTES,
  type RouteDefinition,
  STREAMING,
  SYNAPSE_CALLBACK_PATH,
} from '../../shared/contracts/routes.ts';
import { inspectorAssetsCommands } from '../inspector-assets.ts';
import { grantTableRead, grantTableReadWrite } from '../permissions.ts';

/**
 * ListTasks (by owner, by context); never the deadline index. History is read from the table itself. The
 * registry's feed (byRegistry): a skill neither local nor static is looked up in the registry's catalog
 * (shared/app/synapse/remote-skills.ts).
 */
export const JSONRPC_INDEXES = ['byContext', 'byOwner', 'byRegistry'] as const;
/** The indexes the registry function queries: its catalog feed and a tenant's records (docs/registry.md). */
export const REGISTRY_INDEXES = ['byRegistry'] as const;

import {
  type AuthOptions,
  authJwtEnvironment,
  authSettingsOf,
  cardAuthEnvironment,
  EdgeAuth,
} from './auth.ts';
import { HubFunction } from './function.ts';
import { grantPushSigningKeys } from './keys.ts';
import { acknowledge } from './nag.ts';
import {
  DEFAULT_SYNAPSE_AGENT_ID,
  grantSynapsePeers,
  SYNAPSE_AGENT_ID_ENV,
  SYNAPSE_INDEXES,
  SYNAPSE_REMOTE_SKILLS_ENV,
  type SynapseRemoteSkills,
  synapseAgentIdOf,
  synapseRemoteSkillsOf,
} from './synapse.ts';

export const STAGE_NAME = 'prod';

/** Why a route marked `public` has no authorizer (cdk-nag APIG4 and COG4 on its method). */
export const publicRouteReason = (route: RouteDefinition): string =>
  route.path === SYNAPSE_CALLBACK_PATH
    ? 'Public by design: the Synapse callback is where peers post their p2p messages, each authenticated by ' +
      'its HMAC signature with the shared secret of its peer (docs/synapse-protocol.md), not by a hub credential.'
    : route.function === 'inspector'
      ? 'Public by design: the inspector page and its bundled script and styles (docs/inspector.md) hold no data; ' +
        'the page reads everything through the authorized APIs with the credentials its user enters.'
      : 'Public by design (marked public in shared/contracts/routes.ts): a discovery document (the agent card, the JWKS ' +
        'of the push JWTs, the Synapse JSON Schemas) that anyone may fetch and that holds no tenant data.';

/** Why an authenticated method does not use a Cognito user pool authorizer (cdk-nag COG4). */
export const CUSTOM_AUTHORIZER_REASON =
  'OIDC JWT / API keys through a Lambda authorizer, not a Cognito user pool (functions/authorizer.ts, ' +
  'docs/security.md): the method is authorized (CUSTOM) and requires the tenant API key the authorizer names.';

export interface ApiProps {
  agentModule: string;
  /** Environment shared by all functions; PUBLIC_URL is added here. */
  environment: Record<string, string>;
  table: ITableV2;
  /** The push signing key secret the JWKS function publishes the public keys of (constructs/keys.ts). */
  signingKeys: secretsmanager.ISecret;
  /** The Synapse peers secret the synapse function verifies signatures with (constructs/synapse.ts). */
  synapsePeers: secretsmanager.ISecret;
  /** This hub's Synapse agent id (SYNAPSE_AGENT_ID; default `synapse-hub`). */
  synapseAgentId?: string;
  /**
   * The skills carried out by a Synapse peer (SYNAPSE_REMOTE_SKILLS of jsonrpc, rest and synapse, the
   * functions whose task service delegates them; none by default). Checked here: a malformed one throws.
   */
  synapseRemoteSkills?: SynapseRemoteSkills;
  /** Base URL advertised in the agent card (custom domain); default the stage URL. */
  publicUrl?: string;
  /** Default ROUTES. */
  routes?: readonly RouteDefinition[];
  /** Steady-state requests per second for the stage (default 100). */
  throttlingRateLimit?: number;
  /** Burst (default 200). */
  throttlingBurstLimit?: number;
  /**
   * Create the account-level role API Gateway uses to write logs (default true).
   * Set false when the account already has one (it is one per account and region).
   */
  cloudWatchRole?: boolean;
  /** Further routes answered with a streamed response (the routes marked `stream: true` always are). */
  streaming?: (route: RouteDefinition) => boolean;
  logRetention?: logs.RetentionDays;
  /** The authorizer's JWT issuer, its cache and the tenants' throttle and quota (constructs/auth.ts). */
  auth?: AuthOptions;
}

export class Api extends Construct {
  readonly restApi: apigateway.RestApi;
  /** Base URL without a trailing slash (`https://<id>.execute-api.<region>.<suffix>/prod`), or `publicUrl`. */
  readonly publicUrl: string;
  readonly functions: Record<FunctionName, HubFunction>;
  /** The functions behind a streamed route: they answer with response streaming. */
  readonly streamedFunctions: ReadonlySet<FunctionName>;
  readonly accessLogs: logs.LogGroup;
  /** The authorizer (its function, the REQUEST authorizer), the tenants' usage plan, the gateway responses. */
  readonly auth: EdgeAuth;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.restApi = new apigateway.RestApi(this, 'RestApi', {
      description: 'Synapse A2A task hub',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      cloudWatchRole: props.cloudWatchRole ?? true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      // the tenant's API key (its usage plan key) comes from the authorizer's usageIdentifierKey
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName: STAGE_NAME,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields({
          caller: false,
          httpMethod: true,
          ip: true,
          protocol: true,
          requestTime: true,
          resourcePath: true,
          responseLength: true,
          status: true,
          user: false,
        }),
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: true,
        throttlingRateLimit: props.throttlingRateLimit ?? 100,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 200,
      },
    });
    acknowledge(this.restApi, [
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated in the functions (zod schemas in shared/protocol), which answer with JSON-RPC ' +
          'error objects; an API Gateway request validator would answer with its own non-JSON-RPC errors.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF is a per-deployment choice with its own cost; attach a web ACL to the prod stage when needed ' +
          '(docs/deploy.md). Stage throttling limits abuse meanwhile.',
      },
    ]);
    if (props.cloudWatchRole ?? true) {
      const role = this.restApi.node.tryFindChild('CloudWatchRole');
      if (role) {
        acknowledge(role, [
          {
            id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
            reason:
              'The account-level API Gateway logging role (one per account and region, required for access and ' +
              'execution logs) uses the AWS-managed policy AWS documents for it; no function uses it.',
          },
        ]);
      }
    }

    this.publicUrl =
      props.publicUrl?.replace(/\/+$/, '') ??
      // Built from the API id, not `restApi.url`: the stage depends on the methods, the methods on the
      // functions, so a function environment referencing the stage would be a cycle. The API id is not.
      Fn.join('', [
        'https://',
        this.restApi.restApiId,
        '.execute-api.',
        Aws.REGION,
        '.',
        Aws.URL_SUFFIX,
        `/${STAGE_NAME}`,
      ]);
    const environment = { ...props.environment, PUBLIC_URL: this.publicUrl };
    // the card (public and extended) declares the issuer's `oidc` scheme when one is configured
    // the auth options are checked before anything is bundled
    authJwtEnvironment(props.auth?.jwt);
    authSettingsOf(props.auth);
    const cardEnvironment = { ...environment, ...cardAuthEnvironment(props.auth?.jwt) };
    const routes = props.routes ?? ROUTES;
    const streams = (route: RouteDefinition) => route.stream === true || (props.streaming?.(route) ?? false);
    // a function behind a streamed route gets the stream's time; blocking sends keep their 25 s (jsonrpc)
    this.streamedFunctions = new Set(routes.filter(streams).map((r) => r.function));
    const timeoutOf = (fn: FunctionName, buffered: Duration) =>
      routes.some((r) => r.function === fn && streams(r))
        ? Duration.seconds(STREAMING.functionTimeoutSeconds)
        : buffered;

    const agentCard = new HubFunction(this, 'AgentCard', {
      fn: 'agent-card',
      agentModule: props.agentModule,
      environment: cardEnvironment,
      timeout: timeoutOf('agent-card', Duration.seconds(10)),
      description: 'Synapse: serves the agent card and the Synapse JSON Schemas',
      logRetention: retention,
    });
    const jsonrpc = new HubFunction(this, 'JsonRpc', {
      fn: 'jsonrpc',
      agentModule: props.agentModule,
      environment: cardEnvironment,
      timeout: timeoutOf('jsonrpc', Duration.seconds(29)),
      description: 'Synapse: A2A JSON-RPC endpoint (SSE streams for the streaming methods)',
      logRetention: retention,
    });
    const rest = new HubFunction(this, 'Rest', {
      fn: 'rest',
      agentModule: props.agentModule,
      environment: cardEnvironment,
      timeout: timeoutOf('rest', Duration.seconds(29)),
      description: 'Synapse: A2A HTTP+JSON (REST) endpoint (SSE streams for message:stream and :subscribe)',
      logRetention: retention,
    });
    const jwks = new HubFunction(this, 'Jwks', {
      fn: 'jwks',
      agentModule: props.agentModule,
      environment,
      timeout: timeoutOf('jwks', Duration.seconds(10)),
      description: 'Synapse: serves the JWKS that verifies push notification JWTs',
      logRetention: retention,
    });
    const synapse = new HubFunction(this, 'Synapse', {
      fn: 'synapse',
      agentModule: props.agentModule,
      environment,
      timeout: timeoutOf('synapse', Duration.seconds(29)),
      description: 'Synapse: P2P endpoint (signed p2p messages in, their answers out) and the requester API',
      logRetention: retention,
    });
    const registry = new HubFunction(this, 'Registry', {
      fn: 'registry',
      agentModule: props.agentModule,
      environment,
      timeout: timeoutOf('registry', Duration.seconds(29)),
      description:
        'Synapse: the agent registry (ARD search, explore, browse; publishing and review; the AI Catalog)',
      logRetention: retention,
    });
    const inspector = new HubFunction(this, 'Inspector', {
      fn: 'inspector',
      agentModule: props.agentModule,
      environment,
      timeout: timeoutOf('inspector', Duration.seconds(10)),
      description: 'Synapse: the inspector page and the read API it calls (docs/inspector.md)',
      logRetention: retention,
      afterBundling: inspectorAssetsCommands,
    });
    this.functions = { 'agent-card': agentCard, jsonrpc, rest, jwks, synapse, registry, inspector };

    // Least privilege: the agent card reads the signing key set alone (it signs the card: docs/registry.md#trust);
    // jsonrpc and rest read and write tasks (they run blocking
    // and streamed sends inline; the stream relay, not they, hands work to the executor queue).
    for (const fn of [jsonrpc, rest])
      grantTableReadWrite(props.table, fn.function, { indexes: JSONRPC_INDEXES });
    // the JWKS function reads the signing key set (it publishes only the public parts) and no task
    grantPushSigningKeys(props.signingKeys, jwks.function);
    grantPushSigningKeys(props.signingKeys, agentCard.function);
    // the synapse function submits, continues and cancels tasks through the same task service (by key:
    // no index), puts its replay-protection items (`SEEN#…`, conditional PutItem) in the same table, and
    // reads the peers; as jsonrpc's, its tasks reach the executor through the stream relay, not a queue
    grantTableReadWrite(props.table, synapse.function, { indexes: SYNAPSE_INDEXES });
    grantSynapsePeers(props.synapsePeers, synapse.function, props.synapseAgentId ?? DEFAULT_SYNAPSE_AGENT_ID);
    // the registry reads and writes its own items (conditional puts and transactions by key) and reads the
    // byRegistry index (its catalog feed and a tenant's records); it touches no task
    grantTableReadWrite(props.table, registry.function, { indexes: REGISTRY_INDEXES });
    // the inspector's read API reads a task and its history and delivery log, by key: no write, no index
    grantTableRead(props.table, inspector.function, { indexes: [] });
    // the skills a Synapse peer carries out: the task service of jsonrpc, rest and synapse delegates their
    // tasks (shared/composition-roots/core.ts). No further grant: a delegation writes a requester task and its push config
    // in the table (PutItem, by key), and the stream relay, not these functions, queues its messages to the
    // peer as deliveries, which the delivery worker signs with the peers secret
    // a skill found in the registry goes to a configured peer alone (docs/synapse-protocol.md#skills-found-in-the-registry):
    // jsonrpc and rest read the peers (their ids and tenants) and know this hub's agent id (never a route, and the
    // card's Synapse extension, which the agent card function declares too)
    for (const fn of [jsonrpc, rest])
      grantSynapsePeers(props.synapsePeers, fn.function, props.synapseAgentId ?? DEFAULT_SYNAPSE_AGENT_ID);
    agentCard.function.addEnvironment(
      SYNAPSE_AGENT_ID_ENV,
      synapseAgentIdOf(props.synapseAgentId ?? DEFAULT_SYNAPSE_AGENT_ID),
    );
    const remote = synapseRemoteSkillsOf(props.synapseRemoteSkills);
    if (remote.json)
      for (const fn of [jsonrpc, rest, synapse])
        fn.function.addEnvironment(SYNAPSE_REMOTE_SKILLS_ENV, remote.json);

    this.auth = new EdgeAuth(this, 'Auth', {
      restApi: this.restApi,
      table: props.table,
      agentModule: props.agentModule,
      environment: props.environment,
      ...(props.auth ? { options: props.auth } : {}),
      logRetention: retention,
    });

    const integrations = new Map<string, apigateway.LambdaIntegration>();
    const integrationFor = (route: RouteDefinition): apigateway.LambdaIntegration => {
      const stream = streams(route);
      const key = `${route.function}:${stream}`;
      let integration = integrations.get(key);
      if (!integration) {
        const fn: lambda.IFunction = this.functions[route.function].function;
        integration = new apigateway.LambdaIntegration(fn, {
          proxy: true,
          allowTestInvoke: false,
          ...(stream
            ? {
                responseTransferMode: apigateway.ResponseTransferMode.STREAM,
                timeout: Duration.seconds(STREAMING.integrationTimeoutSeconds),
              }
            : {}),
        });
        integrations.set(key, integration);
      }
      return integration;
    };
    for (const route of routes) {
      const resource = this.restApi.root.resourceForPath(route.path);
      if (route.public) {
        const method = resource.addMethod(route.method, integrationFor(route), {
          authorizationType: apigateway.AuthorizationType.NONE,
          apiKeyRequired: false,
        });
        const reason = publicRouteReason(route);
        acknowledge(method, [
          { id: 'AwsSolutions-APIG4', reason },
          { id: 'AwsSolutions-COG4', reason },
        ]);
      } else {
        const method = resource.addMethod(route.method, integrationFor(route), {
          authorizer: this.auth.authorizer,
          authorizationType: apigateway.AuthorizationType.CUSTOM,
          apiKeyRequired: true,
        });
        acknowledge(method, [{ id: 'AwsSolutions-COG4', reason: CUSTOM_AUTHORIZER_REASON }]);
      }
    }
  }

  /** Absolute URL of a path of the API (`path` starting with `/`). */
  urlFor(path: string): string {
    return Fn.join('', [this.publicUrl, path]);
  }
}
