/**
 * The CDK app, synthesized in-process (no AWS, no credentials, real esbuild
 * bundling) with cdk-nag's AwsSolutions checks on: triggers, least-privilege
 * policies, routes, queues, table, monitoring, bundles.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AGENT_SPECIFIER, ESM_REQUIRE_BANNER } from '../../infra/bundling.ts';
import { pascal } from '../../infra/constructs/queues.ts';
import { StatefulStack } from '../../infra/stacks.ts';
import { STREAM_RELAY } from '../../shared/adapters/dynamodb/stream.ts';
import { TASK_TABLE } from '../../shared/adapters/dynamodb/table.ts';
import {
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  QUEUES,
  RELAY_FAILURES_URL_ENV,
} from '../../shared/adapters/sqs/queues.ts';
import { BUNDLED_ASSETS_FOLDER } from '../../shared/composition-roots/inspector.ts';
import { JSONRPC_PATH, REST_PATH, ROUTES, STREAMING } from '../../shared/contracts/routes.ts';
import { METRICS_NAMESPACE, MetricName } from '../../shared/observability/names.ts';
import {
  actionsOf,
  asArray,
  bundleOf,
  functionIds,
  propertiesOf,
  resourcePath,
  resourcesOf,
  type Statement,
  type SynthesizedHub,
  statementsOfRole,
  synthHub,
} from './support.ts';

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
const TABLE_RW = [
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:Query',
];
const STREAM_READ = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];
const SQS_SEND = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'];
const SQS_CONSUME = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];
const sorted = (...lists: string[][]): string[] => [...new Set(lists.flat())].sort();

const EXPECTED_ACTIONS: Record<string, string[]> = {
  // reads the signing keys: it signs the card (docs/registry.md#trust)
  'agent-card': sorted(LOGS, XRAY, ['secretsmanager:GetSecretValue']),
  // the auth directory items alone (LeadingKeys AUTH#, test/infra/auth.test.ts)
  authorizer: sorted(LOGS, XRAY, ['dynamodb:GetItem']),
  // blocking sends run the agent inline; the relay, not jsonrpc, hands work to the executor queue; the peers
  // secret: a skill found in the registry goes to a configured peer alone (test/infra/synapse.test.ts)
  jsonrpc: sorted(LOGS, XRAY, TABLE_RW, ['secretsmanager:GetSecretValue']),
  rest: sorted(LOGS, XRAY, TABLE_RW, ['secretsmanager:GetSecretValue']),
  // publishes the public parts of the push signing keys (test/infra/keys.test.ts)
  jwks: sorted(LOGS, XRAY, ['secretsmanager:GetSecretValue']),
  // Synapse P2P (test/infra/synapse.test.ts): tasks through the task service, its replay-protection items,
  // the peers secret
  synapse: sorted(LOGS, XRAY, TABLE_RW, ['secretsmanager:GetSecretValue']),
  // sends to its own queue: a lease still running is looked at again later
  executor: sorted(LOGS, XRAY, TABLE_RW, SQS_CONSUME, SQS_SEND),
  // consumes the heartbeat queue and sends to it (a watch of a run still alive re-arms itself)
  heartbeat: sorted(LOGS, XRAY, TABLE_RW, SQS_CONSUME, SQS_SEND),
  sweeper: sorted(LOGS, XRAY, TABLE_RW),
  // push deliveries (test/infra/deliveries.test.ts): reads tasks and configs, puts its log items, sends its
  // retries and dead letters, reads the signing keys
  deliver: sorted(
    LOGS,
    XRAY,
    ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
    SQS_CONSUME,
    SQS_SEND,
    ['secretsmanager:GetSecretValue'],
  ),
  // reads the stream, sends runs and heartbeat watches, puts lifecycle events and the failure note; no item access
  relay: sorted(LOGS, XRAY, STREAM_READ, SQS_SEND, ['events:PutEvents']),
  // the registry's items and its byRegistry index (test/infra/registry.test.ts)
  registry: sorted(LOGS, XRAY, TABLE_RW),
  // the inspector's read API reads a task, its history and its delivery log: no write, no index
  inspector: sorted(LOGS, XRAY, ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']),
  // the same items, and its queue: it consumes ticks and probes, and sends the probes a tick spreads
  'registry-probe': sorted(LOGS, XRAY, TABLE_RW, SQS_CONSUME, SQS_SEND),
};

let hub: SynthesizedHub;

before(() => {
  // bundled: the bundles' tests below read what esbuild made
  hub = synthHub({}, { nag: true }, { bundle: true });
});
after(() => hub?.cleanup());

describe('synth', () => {
  it('synthesizes both stacks with cdk-nag AwsSolutions checks and no violation', () => {
    assert.ok(hub.synthMs > 0);
    const report = new AwsSolutionsChecks(hub.app).validateScope(hub.app);
    assert.deepEqual(
      report.violations.map(
        (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      ),
      [],
    );
    assert.equal(report.success, true);
  });

  it('cdk-nag does catch a violation (the plugin is live)', () => {
    const app = new App();
    const stack = new Stack(app, 'Bad');
    new sqs.Queue(stack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    const report = new AwsSolutionsChecks(app).validateScope(app);
    assert.equal(report.success, false);
    assert.ok(report.violations.some((v) => v.ruleName === 'AwsSolutions-SQS4'));
  });
});

describe('stateful stack', () => {
  it('has the task table from TASK_TABLE: keys, GSIs with projections, stream, TTL, on-demand, PITR, retained', () => {
    const tables = resourcesOf(hub.statefulTemplate, 'AWS::DynamoDB::GlobalTable');
    assert.equal(Object.keys(tables).length, 1);
    const [table] = Object.values(tables);
    assert.equal(table?.DeletionPolicy, 'Retain');
    assert.equal(table?.UpdateReplacePolicy, 'Retain');
    hub.statefulTemplate.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TASK_TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TASK_TABLE.sortKey, KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TASK_TABLE.ttlAttribute, Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      LocalSecondaryIndexes: Match.absent(),
      GlobalSecondaryIndexes: TASK_TABLE.globalIndexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection:
          typeof i.projection === 'string'
            ? { ProjectionType: i.projection }
            : { ProjectionType: 'INCLUDE', NonKeyAttributes: i.projection.include },
      })),
      Replicas: [
        Match.objectLike({
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ],
    });
  });

  it('makes deletion protection configurable by context', () => {
    const app = new App({ context: { deletionProtection: 'false' } });
    // the stateful stack alone: no bundling needed
    const stack = new StatefulStack(app, 'S', { deletionProtection: false });
    Template.fromStack(stack).hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('has each queue from QUEUES with its DLQ, redrive, SSE and TLS-only access, and the relay failures queue', () => {
    const queues = resourcesOf(hub.statefulTemplate, 'AWS::SQS::Queue');
    // + the stream relay's on-failure destination
    assert.equal(Object.keys(queues).length, QUEUES.length * 2 + 1);
    const failuresId = hub.stateful.getLogicalId(
      hub.stateful.state.relayFailures.node.defaultChild as sqs.CfnQueue,
    );
    assert.equal(queues[failuresId]?.Properties.SqsManagedSseEnabled, true);
    hub.statefulTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: failuresId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    for (const def of QUEUES) {
      const ref = hub.stateful.state.queues.find((q) => q.definition.name === def.name);
      assert.ok(ref, def.name);
      const queueId = hub.stateful.getLogicalId(ref.queue.node.defaultChild as sqs.CfnQueue);
      const dlqId = hub.stateful.getLogicalId(ref.deadLetterQueue.node.defaultChild as sqs.CfnQueue);
      assert.deepEqual(queues[queueId]?.Properties, {
        MessageRetentionPeriod: 345600,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
          maxReceiveCount: def.maxReceiveCount,
        },
        SqsManagedSseEnabled: true,
        VisibilityTimeout: def.visibilityTimeoutSeconds,
      });
      assert.equal(queues[dlqId]?.Properties.SqsManagedSseEnabled, true);
      for (const id of [queueId, dlqId]) {
        hub.statefulTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    }
  });

  it('has the lifecycle event bus and the outputs (table, queues)', () => {
    hub.statefulTemplate.resourceCountIs('AWS::Events::EventBus', 1);
    const outputs = Object.keys(hub.statefulTemplate.toJSON().Outputs as object);
    for (const key of [
      'TableName',
      'EventBusName',
      'ExecutorQueueUrl',
      'ExecutorQueueName',
      'ExecutorDlqUrl',
      'HeartbeatQueueUrl',
      'HeartbeatDlqUrl',
      'RelayFailuresQueueUrl',
    ]) {
      assert.ok(outputs.includes(key), key);
    }
  });
});

describe('stateless stack: functions and triggers', () => {
  it('has one Node 22 ARM64 ESM function per handler, traced, with its own log group and environment', () => {
    const ids = functionIds(hub);
    assert.deepEqual(Object.keys(ids).sort(), [
      'agent-card',
      'authorizer',
      'deliver',
      'executor',
      'heartbeat',
      'inspector',
      'jsonrpc',
      'jwks',
      'registry',
      'registry-probe',
      'relay',
      'rest',
      'sweeper',
      'synapse',
    ]);
    const fns = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function');
    // and CDK's own: the provider of the trigger that publishes the hub's card (test/infra/registry.test.ts)
    const others = Object.keys(fns).filter((id) => !Object.values(ids).some((f) => f.fn === id));
    assert.equal(others.length, 1);
    assert.match(others[0]!, /^AWSCDKTriggerCustomResourceProvider/);
    for (const [name, { fn }] of Object.entries(ids)) {
      const p = fns[fn]?.Properties ?? {};
      assert.equal(p.Runtime, 'nodejs22.x', name);
      assert.deepEqual(p.Architectures, ['arm64']);
      assert.equal(p.Handler, 'index.handler');
      assert.deepEqual(p.TracingConfig, { Mode: 'Active' });
      assert.ok((p.LoggingConfig as { LogGroup?: unknown }).LogGroup, `${name} has its own log group`);
      const env = (p.Environment as { Variables: Record<string, unknown> }).Variables;
      // the authorizer reads the auth directory of the table alone: no queue, bus or URL
      // (its environment in full: test/infra/auth.test.ts)
      const keys =
        name === 'authorizer'
          ? ['TABLE_NAME', 'LOG_LEVEL']
          : ['TABLE_NAME', EXECUTOR_QUEUE.urlEnv, 'PUBLIC_URL', 'EVENT_BUS_NAME', 'LOG_LEVEL'];
      for (const key of keys) {
        assert.ok(env[key], `${name}: ${key}`);
      }
      assert.equal(env.POWERTOOLS_METRICS_NAMESPACE, METRICS_NAMESPACE);
      assert.equal(env.POWERTOOLS_SERVICE_NAME, 'synapse');
      assert.equal(env.AGENT_MODULE, undefined, 'the agent is bundled, not loaded by path');
      if (name === 'authorizer') {
        for (const key of [EXECUTOR_QUEUE.urlEnv, 'PUBLIC_URL', 'EVENT_BUS_NAME'])
          assert.equal(env[key], undefined, `${name}: no ${key}`);
      } else {
        assert.match(JSON.stringify(env.PUBLIC_URL), /execute-api/);
      }
    }
    for (const group of Object.values(resourcesOf(hub.statelessTemplate, 'AWS::Logs::LogGroup'))) {
      assert.equal(group.Properties?.RetentionInDays, 30);
    }
  });

  it('bundles each function as minified ESM with the require banner and a source map', () => {
    for (const [name, { fn }] of Object.entries(functionIds(hub))) {
      const code = bundleOf(hub, fn);
      assert.ok(code.startsWith(ESM_REQUIRE_BANNER), `${name} starts with the createRequire banner`);
      assert.match(code, /sourceMappingURL=index\.mjs\.map/, name);
      // `#agent` was resolved at bundle time: no runtime import of the bare specifier is left
      assert.doesNotMatch(code, new RegExp(`import\\(\\s*["'\`]${AGENT_SPECIFIER}["'\`]\\s*\\)`), name);
    }
  });

  it("gives every function's AWS clients the retryable-error translation, and none the local fault layer", () => {
    for (const [name, { fn }] of Object.entries(functionIds(hub))) {
      const code = bundleOf(hub, fn);
      // names a middleware keeps in a minified bundle (shared/adapters/aws/clients.ts, local/faults/sdk.ts)
      if (name !== 'signing-key-rotation' && name !== 'jwks')
        assert.match(code, /synapseUnavailableAfterRetries/, `${name} translates what stays unavailable`);
      assert.doesNotMatch(
        code,
        /synapseFaultsPerAttempt|injected: function-dies/,
        `${name} carries no fault layer`,
      );
    }
  });

  it('puts the built inspector page beside the inspector function, where its composition root reads it', () => {
    const { fn } = functionIds(hub).inspector;
    const hash = (propertiesOf(hub.statelessTemplate, fn).Code as { S3Key: string }).S3Key.replace(
      /\.zip$/,
      '',
    );
    const folder = join(hub.outdir, `asset.${hash}`, BUNDLED_ASSETS_FOLDER);
    const index = readFileSync(join(folder, 'index.html'), 'utf8');
    const assets = readdirSync(join(folder, 'assets'));
    assert.ok(
      assets.some((a) => /^main-[A-Z0-9]{8,}\.js$/.test(a)),
      assets.join(),
    );
    for (const a of assets.filter((a) => /\.(js|css)$/.test(a)))
      assert.ok(index.includes(`/inspector/assets/${a}`), `index.html names ${a}`);
    // no other function carries it
    const { fn: jsonrpc } = functionIds(hub).jsonrpc;
    const other = (propertiesOf(hub.statelessTemplate, jsonrpc).Code as { S3Key: string }).S3Key.replace(
      /\.zip$/,
      '',
    );
    assert.equal(existsSync(join(hub.outdir, `asset.${other}`, BUNDLED_ASSETS_FOLDER)), false);
  });

  it('routes every ROUTES entry to its function through an API Gateway proxy integration', () => {
    const ids = functionIds(hub);
    const resources = resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::Resource');
    const methods = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::Method'));
    assert.equal(methods.length, ROUTES.length);
    for (const route of ROUTES) {
      const method = methods.find(
        (m) =>
          m.Properties.HttpMethod === route.method &&
          resourcePath(resources, (m.Properties.ResourceId as { Ref: string }).Ref) === route.path,
      );
      assert.ok(method, `${route.method} ${route.path}`);
      const integration = method.Properties?.Integration as { Type: string; Uri: unknown };
      assert.equal(integration.Type, 'AWS_PROXY');
      assert.ok(JSON.stringify(integration.Uri).includes(`"${ids[route.function].fn}"`), route.path);
    }
  });

  it('streams the JSON-RPC and HTTP+JSON routes (STREAM mode, response-streaming invocations, 5 minutes); the card is buffered', () => {
    const ids = functionIds(hub);
    const resources = resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::Resource');
    const methods = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::Method'));
    const integrationOf = (path: string) =>
      methods.find((m) => resourcePath(resources, (m.Properties.ResourceId as { Ref: string }).Ref) === path)
        ?.Properties.Integration as { ResponseTransferMode?: string; TimeoutInMillis?: number; Uri: unknown };
    const rpc = integrationOf(JSONRPC_PATH);
    assert.equal(rpc.ResponseTransferMode, 'STREAM');
    assert.equal(rpc.TimeoutInMillis, STREAMING.integrationTimeoutSeconds * 1000);
    assert.equal(STREAMING.integrationTimeoutSeconds, 300);
    const uri = JSON.stringify(rpc.Uri);
    assert.match(uri, /\/2021-11-15\/functions\/.*\/response-streaming-invocations/);
    assert.ok(uri.includes(`"${ids.jsonrpc.fn}"`));
    // every HTTP+JSON route is below one greedy resource, any method, to the rest function
    const restResource = `${REST_PATH}/{proxy+}`;
    const restMethod = methods.find(
      (m) => resourcePath(resources, (m.Properties.ResourceId as { Ref: string }).Ref) === restResource,
    );
    assert.equal(restMethod?.Properties.HttpMethod, 'ANY');
    const rest = restMethod?.Properties.Integration as {
      ResponseTransferMode?: string;
      TimeoutInMillis?: number;
      Uri: unknown;
    };
    assert.equal(rest.ResponseTransferMode, 'STREAM');
    assert.equal(rest.TimeoutInMillis, STREAMING.integrationTimeoutSeconds * 1000);
    assert.match(JSON.stringify(rest.Uri), /response-streaming-invocations/);
    assert.ok(JSON.stringify(rest.Uri).includes(`"${ids.rest.fn}"`));
    for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
      const card = integrationOf(path);
      assert.notEqual(card.ResponseTransferMode, 'STREAM', path);
      assert.doesNotMatch(JSON.stringify(card.Uri), /response-streaming-invocations/, path);
    }
    // the function outlives no stream and no stream outlives the function: both are 5 minutes
    const fns = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function');
    assert.equal(fns[ids.jsonrpc.fn]?.Properties.Timeout, STREAMING.functionTimeoutSeconds);
    assert.equal(fns[ids.rest.fn]?.Properties.Timeout, STREAMING.functionTimeoutSeconds);
    assert.equal(fns[ids['agent-card'].fn]?.Properties.Timeout, 10);
    // API Gateway may invoke it (lambda:InvokeFunction also covers InvokeWithResponseStream)
    const permissions = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Permission')).filter(
      (p) => JSON.stringify(p.Properties.FunctionName).includes(`"${ids.jsonrpc.fn}"`),
    );
    assert.ok(permissions.length > 0);
    for (const p of permissions) {
      assert.equal(p.Properties.Action, 'lambda:InvokeFunction');
      assert.equal(p.Properties.Principal, 'apigateway.amazonaws.com');
    }
  });

  it('has stage prod with access logs, execution logs, tracing and throttling', () => {
    hub.statelessTemplate.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      MethodSettings: [
        Match.objectLike({
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: 100,
          ThrottlingBurstLimit: 200,
        }),
      ],
    });
  });

  it('feeds the relay from the table stream: in order, batch item failures, bisect, bounded retries, DLQ', () => {
    const ids = functionIds(hub);
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.relay.fn },
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('StreamArn') },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: STREAM_RELAY.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: STREAM_RELAY.maxRetryAttempts,
      MaximumRecordAgeInSeconds: STREAM_RELAY.maxRecordAgeSeconds,
      ParallelizationFactor: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::ImportValue': Match.stringLikeRegexp('RelayFailures') } },
      },
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT', 'MODIFY'],
              // task items, and the registry's records and catalog entries (their lifecycle events)
              dynamodb: { Keys: { sk: { S: ['T', 'R', 'C'] } } },
            }),
          },
        ],
      },
    });
    const fn = resourcesOf(hub.statelessTemplate)[ids.relay.fn];
    assert.equal(fn?.Properties.Timeout, STREAM_RELAY.timeoutSeconds);
    // the on-failure queue lives with the state
    const failureQueues = Object.keys(resourcesOf(hub.statefulTemplate, 'AWS::SQS::Queue')).filter((k) =>
      k.includes('RelayFailures'),
    );
    assert.equal(failureQueues.length, 1);
  });

  it("gives each queue's consumer its DLQ's URL and sending to it (poison messages), the relay its failure queue", () => {
    const ids = functionIds(hub);
    const consumers = {
      executor: 'Executor',
      heartbeat: 'Heartbeat',
      deliver: 'Delivery',
      'registry-probe': 'RegistryProbe',
    } as const;
    const functions = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function');
    const envOf = (name: keyof typeof ids) =>
      (functions[ids[name].fn]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const sendsOf = (name: keyof typeof ids) =>
      statementsOfRole(hub.statelessTemplate, ids[name].role)
        .filter((s) => asArray(s.Action).includes('sqs:SendMessage'))
        .map((s) => JSON.stringify(s.Resource));
    for (const definition of QUEUES) {
      const [name, queue] = Object.entries(consumers).find(([, q]) => pascal(definition.name) === q)!;
      const fn = name as keyof typeof consumers;
      assert.match(
        JSON.stringify(envOf(fn)[definition.dlqUrlEnv]),
        new RegExp(`${queue}Dlq`),
        `${fn}'s DLQ URL`,
      );
      assert.ok(
        sendsOf(fn).some((r) => r.includes(`${queue}Dlq`)),
        `${fn} may send to its DLQ`,
      );
      for (const other of Object.keys(consumers).filter((n) => n !== fn) as Array<keyof typeof consumers>)
        assert.ok(
          !sendsOf(other).some((r) => r.includes(`${queue}Dlq`)),
          `${other} does not send to ${queue}Dlq`,
        );
    }
    assert.match(JSON.stringify(envOf('relay')[RELAY_FAILURES_URL_ENV]), /RelayFailures/);
    assert.ok(
      sendsOf('relay').some((r) => r.includes('RelayFailures')),
      'the relay describes records there',
    );
    assert.ok(!sendsOf('relay').some((r) => /Dlq/.test(r)), 'the relay sends to no DLQ');
  });

  it('lets only the relay put events, on the hub bus alone', () => {
    const ids = functionIds(hub);
    for (const [name, { role }] of Object.entries(ids)) {
      const puts = statementsOfRole(hub.statelessTemplate, role).filter((s) =>
        asArray(s.Action).includes('events:PutEvents'),
      );
      if (name !== 'relay') {
        assert.equal(puts.length, 0, `${name} puts no events`);
        continue;
      }
      assert.equal(puts.length, 1);
      const resources = asArray(puts[0]!.Resource).map((r) => JSON.stringify(r));
      assert.equal(resources.length, 1);
      assert.match(resources[0]!, /EventsBus.*Arn/, 'scoped to the bus ARN, not "*"');
    }
  });

  it('feeds the executor from its queue with partial batch responses', () => {
    const ids = functionIds(hub);
    // the executor's, the heartbeat function's, the delivery worker's, the relay's and the registry probe's
    hub.statelessTemplate.resourceCountIs('AWS::Lambda::EventSourceMapping', 5);
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.executor.fn },
      BatchSize: EXECUTOR_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('ExecutorQueue') },
    });
    const fn = resourcesOf(hub.statelessTemplate)[ids.executor.fn];
    assert.equal(fn?.Properties.Timeout, EXECUTOR_QUEUE.consumerTimeoutSeconds);
  });

  it('feeds the heartbeat function from the heartbeat queue; the relay and the function send to it', () => {
    const ids = functionIds(hub);
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.heartbeat.fn },
      BatchSize: HEARTBEAT_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp('HeartbeatQueue') },
    });
    const fn = resourcesOf(hub.statelessTemplate)[ids.heartbeat.fn];
    assert.ok(fn, 'the heartbeat function');
    assert.equal(fn.Properties.Timeout, HEARTBEAT_QUEUE.consumerTimeoutSeconds);
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.ok(env[HEARTBEAT_QUEUE.urlEnv], 'the heartbeat queue URL');
    for (const name of ['relay', 'heartbeat'] as const) {
      const sends = statementsOfRole(hub.statelessTemplate, ids[name].role).filter((s) =>
        asArray(s.Action).includes('sqs:SendMessage'),
      );
      assert.ok(
        sends.some((s) => JSON.stringify(s.Resource).includes('HeartbeatQueue')),
        `${name} may send to the heartbeat queue`,
      );
      assert.equal(
        sends.some((s) => JSON.stringify(s.Resource).includes('HeartbeatDlq')),
        name === 'heartbeat',
        `only the heartbeat function sends to the DLQ (its poison messages), not ${name}`,
      );
    }
    // the heartbeat watch reads the task item alone
    const queries = statementsOfRole(hub.statelessTemplate, ids.heartbeat.role)
      .filter((s) => asArray(s.Action).includes('dynamodb:Query'))
      .flatMap((s) => asArray(s.Resource))
      .map((r) => JSON.stringify(r));
    assert.ok(!queries.some((r) => r.includes('/index/')));
  });

  it('runs the sweeper every minute from an EventBridge rule', () => {
    const ids = functionIds(hub);
    hub.statelessTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.sweeper.fn, 'Arn'] } })],
    });
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [ids.sweeper.fn, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('outputs the endpoint, agent card URL and dashboard', () => {
    const outputs = hub.statelessTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    for (const key of ['ApiUrl', 'JsonRpcUrl', 'RestUrl', 'AgentCardUrl', 'DashboardName'])
      assert.ok(outputs[key], key);
    assert.match(JSON.stringify(outputs.RestUrl?.Value), /\/a2a\/rest/);
    assert.match(JSON.stringify(outputs.AgentCardUrl?.Value), /\/\.well-known\/agent-card\.json/);
    assert.match(JSON.stringify(outputs.JsonRpcUrl?.Value), /\/a2a\/jsonrpc/);
  });
});

describe('stateless stack: least privilege', () => {
  it('gives each function exactly the actions it uses, through its own role without managed policies', () => {
    const ids = functionIds(hub);
    const roles = resourcesOf(hub.statelessTemplate, 'AWS::IAM::Role');
    for (const [name, { role }] of Object.entries(ids)) {
      assert.equal(roles[role]?.Properties.ManagedPolicyArns, undefined, `${name}: no managed policies`);
      const statements = statementsOfRole(hub.statelessTemplate, role);
      assert.deepEqual(actionsOf(statements), EXPECTED_ACTIONS[name], name);
      for (const s of statements) {
        assert.equal(s.Effect, 'Allow');
        for (const action of asArray(s.Action)) assert.doesNotMatch(action, /\*/, `${name}: wildcard action`);
        if (asArray(s.Resource).includes('*')) {
          assert.deepEqual(asArray(s.Action).sort(), XRAY, `${name}: only X-Ray may use Resource "*"`);
        }
      }
    }
  });

  it('scopes table queries to the indexes each function uses', () => {
    const ids = functionIds(hub);
    const queryResources = (role: string): string[] =>
      statementsOfRole(hub.statelessTemplate, role)
        .filter((s) => asArray(s.Action).includes('dynamodb:Query'))
        .flatMap((s) => asArray(s.Resource))
        .map((r) => JSON.stringify(r));
    const sweeper = queryResources(ids.sweeper.role);
    assert.equal(sweeper.length, 2);
    assert.ok(sweeper.some((r) => r.includes('/index/byDeadline')));
    const jsonrpc = queryResources(ids.jsonrpc.role);
    assert.deepEqual(queryResources(ids.rest.role), jsonrpc, 'rest lists tasks as jsonrpc does');
    // ListTasks by context and by owner; the registry's feed, for a skill found in the registry
    const jsonrpcIndexes = ['byContext', 'byOwner', 'byRegistry'];
    assert.equal(jsonrpc.length, 1 + jsonrpcIndexes.length);
    for (const index of jsonrpcIndexes)
      assert.ok(
        jsonrpc.some((r) => r.includes(`/index/${index}"`)),
        index,
      );
    assert.ok(
      !jsonrpc.some((r) => r.includes('/index/byDeadline')),
      'jsonrpc never queries the deadline index',
    );
    const executor = queryResources(ids.executor.role);
    assert.equal(executor.length, 1, 'the executor queries the table itself (history), no index');
    assert.ok(!executor.some((r) => r.includes('/index/')));
    assert.equal(queryResources(ids.relay.role).length, 0, 'the relay reads no item');
    const allIndexes = [...TASK_TABLE.localIndexes, ...TASK_TABLE.globalIndexes].map((i) => i.name);
    for (const index of ['byDeadline', ...jsonrpcIndexes])
      assert.ok(allIndexes.includes(index), `the index ${index} exists`);
    for (const r of [...sweeper, ...jsonrpc, ...executor])
      assert.ok(!r.includes('index/*'), 'no index wildcard');
  });

  it('has no statement allowing Action "*" on Resource "*" anywhere', () => {
    for (const template of [hub.statefulTemplate, hub.statelessTemplate]) {
      const docs = Object.values(template.toJSON().Resources as Record<string, { Properties?: object }>)
        .flatMap((r) => Object.values(r.Properties ?? {}))
        .filter(
          (v): v is { Statement: Statement[] } => typeof v === 'object' && v !== null && 'Statement' in v,
        );
      assert.ok(docs.length > 0);
      for (const s of docs.flatMap((d) => d.Statement)) {
        const star = asArray(s.Action).includes('*') && asArray(s.Resource).includes('*');
        assert.ok(!(star && s.Effect === 'Allow'), JSON.stringify(s));
      }
    }
  });
});

