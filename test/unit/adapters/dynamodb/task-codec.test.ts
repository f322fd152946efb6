/**
 * The item layout, as pure functions: what one write puts, when payloads are
 * kept apart and committed events spill, and that items read back as written.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemSize } from '../../../../shared/adapters/dynamodb/item-size.ts';
import {
  CODES,
  decodeChunk,
  decodeTask,
  INLINE_PAYLOAD_BYTES,
  ITEM_TARGET_BYTES,
  planWrite,
} from '../../../../shared/adapters/dynamodb/task-codec.ts';
import type { Message, TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import type { TaskRecord } from '../../../../shared/ports/task-store.ts';

const options = { retentionSeconds: 86_400 };
const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const head = (over: Partial<TaskHead> = {}): TaskHead => ({
  taskId: '0b0e5f1e-1c1d-8a2b-9c3d-4e5f60718293',
  tenant: 'default',
  owner: 'anonymous',
  contextId: '5d3c0a2e-7f18-4b4e-9e2a-4c9d2f1e0b6a',
  state: 'executing',
  version: 1,
  role: 'executor',
  protocol: 'a2a',
  createdAt: at(0),
  statusAt: at(0),
  deadlineAt: at(3600),
  ...over,
});
const message = (text: string, role: Message['role'] = 'agent'): Message => ({
  messageId: `m-${text.length}-${text.slice(0, 8)}`,
  role,
  parts: [{ text }],
});
const event = (version: number, over: Partial<TaskEvent> = {}): TaskEvent => ({
  taskId: head().taskId,
  tenant: 'default',
  version,
  type: version === 1 ? 'created' : 'status_update',
  from: version === 1 ? null : 'executing',
  to: 'executing',
  at: at(version),
  ...over,
});
/** Applies events one write at a time, as the engine would, returning every plan. */
const run = (count: number, eventOf: (v: number) => TaskEvent) => {
  let record: TaskRecord | undefined;
  const plans = [];
  for (let v = 1; v <= count; v++) {
    const e = eventOf(v);
    const plan = planWrite(record, head({ version: v, statusAt: e.at }), [e], options);
    plans.push(plan);
    record = plan.record;
  }
  return plans;
};

describe('task codec', () => {
  it('has a distinct stored code for every event type and state', () => {
    for (const codes of [CODES.events, CODES.states]) {
      const values = Object.values(codes);
      assert.equal(new Set(values).size, values.length);
    }
  });

  it('reads an item back as the record that was written', () => {
    const created = event(1, { message: message('hello', 'user') });
    const plan = planWrite(undefined, head({ state: 'pending', statusAt: at(1) }), [created], options);
    assert.deepEqual(plan.before, [], 'a small task is one item');
    const read = decodeTask(plan.item);
    assert.deepEqual(read.head, plan.record.head);
    assert.deepEqual(read.recent, [
      { ...created, message: { ...created.message!, taskId: head().taskId, contextId: head().contextId } },
    ]);
    assert.ok(itemSize(plan.item) < ITEM_TARGET_BYTES);
  });

  it('keeps a large payload in a body item written before the task item, and refers to it', () => {
    const big = message('x'.repeat(INLINE_PAYLOAD_BYTES + 1));
    const plan = planWrite(
      undefined,
      head({ statusMessage: big, statusVersion: 1, statusAt: at(1) }),
      [event(1, { message: big })],
      options,
    );
    assert.equal(plan.before.length, 1);
    assert.match(String(plan.before[0]!.sk), /^B#1#/);
    assert.ok(itemSize(plan.item) < ITEM_TARGET_BYTES);
    const read = decodeTask(plan.item);
    assert.equal(read.recent[0]?.message, undefined, 'the item holds no copy');
    assert.equal(read.recent[0]?.detached?.kind, 'message');
    assert.equal(
      read.head.statusMessage,
      undefined,
      'a large status message is resolved on read, not copied',
    );
    assert.equal(read.storage?.statusBody, read.recent[0]?.detached?.ref);
    assert.equal(plan.record.head.statusMessage, big, 'the writer keeps what it wrote');
  });

  it('lets one write inline a bounded number of payload bytes: the rest goes to bodies', () => {
    const parts = Array.from({ length: 6 }, (_, i) => ({
      ...event(i + 2, { type: 'artifact' }),
      artifact: { artifact: { artifactId: `a${i}`, parts: [{ text: 'y'.repeat(200) }] } },
    }));
    const plan = planWrite(undefined, head({ version: 7 }), [event(1), ...parts], options);
    const detached = decodeTask(plan.item).recent.filter((e) => e.detached);
    assert.ok(detached.length >= 3, `${detached.length} of 6 payloads went to body items`);
    assert.equal(plan.before.length, detached.length);
  });

  it('spills only committed events, into one chunk per kind, and keeps the item within one write unit', () => {
    const plans = run(300, (v) =>
      event(v, v === 1 ? {} : { message: message(`step ${v}`), progress: v % 100 }),
    );
    const spills = plans.filter((p) => p.before.length > 0);
    assert.ok(spills.length > 10, 'a long task spills regularly');
    for (const [i, p] of plans.entries()) {
      assert.ok(itemSize(p.item) <= ITEM_TARGET_BYTES, `write ${i + 1}: ${itemSize(p.item)} bytes`);
      const log = decodeTask(p.item).recent;
      assert.equal(log.at(-1)?.version, i + 1, 'the newest event is always in the item');
    }
    // every version is in exactly one place: a chunk or the final item
    const spilled = spills.flatMap((p) => p.before.flatMap((c) => decodeChunk(c, head())));
    const versions = [...spilled, ...decodeTask(plans.at(-1)!.item).recent]
      .map((e) => e.version)
      .sort((a, b) => a - b);
    assert.deepEqual(
      versions,
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
    for (const p of spills)
      for (const c of p.before) {
        const kinds = new Set(decodeChunk(c, head()).map((e) => (e.message ? 'M' : e.artifact ? 'A' : 'S')));
        assert.deepEqual([...kinds], [String(c.sk)[0]], 'a chunk holds one kind');
      }
  });

  it('sets TTL only on finished tasks, and on chunks and bodies after the deadline', () => {
    const live = planWrite(undefined, head(), [event(1)], options);
    assert.equal(live.item.ttl, undefined);
    assert.ok(live.item.dp);
    const done = planWrite(
      live.record,
      head({ state: 'completed', version: 2, statusAt: at(2) }),
      [event(2, { type: 'complete', to: 'completed' })],
      options,
    );
    assert.equal(done.item.dp, undefined);
    assert.equal(done.item.ttl, Math.floor(Date.parse(at(3600)) / 1000) + options.retentionSeconds);
    // a large payload's body outlives the item even if the task finishes well after its deadline
    const late = planWrite(
      live.record,
      head({ state: 'completed', version: 2, statusAt: at(7200) }),
      [event(2, { type: 'complete', to: 'completed', message: message('z'.repeat(2000)) })],
      options,
    );
    const body = late.before[0];
    assert.ok(body && Number(body.ttl) > Number(late.item.ttl), 'the body expires after the task item');
  });
});
