/**
 * The read API (shared/app/inspector/read-api.ts) on the in-memory task store and delivery log: who the
 * caller is, a task's events paged in order, its deliveries, a Synapse task's messages with its peer, and
 * every refusal (credentials, rights, another owner's or tenant's task, bad queries, unknown routes,
 * other methods) answered with its status and writing nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import { InspectorReadApi, type ReadApiRequest } from '../../../../shared/app/inspector/read-api.ts';
import type {
  PeerMessages,
  TaskDeliveries,
  TaskEventsPage,
  TaskFactsList,
  WhoAmI,
} from '../../../../shared/app/inspector/read-model.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../../../../shared/app/synapse/callbacks.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { AuthError } from '../../../../shared/domain/errors.ts';
import type { Principal } from '../../../../shared/domain/principal.ts';
import type { DeliveryAttempt } from '../../../../shared/ports/delivery-log.ts';

const bob: Principal = { tenant: 'acme', owner: 'bob', rights: ['read', 'write'], scheme: 'api-key' };
const agentMessage = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 'agent' as const,
  parts: [{ text }],
});

const setup = () => {
  const store = new InMemoryTaskStore();
  const engine = new TaskEngine(store);
  const log = new InMemoryDeliveryLog();
  const api = new InspectorReadApi(store, log);
  const get = (path: string, query: Record<string, string> = {}, principal: Principal | AuthError = bob) =>
    api.handle({ method: 'GET', path, query, principal } satisfies ReadApiRequest);
  return { store, engine, log, api, get };
};

/** A task of bob's with `updates` progress reports after it started: 4 + updates events. */
const working = async (engine: TaskEngine, updates: number) => {
  const { head } = await engine.create({
    tenant: 'acme',
    owner: 'bob',
    // a requester names the skill in its message's metadata
    message: {
      messageId: crypto.randomUUID(),
      role: 'user',
      parts: [{ text: 'slow' }],
      metadata: { 'synapse.skill': 'slow' },
    },
  });
  let current = (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).head;
  for (let i = 1; i <= updates; i++)
    current = (await engine.apply(current, [{ type: 'status_update', progress: i % 100 }])).head;
  return current;
};

const attempt = (taskId: string, over: Partial<DeliveryAttempt>): DeliveryAttempt => ({
  tenant: 'acme',
  taskId,
  configId: 'hook',
  version: 1,
  redrive: 0,
  attempt: 1,
  status: 'sending',
  claim: 'c1',
  startedAt: '2026-12-05T10:00:00.000Z',
  keepUntil: '2027-01-05T10:00:00.000Z',
  ...over,
});

describe('GET /hub/me', () => {
  it('names the tenant, principal, rights and scheme of the credentials', async () => {
    const { get } = setup();
    const answer = await get('/me');
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.body as WhoAmI, {
      tenant: 'acme',
      principal: 'bob',
      rights: ['read', 'write'],
      scheme: 'api-key',
    });
  });

  it('refuses a request without credentials (401 with WWW-Authenticate) and one without the read right (403)', async () => {
    const { get } = setup();
    const anonymous = await get('/me', {}, new AuthError('unauthenticated', 'Send credentials'));
    assert.equal(anonymous.statusCode, 401);
    assert.match(anonymous.headers?.['www-authenticate'] ?? '', /Bearer/);
    assert.equal((anonymous.body as { error: { code: string } }).error.code, 'unauthenticated');
    const writer = await get('/me', {}, { ...bob, rights: ['write'] });
    assert.equal(writer.statusCode, 403);
  });
});

describe('GET /hub/tasks?ids=', () => {
  it("gives the facts of the caller's tasks among the ids, with the skill and text they were asked with; others left out", async () => {
    const { engine, get } = setup();
    const mine = await working(engine, 0);
    const long = await working(engine, 120);
    const { head: theirs } = await engine.create({ tenant: 'acme', owner: 'mallory' });
    const answer = await get('/tasks', {
      ids: [mine.taskId, long.taskId, theirs.taskId, 'nope', mine.taskId].join(','),
    });
    assert.equal(answer.statusCode, 200);
    const { tasks } = answer.body as TaskFactsList;
    assert.deepEqual(
      tasks.map((t) => [t.taskId, t.skill, t.request, t.state]),
      [
        [mine.taskId, 'slow', 'slow', 'executing'],
        // its first message is no longer in the task's item: read from its history
        [long.taskId, 'slow', 'slow', 'executing'],
      ],
    );
    assert.ok(tasks.every((t) => t.createdAt && t.deadlineAt));
  });

  it('refuses no ids or more than 50 (400)', async () => {
    const { get } = setup();
    for (const ids of [undefined, '', ',', Array.from({ length: 51 }, (_, i) => `t${i}`).join(',')]) {
      const answer = await get('/tasks', ids === undefined ? {} : { ids });
      assert.equal(answer.statusCode, 400, String(ids));
      assert.match((answer.body as { error: { message: string } }).error.message, /^ids:/);
    }
  });
});

