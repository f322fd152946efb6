/**
 * The agent registry in the CDK app: its function behind `/registry/{proxy+}` (behind the authorizer) and
 * the public `GET /.well-known/ai-catalog.json`, with the table by key and the byRegistry index alone; the
 * probe schedule in the stateful stack beside its queue (a tick with the event's time, every 15 minutes),
 * the probe function fed by that queue with partial batch responses, sending to it, its settings in its
 * environment; nothing else given to either.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { REGISTRY_PROBE_QUEUE } from '../../shared/adapters/sqs/queues.ts';
import { AI_CATALOG_PATH, REGISTRY_PATH, ROUTES } from '../../shared/contracts/routes.ts';
import {
  asArray,
  functionIds,
  logicalId,
  resourcesOf,
  type SynthesizedHub,
  statementsOfRole,
  synthHub,
} from './support.ts';

let hub: SynthesizedHub;
before(() => {
  hub = synthHub();
});
after(() => hub?.cleanup());

const queryResources = (role: string): string[] =>
  statementsOfRole(hub.statelessTemplate, role)
    .filter((s) => asArray(s.Action).includes('dynamodb:Query'))
    .flatMap((s) => asArray(s.Resource))
    .map((r) => JSON.stringify(r));

describe('the registry function', () => {
  it('serves /registry/… behind the authorizer and the AI Catalog in public', () => {
    const routes = ROUTES.filter((r) => r.function === 'registry');
    assert.deepEqual(
      routes.map((r) => [r.method, r.path, r.public ?? false]),
      [
        ['ANY', `${REGISTRY_PATH}/{proxy+}`, false],
        ['GET', AI_CATALOG_PATH, true],
      ],
    );
    const ids = functionIds(hub);
    const methods = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::Method'));
    const byRegistry = methods.filter((m) =>
      JSON.stringify(m.Properties.Integration ?? {}).includes(ids.registry.fn),
    );
    assert.deepEqual(byRegistry.map((m) => m.Properties.AuthorizationType).sort(), ['CUSTOM', 'NONE']);
  });

  it('queries the table and the byRegistry index alone', () => {
    const ids = functionIds(hub);
    for (const fn of ['registry', 'registry-probe'] as const) {
      const resources = queryResources(ids[fn].role);
      assert.equal(resources.length, 2, fn);
      assert.ok(
        resources.some((r) => r.includes('/index/byRegistry"')),
        fn,
      );
      assert.ok(!resources.some((r) => r.includes('index/*')), `${fn}: no index wildcard`);
    }
  });
});

describe('the registry probes', () => {
  it('ticks every 15 minutes onto the probe queue, with the time of the tick, from the stateful stack', () => {
    const queueId = logicalId(
      hub.stateful.state.queues.find((q) => q.definition.name === REGISTRY_PROBE_QUEUE.name)!.queue,
    );
    hub.statefulTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [queueId, 'Arn'] },
          InputTransformer: Match.objectLike({
            InputPathsMap: { time: '$.time' },
            InputTemplate: '{"probeTick":<time>}',
          }),
        }),
      ],
    });
    // the queue lets that rule alone send to it
    const policies = Object.values(resourcesOf(hub.statefulTemplate, 'AWS::SQS::QueuePolicy'));
    const events = policies
      .filter((p) => JSON.stringify(p.Properties.Queues).includes(queueId))
      .flatMap(
        (p) =>
          (p.Properties.PolicyDocument as { Statement: { Principal?: { Service?: string } }[] }).Statement,
      )
      .filter((s) => s.Principal?.Service === 'events.amazonaws.com');
    assert.equal(events.length, 1);
    assert.match(JSON.stringify(events[0]), /aws:SourceArn/);
  });

  it('feeds the probe function from the queue with partial batch responses, and tells it the tick', () => {
    const ids = functionIds(hub);
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids['registry-probe'].fn },
      BatchSize: REGISTRY_PROBE_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const fn = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function')[ids['registry-probe'].fn]!;
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(env.REGISTRY_PROBE_TICK_SECONDS, '900');
    assert.ok(env[REGISTRY_PROBE_QUEUE.urlEnv], 'its queue');
    assert.equal(fn.Properties.Timeout, REGISTRY_PROBE_QUEUE.consumerTimeoutSeconds);
  });

  it("publishes the hub's own card after the API is deployed, asynchronously (a failure never fails the deployment)", () => {
    const ids = functionIds(hub);
    const triggers = Object.values(resourcesOf(hub.statelessTemplate, 'Custom::Trigger'));
    assert.equal(triggers.length, 1);
    const trigger = triggers[0]!;
    assert.equal(trigger.Properties.InvocationType, 'Event');
    // the function's current version: a deployment that changes it publishes the card again
    assert.match(
      JSON.stringify(trigger.Properties.HandlerArn),
      /ServicesRegistryProbesProbeFunctionCurrentVersion/,
    );
    assert.ok(ids['registry-probe'].fn.startsWith('ServicesRegistryProbesProbeFunction'));
    assert.ok(
      asArray(trigger.DependsOn as string | string[]).some((d) => /Api/.test(d)),
      'after the API',
    );
  });
});
