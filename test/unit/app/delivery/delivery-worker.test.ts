/**
 * The retry rules of push deliveries (pure), the policy the environment asks for, and the relay's part:
 * the deliveries of the changes of a batch go to the delivery queue, in commit order, none coalesced.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqsDelayOf } from '../../../../shared/adapters/sqs/delivery-queue.ts';
import { relayChanges } from '../../../../shared/app/delivery/relay.ts';
import {
  DEFAULT_SYNAPSE_MAX_RETRIES,
  synapsePolicyOf,
} from '../../../../shared/app/delivery/synapse-callback.ts';
import { deliveryPolicyFrom, synapseMaxRetriesFrom } from '../../../../shared/config/delivery.ts';
import {
  DEFAULT_DELIVERY_POLICY,
  type DeliveryPolicy,
  nextStepOf,
  retryDelaySeconds,
} from '../../../../shared/domain/delivery.ts';
import type { TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import type { DeliveryMessage } from '../../../../shared/ports/delivery-queue.ts';
import type { TaskChange } from '../../../../shared/ports/task-changes.ts';
import { signSynapseRequest } from '../../../../shared/protocol/synapse/signing.ts';

const noJitter: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, jitter: 0 };

describe('delivery retry rules', () => {
  it('back off from 2 s, doubling, for the 4 retries of 5 attempts; the 5th failure gives up', () => {
    const steps = [1, 2, 3, 4, 5].map((attempt) => nextStepOf(noJitter, attempt, 'retry'));
    assert.deepEqual(steps, [
      { step: 'retry', delaySeconds: 2 },
      { step: 'retry', delaySeconds: 4 },
      { step: 'retry', delaySeconds: 8 },
      { step: 'retry', delaySeconds: 16 },
      { step: 'give_up', reason: 'attempts_exhausted' },
    ]);
  });

  it('a delivery is done; a final failure (4xx, refused URL) gives up at once', () => {
    assert.deepEqual(nextStepOf(noJitter, 1, 'delivered'), { step: 'done' });
    assert.deepEqual(nextStepOf(noJitter, 1, 'final'), { step: 'give_up', reason: 'refused' });
  });

  it('jitter spreads a delay by ± the fraction, never beyond the cap', () => {
    const policy = DEFAULT_DELIVERY_POLICY;
    assert.equal(
      retryDelaySeconds(policy, 1, undefined, () => 0),
      1.6,
    );
    assert.equal(
      retryDelaySeconds(policy, 1, undefined, () => 1),
      2.4,
    );
    assert.equal(
      retryDelaySeconds(policy, 1, undefined, () => 0.5),
      2,
    );
    assert.equal(
      retryDelaySeconds(policy, 20, undefined, () => 1),
      900,
    );
  });

  it("a receiver's Retry-After replaces the backoff, as given, capped", () => {
    assert.deepEqual(nextStepOf(DEFAULT_DELIVERY_POLICY, 1, 'retry', 7), { step: 'retry', delaySeconds: 7 });
    assert.deepEqual(nextStepOf(DEFAULT_DELIVERY_POLICY, 3, 'retry', 0), { step: 'retry', delaySeconds: 0 });
    assert.equal(retryDelaySeconds(DEFAULT_DELIVERY_POLICY, 1, 5000), 900);
  });

  it('scaled-down delays keep their order and ratio (a test policy)', () => {
    const fast = { ...noJitter, baseDelaySeconds: 0.05 };
    assert.deepEqual(
      [1, 2, 3].map((a) => retryDelaySeconds(fast, a)),
      [0.05, 0.1, 0.2],
    );
  });

  it('SQS gets whole seconds, at most 900', () => {
    assert.deepEqual([0.05, 0.5, 1.6, 2.4, 16, 5000, undefined].map(sqsDelayOf), [0, 1, 2, 2, 16, 900, 0]);
  });
});

describe('delivery policy from the environment', () => {
  it('defaults to 5 attempts from 2 s, doubling, ±20%', () => {
    assert.deepEqual(deliveryPolicyFrom({}), DEFAULT_DELIVERY_POLICY);
  });

  it('reads every figure, and refuses what cannot work', () => {
    assert.deepEqual(
      deliveryPolicyFrom({
        DELIVERY_MAX_ATTEMPTS: '3',
        DELIVERY_BASE_DELAY_SECONDS: '0.05',
        DELIVERY_BACKOFF_FACTOR: '3',
        DELIVERY_MAX_DELAY_SECONDS: '60',
        DELIVERY_JITTER: '0',
      }),
      { maxAttempts: 3, baseDelaySeconds: 0.05, factor: 3, maxDelaySeconds: 60, jitter: 0 },
    );
    for (const [name, value] of [
      ['DELIVERY_MAX_ATTEMPTS', '0'],
      ['DELIVERY_MAX_ATTEMPTS', '2.5'],
      ['DELIVERY_BASE_DELAY_SECONDS', '-1'],
      ['DELIVERY_BACKOFF_FACTOR', '0.5'],
      ['DELIVERY_MAX_DELAY_SECONDS', '901'],
      ['DELIVERY_JITTER', '2'],
      ['DELIVERY_JITTER', 'lots'],
    ] as const) {
      assert.throws(() => deliveryPolicyFrom({ [name]: value }), new RegExp(name));
    }
  });
});

describe('the relay enqueues deliveries', () => {
  const at = '2026-12-02T00:00:00.000Z';
  const head = (version: number, extra: Partial<TaskHead> = {}): TaskHead => ({
    taskId: 't1',
    tenant: 'acme',
    owner: 'bob',
    contextId: 'c1',
    state: 'executing',
    version,
    role: 'executor',
    protocol: 'a2a',
    createdAt: at,
    statusAt: at,
    deadlineAt: at,
    pushConfigIds: ['a'],
    ...extra,
  });
  const event = (version: number, extra: Partial<TaskEvent> = {}): TaskEvent => ({
    taskId: 't1',
    tenant: 'acme',
    version,
    type: 'status_update',
    from: 'executing',
    to: 'executing',
    at,
    ...extra,
  });
  const change = (before: TaskHead, after: TaskHead, events: TaskEvent[]): TaskChange => ({
    sequence: String(after.version),
    before,
    after: { head: after, recent: events },
    events,
  });

  it('every delivery of every change of the batch, in commit order, with no delay', async () => {
    const sent: Array<{ messages: DeliveryMessage[]; delay: number | undefined }> = [];
    const result = await relayChanges(
      [
        change(head(4), head(5), [event(5)]),
        change(head(5), head(7, { state: 'completed' }), [
          event(6, { type: 'artifact', artifact: { artifact: { artifactId: 'x', parts: [{ text: 'y' }] } } }),
          event(7, { type: 'complete', to: 'completed' }),
        ]),
      ],
      {
        executor: { enqueue: async () => {} },
        lifecycle: { publish: async () => {} },
        deliveries: {
          enqueue: async (messages, delay) => void sent.push({ messages: [...messages], delay }),
        },
      },
    );
    assert.equal(result.deliveries, 3);
    assert.equal(sent.length, 1, 'one enqueue call for the batch');
    assert.equal(sent[0]!.delay, undefined);
    assert.deepEqual(
      sent[0]!.messages.map((m) => [m.configId, m.version, m.attempt]),
      [
        ['a', 5, 1],
        ['a', 6, 1],
        ['a', 7, 1],
      ],
    );
  });

  it('without a delivery queue, nothing is derived (and nothing fails)', async () => {
    const result = await relayChanges([change(head(4), head(5), [event(5)])], {
      executor: { enqueue: async () => {} },
      lifecycle: { publish: async () => {} },
    });
    assert.equal(result.deliveries, 0);
  });
});

describe('a Synapse peer’s retries', () => {
  it('are never within one second of each other: an attempt signed in the same second is the same signed bytes', () => {
    const fast: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, baseDelaySeconds: 0.1, jitter: 0 };
    const policy = synapsePolicyOf(fast, 5);
    assert.equal(policy.maxAttempts, 6);
    assert.deepEqual(
      nextStepOf(policy, 1, 'retry', undefined, () => 0.5),
      { step: 'retry', delaySeconds: 1 },
    );
    assert.deepEqual(nextStepOf(policy, 1, 'retry', 0), { step: 'retry', delaySeconds: 1 }, 'Retry-After: 0');
    assert.deepEqual(
      nextStepOf(policy, 5, 'retry', undefined, () => 0.5),
      { step: 'retry', delaySeconds: 1.6 },
      'a longer backoff as it is',
    );
    assert.deepEqual(
      nextStepOf(fast, 1, 'retry', undefined, () => 0.5),
      { step: 'retry', delaySeconds: 0.1 },
      'a webhook’s as the policy says',
    );
    // why: the same message signed twice in one second, and a second later
    const key = { id: 'k1', secret: 'the-secret-of-this-test-of-at-least-32' };
    const sign = (now: number) =>
      signSynapseRequest({ rawBody: '{"same":"body"}', messageId: 'cb_t_7', key, now })[
        'X-Synapse-Signature'
      ];
    const at = Date.parse('2026-12-05T10:00:00.100Z');
    assert.equal(sign(at), sign(at + 800));
    assert.notEqual(sign(at), sign(at + 1000));
  });

  it('are the Synapse protocol’s MaxRetries, 5 after the first attempt, unless SYNAPSE_MAX_RETRIES says otherwise', () => {
    assert.equal(DEFAULT_SYNAPSE_MAX_RETRIES, 5);
    assert.equal(synapseMaxRetriesFrom({}), 5);
    assert.equal(synapseMaxRetriesFrom({ SYNAPSE_MAX_RETRIES: '2' }), 2);
    assert.throws(() => synapseMaxRetriesFrom({ SYNAPSE_MAX_RETRIES: '-1' }), /SYNAPSE_MAX_RETRIES/);
  });
});