describe('GET /hub/tasks/{id}/events', () => {
  it('pages through every event in order, with the task facts A2A does not show', async () => {
    const { engine, get } = setup();
    const head = await working(engine, 1200);
    const seen: number[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const answer = await get(`/tasks/${head.taskId}/events`, { after: String(after), limit: '1000' });
      assert.equal(answer.statusCode, 200);
      const page = answer.body as TaskEventsPage;
      assert.equal(page.task.taskId, head.taskId);
      seen.push(...page.events.map((e) => e.version));
      assert.ok(
        page.events.every((e) => !('tenant' in e)),
        'no tenant in an event',
      );
      after = page.nextAfter;
      pages++;
    }
    assert.equal(pages, 2);
    assert.deepEqual(
      seen,
      Array.from({ length: head.version }, (_, i) => i + 1),
    );
    const first = (await get(`/tasks/${head.taskId}/events`)).body as TaskEventsPage;
    assert.equal(first.events.length, 500, 'the default page');
    assert.deepEqual(
      [first.task.state, first.task.role, first.task.protocol, first.task.skill, first.task.version],
      ['executing', 'executor', 'a2a', 'slow', head.version],
    );
    assert.ok(first.task.deadlineAt > first.task.createdAt);
    assert.deepEqual(
      first.events.slice(0, 3).map((e) => [e.type, e.from, e.to]),
      [
        ['created', null, 'pending'],
        ['confirm', 'pending', 'confirmed'],
        ['start', 'confirmed', 'executing'],
      ],
    );
  });

  it("a later page reads the task's events once: what it was asked comes with the first page", async () => {
    const { store, engine, log } = setup();
    const head = await working(engine, 1200);
    let reads = 0;
    // the store with its reads of events counted (its methods called on the store itself)
    const counted = new Proxy(store, {
      get: (target, name) => {
        if (name === 'events') reads++;
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const api = new InspectorReadApi(counted, log);
    const later = await api.handle({
      method: 'GET',
      path: `/tasks/${head.taskId}/events`,
      query: { after: '500' },
      principal: bob,
    });
    const page = later.body as TaskEventsPage;
    assert.deepEqual([page.events[0]?.version, reads], [501, 1]);
    assert.equal(page.task.skill, undefined, 'not on a later page of an old task');
  });

  it('after the last version: no events and no next page', async () => {
    const { engine, get } = setup();
    const head = await working(engine, 0);
    const page = (await get(`/tasks/${head.taskId}/events`, { after: String(head.version) }))
      .body as TaskEventsPage;
    assert.deepEqual([page.events, page.nextAfter], [[], null]);
  });

  it('refuses a bad after or limit (400), naming it', async () => {
    const { engine, get } = setup();
    const head = await working(engine, 0);
    for (const query of <Record<string, string>[]>[
      { after: '-1' },
      { after: 'x' },
      { limit: '0' },
      { limit: '1001' },
      { limit: '1.5' },
    ]) {
      const answer = await get(`/tasks/${head.taskId}/events`, query);
      assert.equal(answer.statusCode, 400, JSON.stringify(query));
      assert.match((answer.body as { error: { message: string } }).error.message, /^(after|limit):/);
    }
  });

  it("another owner's task, another tenant's and a missing one are all not found (404)", async () => {
    const { engine, get } = setup();
    const head = await working(engine, 0);
    for (const principal of [
      { ...bob, owner: 'mallory' },
      { ...bob, tenant: 'other' },
    ]) {
      const answer = await get(`/tasks/${head.taskId}/events`, {}, principal);
      assert.equal(answer.statusCode, 404);
      assert.equal((answer.body as { error: { code: string } }).error.code, 'task_not_found');
    }
    assert.equal((await get('/tasks/nope/events')).statusCode, 404);
    assert.equal((await get('/tasks/%E0%A4%A/events')).statusCode, 404, 'a malformed escape');
  });
});

describe('GET /hub/tasks/{id}/deliveries', () => {
  it('lists every attempt without the tenant, claim or retention', async () => {
    const { engine, log, get } = setup();
    const head = await working(engine, 0);
    await log.claim(attempt(head.taskId, { attempt: 1 }));
    await log.finish(
      attempt(head.taskId, {
        attempt: 1,
        status: 'retrying',
        httpStatus: 500,
        retryInSeconds: 2,
        latencyMs: 12,
      }),
    );
    await log.claim(attempt(head.taskId, { attempt: 2 }));
    await log.finish(
      attempt(head.taskId, {
        attempt: 2,
        status: 'failed',
        httpStatus: 500,
        deadLetter: 'attempts_exhausted',
      }),
    );
    const body = (await get(`/tasks/${head.taskId}/deliveries`)).body as TaskDeliveries;
    assert.deepEqual(
      body.attempts.map((a) => [a.attempt, a.status, a.httpStatus, a.deadLetter]),
      [
        [1, 'retrying', 500, undefined],
        [2, 'failed', 500, 'attempts_exhausted'],
      ],
    );
    for (const a of body.attempts)
      for (const hidden of ['tenant', 'claim', 'keepUntil', 'taskId']) assert.ok(!(hidden in a), hidden);
  });
});

describe('GET /hub/tasks/{id}/peer-messages', () => {
  it("a requester task: what it sent the peer (with each message's attempts) and the peer's reports, in order", async () => {
    const { engine, log, get } = setup();
    const { head } = await engine.create({
      tenant: 'acme',
      owner: 'bob',
      role: 'requester',
      protocol: 'synapse',
      initialState: 'idle',
      message: { messageId: 'req-1', role: 'user', parts: [{ text: 'translate' }] },
      metadata: { 'synapse.peer': 'hub-b' },
    });
    const done = await engine.apply(head, [
      { type: 'submit' },
      { type: 'confirm', message: { ...agentMessage('ok'), messageId: 'peer-confirm' } },
      { type: 'start' },
      { type: 'need_info', message: agentMessage('which language?') },
    ]);
    await log.claim(attempt(head.taskId, { configId: SYNAPSE_CALLBACK_CONFIG_ID, version: 2 }));
    await log.finish(
      attempt(head.taskId, {
        configId: SYNAPSE_CALLBACK_CONFIG_ID,
        version: 2,
        status: 'delivered',
        httpStatus: 200,
      }),
    );
    const body = (await get(`/tasks/${head.taskId}/peer-messages`)).body as PeerMessages;
    assert.deepEqual([body.role, body.peer], ['requester', 'hub-b']);
    assert.deepEqual(
      body.messages.map((m) => [m.direction, m.type, m.version]),
      [
        ['sent', 'p2p:task_request', 2],
        ['received', 'p2p:task_confirm', 3],
        ['received', 'p2p:task_need_info', 5],
      ],
    );
    assert.equal(body.messages[0]?.messageId, `cb_${head.taskId.replace(/[^A-Za-z0-9_:-]/g, '_')}_2`);
    assert.deepEqual(
      body.messages[0]?.attempts?.map((a) => a.status),
      ['delivered'],
    );
    assert.equal(body.messages[1]?.messageId, 'peer-confirm');
    assert.equal(done.head.state, 'info_needed');
  });

  it("an executor task: the requester's request and answers received, the callbacks sent, in order", async () => {
    const { engine, get } = setup();
    const { head } = await engine.create({
      tenant: 'acme',
      owner: 'bob',
      role: 'executor',
      protocol: 'synapse',
      message: { messageId: 'p2p-request-1', role: 'user', parts: [{ text: 'ask' }] },
    });
    await engine.apply(head, [
      { type: 'confirm' },
      { type: 'start' },
      { type: 'need_info', message: agentMessage('what?') },
      { type: 'info_provided', message: { messageId: 'p2p-info-1', role: 'user', parts: [{ text: '42' }] } },
    ]);
    const body = (await get(`/tasks/${head.taskId}/peer-messages`)).body as PeerMessages;
    assert.deepEqual(
      body.messages.map((m) => [m.direction, m.type, m.messageId?.startsWith('cb_') ? 'cb' : m.messageId]),
      [
        ['received', 'p2p:task_request', 'p2p-request-1'],
        ['sent', 'p2p:task_confirm', 'cb'],
        ['sent', 'p2p:task_need_info', 'cb'],
        ['received', 'p2p:task_info_provided', 'p2p-info-1'],
      ],
    );
  });

  it('an A2A task has no peer messages', async () => {
    const { engine, get } = setup();
    const head = await working(engine, 1);
    const body = (await get(`/tasks/${head.taskId}/peer-messages`)).body as PeerMessages;
    assert.deepEqual(body.messages, []);
  });
});

describe('routes and methods', () => {
  it('an unknown route is 404, another method 405 with Allow: GET; nothing is written', async () => {
    const { engine, store, api, get } = setup();
    const head = await working(engine, 0);
    const before = JSON.stringify(await store.events((await store.get(head))!, 0));
    for (const path of [
      '',
      '/',
      `/tasks/${head.taskId}`,
      `/tasks/${head.taskId}/history`,
      `/tasks/${head.taskId}/events/x`,
      '/me/x',
    ])
      assert.equal((await get(path)).statusCode, 404, path);
    const post = await api.handle({
      method: 'POST',
      path: `/tasks/${head.taskId}/events`,
      query: {},
      principal: bob,
    });
    assert.deepEqual([post.statusCode, post.headers?.Allow], [405, 'GET']);
    assert.equal(JSON.stringify(await store.events((await store.get(head))!, 0)), before);
  });
});