describe('stateless stack: monitoring', () => {
  it('has alarms for API 5xx rate, each function, each DLQ, the oldest message age, relay failures and lag', () => {
    const alarms = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Alarm')).map(
      (a) => a.Properties as Record<string, unknown>,
    );
    // each function's errors: the services' functions and the state's key rotation function, but the
    // authorizer's (its errors are refused credentials; its failures are API 5xx: test/infra/auth.test.ts)
    const functions = Object.keys(functionIds(hub)).filter((name) => name !== 'authorizer').length + 1;
    assert.equal(alarms.length, 1 + functions + QUEUES.length * 2 + 2);
    assert.ok(alarms.some((a) => a.MetricName === '5XXError' && a.Statistic === 'Average'));
    assert.equal(
      alarms.filter((a) => a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda').length,
      functions,
    );
    assert.ok(alarms.some((a) => a.MetricName === 'IteratorAge' && a.Namespace === 'AWS/Lambda'));
    assert.ok(
      alarms.some(
        (a) =>
          a.MetricName === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(a).includes('RelayFailures'),
      ),
    );
    assert.ok(alarms.some((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible' && a.Threshold === 1));
    assert.ok(alarms.some((a) => a.MetricName === 'ApproximateAgeOfOldestMessage'));
  });

  it('alarms on the heartbeat DLQ, and dashboards the heartbeats lost', () => {
    const alarms = resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Alarm');
    const dlq = Object.entries(alarms).find(([id]) => id.includes('HeartbeatDlqNotEmpty'))?.[1]?.Properties;
    assert.ok(dlq, 'an alarm on the heartbeat DLQ');
    assert.equal(dlq.MetricName, 'ApproximateNumberOfMessagesVisible');
    assert.equal(dlq.Threshold, 1);
    assert.match(JSON.stringify(dlq.Dimensions), /HeartbeatDlq/);
    const age = Object.entries(alarms).find(([id]) => id.includes('HeartbeatOldestMessageAge'))?.[1]
      ?.Properties;
    // every watch is delayed: its age alarms only past the longest delay and a visibility timeout
    assert.equal(age?.Threshold, HEARTBEAT_QUEUE.oldestMessageAlarmSeconds);
    const body = JSON.stringify(
      Object.values(resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Dashboard'))[0]?.Properties
        ?.DashboardBody,
    );
    assert.ok(body.includes('Heartbeats lost'), 'the widget');
    assert.ok(body.includes(MetricName.HeartbeatsLost), 'the metric');
  });

  it('has a dashboard with API, Lambda, DynamoDB, custom and SQS metrics', () => {
    hub.statelessTemplate.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const body = JSON.stringify(
      Object.values(resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Dashboard'))[0]?.Properties
        ?.DashboardBody,
    );
    for (const metric of [
      '4XXError',
      '5XXError',
      'Latency',
      'Errors',
      'Throttles',
      'Duration',
      'ThrottledRequests',
      MetricName.ConflictsLost,
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
    ]) {
      assert.ok(body.includes(metric), metric);
    }
    assert.ok(body.includes(METRICS_NAMESPACE));
  });

  it('creates no alarm topic unless asked (see hub.test.ts for the e-mail topic)', () => {
    hub.statelessTemplate.resourceCountIs('AWS::SNS::Topic', 0);
  });
});
