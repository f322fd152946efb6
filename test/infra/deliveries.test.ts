/**
 * Push deliveries in the CDK app (cdk-nag on): the delivery queue and its DLQ (stateful stack), the
 * worker fed by the queue with partial batch responses, its own role (reads the table, PutItem only,
 * sends to its queue and DLQ, reads the signing key secret and the Synapse peers secret), the relay
 * sending to the queue, the DLQ-not-empty alarm and the dashboard's delivery widgets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { SIGNING_SECRET_ENV } from '../../shared/adapters/keys/env.ts';
import { DELIVERY_DLQ_URL_ENV, DELIVERY_QUEUE } from '../../shared/adapters/sqs/queues.ts';
import { MetricName } from '../../shared/observability/names.ts';
import {
  actionsOf,
  asArray,
  functionIds,
  logicalId,
  resourcesOf,
  type Statement,
  type SynthesizedHub,
  statementsOfRole,
  synthHub,
} from './support.ts';

let hub: SynthesizedHub;
let queueId: string;
let dlqId: string;
let secretId: string;
let peersId: string;

before(() => {
  hub = synthHub();
  const ref = hub.stateful.state.queues.find((q) => q.definition.name === DELIVERY_QUEUE.name)!;
  queueId = logicalId(ref.queue as never);
  dlqId = logicalId(ref.deadLetterQueue as never);
  secretId = logicalId(hub.stateful.state.pushSigningKeys.secret);
  peersId = logicalId(hub.stateful.state.synapsePeers);
});
after(() => hub?.cleanup());

const resourcesIn = (statements: Statement[], action: string): string[] =>
  statements
    .filter((s) => asArray(s.Action).includes(action))
    .flatMap((s) => asArray(s.Resource).map((r) => JSON.stringify(r)));

describe('push deliveries in the stack', () => {
  it('has the delivery queue with its DLQ and redrive, from DELIVERY_QUEUE', () => {
    const queue = resourcesOf(hub.statefulTemplate, 'AWS::SQS::Queue')[queueId]!;
    assert.equal(queue.Properties.VisibilityTimeout, DELIVERY_QUEUE.visibilityTimeoutSeconds);
    assert.deepEqual(queue.Properties.RedrivePolicy, {
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
    });
    assert.ok(resourcesOf(hub.statefulTemplate, 'AWS::SQS::Queue')[dlqId], 'the DLQ');
  });

  it('feeds the worker from the queue, with partial batch responses, its timeout and its environment', () => {
    const ids = functionIds(hub);
    hub.statelessTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.deliver.fn },
      BatchSize: DELIVERY_QUEUE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::ImportValue': Match.stringLikeRegexp(queueId) },
    });
    const fn = resourcesOf(hub.statelessTemplate)[ids.deliver.fn]!;
    assert.equal(fn.Properties.Timeout, DELIVERY_QUEUE.consumerTimeoutSeconds);
    assert.ok(DELIVERY_QUEUE.visibilityTimeoutSeconds > DELIVERY_QUEUE.consumerTimeoutSeconds);
    const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.match(JSON.stringify(env[DELIVERY_QUEUE.urlEnv]), new RegExp(queueId));
    assert.match(JSON.stringify(env[DELIVERY_DLQ_URL_ENV]), new RegExp(dlqId));
    assert.match(JSON.stringify(env[SIGNING_SECRET_ENV]), new RegExp(secretId));
    assert.ok(env.PUBLIC_URL, 'the push JWT issuer');
    assert.ok(env.TABLE_NAME);
  });

  it('gives the worker its own role: table reads, PutItem alone, its queue and DLQ, the signing and peers secrets', () => {
    const ids = functionIds(hub);
    const statements = statementsOfRole(hub.statelessTemplate, ids.deliver.role);
    const dynamo = actionsOf(statements).filter((a) => a.startsWith('dynamodb:'));
    assert.deepEqual(dynamo, [
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    for (const action of dynamo) {
      const on = resourcesIn(statements, action);
      assert.ok(on.length > 0 && on.every((r) => !r.includes('/index/')), `${action}: the table, no index`);
    }
    const sends = resourcesIn(statements, 'sqs:SendMessage');
    assert.ok(
      sends.some((r) => r.includes(queueId)),
      'its own retries',
    );
    assert.ok(
      sends.some((r) => r.includes(dlqId)),
      'deliveries that gave up',
    );
    assert.equal(sends.length, 2, 'no other queue');
    const receives = resourcesIn(statements, 'sqs:ReceiveMessage');
    assert.ok(receives.length === 1 && receives[0]!.includes(queueId), 'consumes its queue alone');
    // the push JWT's keys, and the Synapse peers the callbacks are signed for (test/infra/synapse.test.ts)
    const reads = resourcesIn(statements, 'secretsmanager:GetSecretValue');
    assert.equal(reads.length, 2);
    assert.ok(
      reads.some((r) => r.includes(secretId)),
      'the signing keys',
    );
    assert.ok(
      reads.some((r) => r.includes(peersId)),
      'the Synapse peers',
    );
  });

  it('lets the relay send to the delivery queue (not its DLQ); no API function may', () => {
    const ids = functionIds(hub);
    const relaySends = resourcesIn(
      statementsOfRole(hub.statelessTemplate, ids.relay.role),
      'sqs:SendMessage',
    );
    assert.ok(relaySends.some((r) => r.includes(queueId)));
    assert.ok(!relaySends.some((r) => r.includes(dlqId)));
    for (const name of ['jsonrpc', 'rest', 'agent-card', 'jwks', 'synapse'] as const) {
      const sends = resourcesIn(statementsOfRole(hub.statelessTemplate, ids[name].role), 'sqs:SendMessage');
      assert.ok(!sends.some((r) => r.includes(queueId)), name);
    }
  });

  it('alarms when the delivery DLQ is not empty, and when the worker fails', () => {
    const alarms = resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Alarm');
    const dlq = Object.entries(alarms).find(([id]) => id.includes('DeliveryDlqNotEmpty'))?.[1]?.Properties;
    assert.ok(dlq, 'DeliveryDlqNotEmpty');
    assert.equal(dlq.Threshold, 1);
    assert.match(JSON.stringify(dlq.Dimensions), new RegExp(dlqId));
    assert.ok(
      Object.keys(alarms).some((id) => id.includes('DeliverErrors')),
      'DeliverErrors',
    );
    const age = Object.entries(alarms).find(([id]) => id.includes('DeliveryOldestMessageAge'))?.[1]
      ?.Properties;
    assert.equal(age?.Threshold, DELIVERY_QUEUE.oldestMessageAlarmSeconds, 'a retry may wait up to 900 s');
  });

  it('dashboards deliveries, retries, failures, latency and the DLQ', () => {
    const body = JSON.stringify(
      Object.values(resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Dashboard'))[0]?.Properties
        ?.DashboardBody,
    );
    for (const text of [
      'Push deliveries',
      'Push delivery latency (ms)',
      MetricName.DeliveriesSucceeded,
      MetricName.DeliveriesRetried,
      MetricName.DeliveriesFailed,
      MetricName.DeliveryLatency,
      'in the DLQ',
    ])
      assert.ok(body.includes(text), text);
  });
});
