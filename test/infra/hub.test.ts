/**
 * `SynapseHub` in someone else's stack: their own agent module bundled for
 * `#agent`, an alarm e-mail topic, a custom public URL, a streamed route; all
 * in one stack, and cdk-nag still passes.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { FUNCTION_IDS, FUNCTION_MEMORY_MB, type FunctionId } from '../../infra/functions.ts';
import { SynapseHub } from '../../infra/synapse-hub.ts';
import { JSONRPC_PATH } from '../../shared/contracts/routes.ts';
import { logicalId, propertiesOf, readBundle, resourcesOf, tempDir } from './support.ts';

const MARKER = 'custom-agent-marker-5e1d';

let dir: string;
let hub: SynapseHub;
let stack: Stack;
let template: Template;
let app: App;

before(() => {
  dir = tempDir('synapse-hub-');
  const agentModule = join(dir, 'my-agent.ts');
  writeFileSync(
    agentModule,
    `export default {\n  describe: () => ({ name: '${MARKER}' }),\n  execute: async () => undefined,\n};\n`,
  );
  app = new App({ outdir: join(dir, 'cdk.out') });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  stack = new Stack(app, 'UserStack');
  hub = new SynapseHub(stack, 'Hub', {
    agentModule,
    alarmEmail: 'ops@example.com',
    publicUrl: 'https://agents.example.com/',
    deletionProtection: false,
    streaming: (route) => route.path === JSONRPC_PATH,
    environment: { DEFAULT_TENANT: 'acme' },
  });
  app.synth(); // throws on a cdk-nag violation
  template = Template.fromStack(stack);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('SynapseHub in a user stack', () => {
  it('puts state and services in the one stack, nag-clean', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    // the services' functions, the push signing key rotation function of the state, and CDK's provider of
    // the trigger that publishes the hub's card after a deployment
    template.resourceCountIs('AWS::Lambda::Function', Object.keys(hub.services.functions).length + 2);
    const report = new AwsSolutionsChecks(app).validateScope(app);
    assert.deepEqual(
      report.violations.map((v) => v.ruleName),
      [],
    );
    assert.equal(report.success, true);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('deploys every function of infra/functions.ts, each with its memory', () => {
    // the services find their functions in their construct tree; the state holds the key rotation
    const deployed = {
      ...hub.services.functions,
      'signing-key-rotation': hub.state.pushSigningKeys.rotation,
    };
    assert.deepEqual(Object.keys(deployed).sort(), [...FUNCTION_IDS].sort());
    for (const [id, fn] of Object.entries(deployed)) {
      assert.equal(fn.functionId, id);
      const memory = propertiesOf(template, logicalId(fn.function)).MemorySize;
      assert.equal(memory, FUNCTION_MEMORY_MB[id as FunctionId], id);
    }
  });

  it('bundles the given agent module into the executor', () => {
    const code = readBundle(
      join(dir, 'cdk.out'),
      propertiesOf(template, logicalId(hub.services.functions.executor.function)),
    );
    assert.ok(code.includes(MARKER), 'the executor bundle contains the custom agent');
    assert.equal(hub.services.agentModule, join(dir, 'my-agent.ts'));
  });

  it('advertises the given public URL and passes extra environment', () => {
    const fn = propertiesOf(template, logicalId(hub.services.functions.jsonrpc.function));
    const env = (fn.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(env.PUBLIC_URL, 'https://agents.example.com');
    assert.equal(env.DEFAULT_TENANT, 'acme');
  });

  it('sends alarms to an e-mail topic', () => {
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    const topicId = logicalId(
      hub.services.monitoring.alarmTopic as unknown as { node: { defaultChild?: unknown } },
    );
    for (const alarm of Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))) {
      assert.deepEqual(alarm.Properties.AlarmActions, [{ Ref: topicId }]);
    }
  });

  it('streams the routes marked for streaming (responseTransferMode STREAM)', () => {
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 300_000,
        Uri: Match.objectLike({
          'Fn::Join': Match.arrayWith([
            Match.arrayWith([Match.stringLikeRegexp('response-streaming-invocations')]),
          ]),
        }),
      }),
    });
    const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'));
    const streamed = methods.filter(
      (m) =>
        (m.Properties.Integration as { ResponseTransferMode?: string }).ResponseTransferMode === 'STREAM',
    );
    // the JSON-RPC route and the HTTP+JSON proxy route
    assert.equal(streamed.length, 2);
  });
});
