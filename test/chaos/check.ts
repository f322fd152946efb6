/**
 * After the workload, with the faults off: drain (every task terminal, the relay caught up, the queues
 * empty), then the invariants, read past the hubs straight from their tables (a plain DynamoDB client,
 * no fault layer), the push receiver and the callers' record:
 * - audit: each task's events are versions 1..n (the head's), each once, one `created`, nothing after the
 *   first terminal event, no user message applied twice, no first message that made two tasks;
 * - stuck: every task is terminal (expired by its deadline counts: the sweeper's `timeout` is terminal);
 * - push (A2A tasks): the terminal event was POSTed and answered 2xx at least once, and no event version
 *   came under two Idempotency-Keys; or that delivery is dead-lettered: in the delivery log with its reason
 *   (docs/deliveries.md), or its message is in the delivery DLQ;
 * - deliveries: no attempt is left `sending` (claimed, its outcome never written) unless its message is in
 *   the delivery DLQ (the consumer gave up on it, with why; or SQS moved it there after maxReceiveCount);
 * - Synapse: A's requester task ends in the state of B's executor task (its id derived as B derives it), or
 *   what would have made them agree is dead-lettered (checkSynapse says which cases); and no message
 *   between them was refused as unauthorized (401, 403: they share their keys);
 * - callers: no 5xx but 503 (nor a JSON-RPC internal error), and every messageId sent again got one task.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log.ts';
import { taskRefOfPk } from '../../shared/adapters/dynamodb/keys.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { DELIVERY_QUEUE, deadLetterName } from '../../shared/adapters/sqs/queues.ts';
import { synapseTaskId } from '../../shared/app/synapse/inbound.ts';
import { isTerminal } from '../../shared/domain/states.ts';
import type { TaskEvent, TaskHead } from '../../shared/domain/task.ts';
import type { TaskRef } from '../../shared/ports/task-store.ts';
import { queueDepth } from '../support/queue-depth.ts';
import type { WebhookReceiver } from '../support/webhook-receiver.ts';
import type { Observed } from './client.ts';
import type { ChaosHub } from './hubs.ts';
import type { HubName, Outcome } from './workload.ts';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** The queues whose work must be done at the end (dead-letter queues, the relay's failures and the registry's ticks are not). */
const DRAINED_QUEUES = ['executor', 'heartbeat', 'delivery'];

export type Category = 'lost' | 'duplicated' | 'stuck' | 'unexpected5xx' | 'audit' | 'mismatch';

export interface Failure {
  category: Category;
  hub?: HubName;
  taskId?: string;
  what: string;
}

export interface StoredTask {
  hub: HubName;
  head: TaskHead;
  events: TaskEvent[];
}

/** A delivery message in a hub's delivery DLQ, and why it is there. */
export interface DeadLetteredMessage {
  taskId: string;
  configId: string;
  version: number;
  attempt: number;
  redrive: number;
  /** The `reason` attribute: the worker's or the consumer's (sqs-batch.ts); none when SQS moved it itself. */
  reason?: string;
  error?: string;
  /** A p2p:heartbeat's message, not an event's. */
  heartbeat: boolean;
}

/** Why a dead-lettered message is there, in words. */
export const whyOf = (m: DeadLetteredMessage): string =>
  m.reason
    ? `${m.reason}${m.error ? `: ${m.error}` : ''}`
    : 'moved there by SQS, without a reason: its consumer did not live through its last receive';

export class HubReader {
  readonly client: DynamoDBClient;
  readonly store: DynamoTaskStore;
  readonly log: DynamoDeliveryLog;
  private readonly sqs: SQSClient;

  constructor(
    readonly name: HubName,
    readonly hub: ChaosHub,
  ) {
    this.client = new DynamoDBClient({ endpoint: hub.dynamoEndpoint, ...LOCAL });
    this.store = new DynamoTaskStore(this.client, { tableName: hub.tableName });
    this.log = new DynamoDeliveryLog(this.client, hub.tableName);
    this.sqs = new SQSClient({ endpoint: hub.sqsEndpoint, ...LOCAL });
  }

  /** Every task of the table (its task items). */
  async refs(): Promise<TaskRef[]> {
    const doc = DynamoDBDocumentClient.from(this.client);
    const refs: TaskRef[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName: this.hub.tableName,
          FilterExpression: 'sk = :t',
          ExpressionAttributeValues: { ':t': 'T' },
          ProjectionExpression: 'pk',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) refs.push(taskRefOfPk(String(item.pk)));
      start = page.LastEvaluatedKey;
    } while (start);
    return refs;
  }

  /**
   * Messages waiting, in flight or delayed, by queue: of the queues that must drain, or (`leftOver`) of
   * the dead-letter queues and the relay's failures, where what gave up is.
   */
  async queued(leftOver = false): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, url] of Object.entries(this.hub.queueUrls)) {
      const drained = DRAINED_QUEUES.includes(name);
      if (leftOver ? drained || name.startsWith('registry-probe') : !drained) continue;
      out[name] = await queueDepth(this.sqs, url);
    }
    return out;
  }

  private deadLettered?: DeadLetteredMessage[];

  /** The delivery DLQ's messages, read once (taken in flight for an hour: the check reads them once). */
  async deadLetters(): Promise<DeadLetteredMessage[]> {
    if (this.deadLettered) return this.deadLettered;
    const url = this.hub.queueUrls[deadLetterName(DELIVERY_QUEUE)]!;
    const out: DeadLetteredMessage[] = [];
    for (;;) {
      const { Messages = [] } = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 3600,
          MessageAttributeNames: ['All'],
        }),
      );
      if (Messages.length === 0) break;
      for (const m of Messages) {
        const body = JSON.parse(m.Body ?? '{}');
        out.push({
          taskId: body.taskId,
          configId: body.configId,
          version: body.version,
          attempt: body.attempt,
          redrive: body.redrive ?? 0,
          ...(m.MessageAttributes?.reason?.StringValue
            ? { reason: m.MessageAttributes.reason.StringValue }
            : {}),
          ...(m.MessageAttributes?.error?.StringValue
            ? { error: m.MessageAttributes.error.StringValue }
            : {}),
          heartbeat: body.heartbeat !== undefined,
        });
      }
    }
    this.deadLettered = out;
    return out;
  }

  /** The DLQ's messages of one task's events. */
  async deadLettersOf(taskId: string): Promise<DeadLetteredMessage[]> {
    return (await this.deadLetters()).filter((m) => m.taskId === taskId && !m.heartbeat);
  }

  async read(): Promise<StoredTask[]> {
    const out: StoredTask[] = [];
    for (const ref of await this.refs()) {
      const record = await this.store.get(ref);
      if (!record) continue;
      out.push({ hub: this.name, head: record.head, events: await this.store.events(record, 0) });
    }
    return out;
  }

  close(): void {
    this.client.destroy();
    this.sqs.destroy();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until every task of both tables is terminal, both relays have caught up and the queues are empty,
 * twice in a row; gives up after `boundMs`. Returns how long it took, and whether it drained.
 */
export const drain = async (
  readers: readonly HubReader[],
  boundMs: number,
  say: (text: string) => void,
): Promise<{ drained: boolean; ms: number }> => {
  const start = Date.now();
  let calm = 0;
  let lastSaid = 0;
  for (;;) {
    await Promise.all(readers.map((r) => r.hub.command('caught-up')));
    let live = 0;
    let queued = 0;
    const where: string[] = [];
    for (const r of readers) {
      for (const [name, n] of Object.entries(await r.queued())) {
        queued += n;
        if (n > 0) where.push(`${r.name} ${name} ${n}`);
      }
      for (const ref of await r.refs()) {
        const record = await r.store.get(ref);
        if (record && !isTerminal(record.head.state)) live++;
      }
    }
    calm = live === 0 && queued === 0 ? calm + 1 : 0;
    if (calm >= 2) return { drained: true, ms: Date.now() - start };
    if (Date.now() - start > boundMs) return { drained: false, ms: Date.now() - start };
    if (Date.now() - lastSaid > 5000) {
      say(`draining: ${live} task(s) not finished, ${queued} message(s) queued (${where.join(', ')})`);
      lastSaid = Date.now();
    }
    await sleep(500);
  }
};

/** The partition's own audit: versions 1..n once each, nothing after the terminal event. */
const audit = (t: StoredTask): Failure[] => {
  const failures: Failure[] = [];
  const at = { hub: t.hub, taskId: t.head.taskId };
  const versions = t.events.map((e) => e.version);
  const seen = new Set<number>();
  for (const v of versions) {
    if (seen.has(v)) failures.push({ ...at, category: 'duplicated', what: `event version ${v} twice` });
    seen.add(v);
  }
  for (let v = 1; v <= t.head.version; v++)
    if (!seen.has(v)) failures.push({ ...at, category: 'lost', what: `event version ${v} missing` });
  if (versions.some((v) => v > t.head.version))
    failures.push({ ...at, category: 'audit', what: `events past the head's version ${t.head.version}` });
  const terminal = t.events.filter((e) => isTerminal(e.to));
  const last = t.events[t.events.length - 1];
  if (terminal.length > 1)
    failures.push({
      ...at,
      category: 'audit',
      what: `${terminal.length} terminal events (${terminal.map((e) => `${e.version}:${e.type}`).join(', ')})`,
    });
  if (terminal.length >= 1 && last && terminal[0] !== last)
    failures.push({
      ...at,
      category: 'audit',
      what: `events after the terminal one (${terminal[0]!.version}:${terminal[0]!.type}, last ${last.version}:${last.type})`,
    });
  if (!isTerminal(t.head.state))
    failures.push({ ...at, category: 'stuck', what: `still ${t.head.state} (version ${t.head.version})` });
  const created = t.events.filter((e) => e.type === 'created').length;
  if (created !== 1) failures.push({ ...at, category: 'audit', what: `${created} created events` });
  // a user's message applied twice
  const userMessages = new Map<string, number>();
  for (const e of t.events)
    if (e.message?.role === 'user')
      userMessages.set(e.message.messageId, (userMessages.get(e.message.messageId) ?? 0) + 1);
  for (const [id, n] of userMessages)
    if (n > 1) failures.push({ ...at, category: 'duplicated', what: `message ${id} applied ${n} times` });
  return failures;
};

export interface Report {
  failures: Failure[];
  /** Lines that explain without failing: dead-lettered pushes, expected expiries, outcomes. */
  notes: string[];
  /** Final state of the workload's tasks, by kind. */
  outcomes: Map<string, Map<string, number>>;
}

const EXPECTED: Record<string, readonly string[]> = {
  hello: ['completed'],
  cancel: ['cancelled', 'completed'],
  ask: ['completed'],
  approve: ['completed', 'rejected'],
  chunks: ['completed'],
  fail: ['failed'],
  timeout: ['failed'],
  'synapse-normal': ['completed'],
  'synapse-info': ['completed'],
  'synapse-human': ['completed', 'rejected'],
  'synapse-cancel': ['cancelled'],
};

export const check = async (input: {
  readers: Record<HubName, HubReader>;
  outcomes: readonly Outcome[];
  receiver: WebhookReceiver;
  observed: Observed;
}): Promise<Report> => {
  const { readers, outcomes, receiver, observed } = input;
  const failures: Failure[] = [];
  const notes: string[] = [];
  const stored = new Map<HubName, Map<string, StoredTask>>();
  for (const name of ['A', 'B'] as const) {
    const tasks = await readers[name].read();
    stored.set(name, new Map(tasks.map((t) => [`${t.head.tenant}/${t.head.taskId}`, t])));
    for (const t of tasks) {
      const found = audit(t);
      // what a stuck task last did, and what its deliveries did: where to look
      for (const f of found.filter((x) => x.category === 'stuck')) {
        const last = t.events[t.events.length - 1];
        const log = await readers[name].log.list(t.head.tenant, t.head.taskId);
        f.what += `; last event ${last?.version}:${last?.type} at ${last?.at}; deliveries: ${
          log.map((a) => `v${a.version} ${a.redrive}.${a.attempt} ${a.status}`).join(', ') || 'none'
        }`;
      }
      failures.push(...found);
      failures.push(...(await checkStranded(readers[name], t, notes)));
    }
    // one task per first message, across the table
    const byMessage = new Map<string, string[]>();
    for (const t of tasks) {
      const first = t.events.find((e) => e.message?.role === 'user')?.message?.messageId;
      if (!first) continue;
      const key = `${t.head.tenant}/${first}`;
      byMessage.set(key, [...(byMessage.get(key) ?? []), t.head.taskId]);
    }
    for (const [key, ids] of byMessage)
      if (ids.length > 1)
        failures.push({
          hub: name,
          taskId: ids.join(','),
          category: 'duplicated',
          what: `message ${key} made ${ids.length} tasks`,
        });
  }
  const find = (hub: HubName, tenant: string, taskId: string) => stored.get(hub)?.get(`${tenant}/${taskId}`);

  // the callers: every retried messageId answered with one task
  for (const [messageId, ids] of observed.retriedMessages)
    if (ids.size > 1)
      failures.push({
        category: 'duplicated',
        taskId: [...ids].join(','),
        what: `retried message ${messageId} answered with ${ids.size} tasks`,
      });
  for (const u of observed.unexpected5xx)
    failures.push({ category: 'unexpected5xx', what: `${u.status} for ${u.what}: ${u.body}` });

  const finals = new Map<string, Map<string, number>>();
  for (const out of outcomes) {
    const tenant = 'default';
    const task = out.taskId ? find(out.hub, tenant, out.taskId) : undefined;
    if (out.taskId && !task) {
      failures.push({
        category: 'lost',
        hub: out.hub,
        taskId: out.taskId,
        what: `answered to the caller (${out.kind}) but not in the table`,
      });
      continue;
    }
    const state = task?.head.state ?? (out.note ? 'no task' : 'unknown');
    const byKind = finals.get(out.kind) ?? new Map<string, number>();
    byKind.set(state, (byKind.get(state) ?? 0) + 1);
    finals.set(out.kind, byKind);
    if (!task) {
      notes.push(`#${out.index} ${out.kind} at ${out.hub}: no task id (${out.note ?? 'no answer'})`);
      continue;
    }
    if (!EXPECTED[out.kind]!.includes(task.head.state)) {
      const end = task.events[task.events.length - 1];
      notes.push(
        `#${out.index} ${out.kind} at ${out.hub} ended ${task.head.state} (${end?.type}` +
          `${end?.reason ? `: ${end.reason.code} ${end.reason.message ?? ''}` : ''})` +
          ` task ${task.head.taskId}${out.note ? `; flow: ${out.note}` : ''}`,
      );
    }

    if (out.hook && isTerminal(task.head.state))
      failures.push(...(await checkPush(readers[out.hub], task, receiver, out.hook, notes)));

    if (out.kind.startsWith('synapse-'))
      failures.push(...(await checkSynapse(readers, task, (h, id) => find(h, 'partners', id), notes)));
  }
  return { failures, notes, outcomes: finals };
};

/**
 * The receiver saw the task's final state in effect once: the terminal event's POSTs answered 2xx at least
 * once, and no event version came under two Idempotency-Keys; or the delivery log shows it dead-lettered.
 */
const checkPush = async (
  reader: HubReader,
  task: StoredTask,
  receiver: WebhookReceiver,
  hook: string,
  notes: string[],
): Promise<Failure[]> => {
  const at = { hub: reader.name, taskId: task.head.taskId };
  const failures: Failure[] = [];
  const received = receiver.received(hook);
  const keys = new Map<string, Set<string>>();
  for (const r of received) {
    const version = String(r.headers['a2a-event-version']);
    const set = keys.get(version) ?? new Set<string>();
    set.add(String(r.headers['idempotency-key']));
    keys.set(version, set);
  }
  for (const [version, set] of keys)
    if (set.size > 1)
      failures.push({
        ...at,
        category: 'duplicated',
        what: `event ${version} pushed under ${set.size} keys`,
      });
  const final = task.events.find((e) => isTerminal(e.to));
  if (!final) return failures;
  const delivered = received.some(
    (r) => String(r.headers['a2a-event-version']) === String(final.version) && r.status < 300,
  );
  if (delivered) return failures;
  const attempts = (await reader.log.list(task.head.tenant, task.head.taskId)).filter(
    (a) => a.version === final.version,
  );
  const deadLettered = attempts.find((a) => a.deadLetter);
  if (deadLettered) {
    notes.push(
      `task ${task.head.taskId} at ${reader.name}: its final push dead-lettered (${deadLettered.deadLetter}, ${deadLettered.error ?? deadLettered.status})`,
    );
    return failures;
  }
  const inDlq = (await reader.deadLettersOf(task.head.taskId)).find((m) => m.version === final.version);
  if (inDlq) {
    notes.push(`task ${task.head.taskId} at ${reader.name}: its final push is in the DLQ (${whyOf(inDlq)})`);
    return failures;
  }
  failures.push({
    ...at,
    category: 'lost',
    what: `final state ${task.head.state} (event ${final.version}) never pushed; log: ${
      attempts.map((a) => `${a.redrive}.${a.attempt} ${a.status}`).join(', ') || 'no attempt'
    }`,
  });
  return failures;
};

/**
 * No delivery attempt of the task is left claimed (`sending`) with its message gone: each such message is
 * in the delivery DLQ (noted, with why), or the attempt is lost.
 */
const checkStranded = async (reader: HubReader, task: StoredTask, notes: string[]): Promise<Failure[]> => {
  const sending = (await reader.log.list(task.head.tenant, task.head.taskId)).filter(
    (a) => a.status === 'sending',
  );
  if (sending.length === 0) return [];
  const dlq = await reader.deadLettersOf(task.head.taskId);
  const failures: Failure[] = [];
  for (const a of sending) {
    const found = dlq.find(
      (m) =>
        m.configId === a.configId &&
        m.version === a.version &&
        m.attempt === a.attempt &&
        m.redrive === a.redrive,
    );
    const what = `delivery v${a.version} ${a.redrive}.${a.attempt} to ${a.configId} claimed at ${a.startedAt}`;
    if (found)
      notes.push(`task ${task.head.taskId} at ${reader.name}: ${what} is in the DLQ (${whyOf(found)})`);
    else
      failures.push({
        hub: reader.name,
        taskId: task.head.taskId,
        category: 'lost',
        what: `${what} left sending: its outcome never written, its message neither queued nor in the DLQ`,
      });
  }
  return failures;
};

/**
 * A's requester task ends in the state of B's executor task. Or both ended, each on its own, and their
 * final messages crossed: the one that came second was refused as too late (409 task_already_completed)
 * and is dead-lettered at its sender with that reason (a cancel that crossed the completion; a peer taken
 * for lost that finished anyway): each side's final state reached the other or its DLQ
 * (docs/reliability.md#push-receivers-and-synapse-peers). Noted, not a failure. Anything else is.
 */
const checkSynapse = async (
  readers: Record<HubName, HubReader>,
  requester: StoredTask,
  atB: (hub: HubName, id: string) => StoredTask | undefined,
  notes: string[],
): Promise<Failure[]> => {
  const idAtB = synapseTaskId('partners', 'hub-a', requester.head.taskId);
  const executor = atB('B', idAtB);
  const a = requester.head.state;
  const b = executor?.head.state;
  const logA = await readers.A.log.list(requester.head.tenant, requester.head.taskId);
  const logB = executor ? await readers.B.log.list(executor.head.tenant, executor.head.taskId) : [];
  // the two hubs share their keys: a message one refused as unauthorized is a fault of the hubs, never of
  // the run, whatever the pair's states
  const both = [...logA.map((x) => ({ hub: 'A', ...x })), ...logB.map((x) => ({ hub: 'B', ...x }))];
  const unauthorized = both.filter((x) => x.httpStatus === 401 || x.httpStatus === 403);
  if (unauthorized.length > 0)
    return [
      {
        hub: 'A',
        taskId: requester.head.taskId,
        category: 'lost',
        what: `refused as unauthorized between the hubs: ${unauthorized
          .map((x) => `${x.hub} v${x.version} ${x.redrive}.${x.attempt} ${x.error ?? x.httpStatus}`)
          .join('; ')}; every attempt of those versions: ${both
          .filter((x) => unauthorized.some((u) => u.hub === x.hub && u.version === x.version))
          .map(
            (x) =>
              `${x.hub} v${x.version} ${x.redrive}.${x.attempt} ${x.status}${x.httpStatus ? ` ${x.httpStatus}` : ''} claimed ${x.startedAt} by ${x.claim} finished ${x.finishedAt ?? '-'}`,
          )
          .join('; ')}`,
      },
    ];
  if (a === b) return [];
  const finalOf = (t: StoredTask | undefined) => t?.events.find((e) => isTerminal(e.to))?.version;
  const refusedAsLate = (log: typeof logA, version: number | undefined) =>
    // the final event's message, or one after it (a report that followed it)
    version !== undefined && log.some((x) => x.version >= version && x.deadLetter && x.httpStatus === 409);
  if (
    executor &&
    b !== undefined &&
    isTerminal(a) &&
    isTerminal(b) &&
    (refusedAsLate(logA, finalOf(requester)) || refusedAsLate(logB, finalOf(executor)))
  ) {
    notes.push(
      `crossed: task ${requester.head.taskId} ${a} at A, ${b} at B; the later final message refused (409) and dead-lettered`,
    );
    return [];
  }
  // A gave up on B (its deadline passed, or it took B for lost) and told B to cancel: B cancelled at A's word
  const finalA = finalOf(requester);
  if (
    executor &&
    a === 'failed' &&
    b === 'cancelled' &&
    logA.some((x) => x.version === finalA && x.status === 'delivered')
  ) {
    const reason = requester.events.find((e) => e.version === finalA)?.reason?.code;
    notes.push(`gave up: task ${requester.head.taskId} failed at A (${reason}), cancelled at B at A's word`);
    return [];
  }
  // what would have made them agree went to a DLQ: a final message of either side, or one after it, in the
  // sender's delivery log with its reason or in its delivery DLQ
  const finalB = finalOf(executor);
  const dlqA = (await readers.A.deadLettersOf(requester.head.taskId)).filter(
    (m) => m.version >= (finalA ?? 0),
  );
  const dlqB = executor
    ? (await readers.B.deadLettersOf(executor.head.taskId)).filter((m) => m.version >= (finalB ?? 0))
    : [];
  const finalsDeadLettered = [
    ...logA
      .filter((x) => x.deadLetter && finalA !== undefined && x.version >= finalA)
      .map((x) => `A v${x.version} ${x.deadLetter} (${x.error ?? x.status})`),
    ...logB
      .filter((x) => x.deadLetter && finalB !== undefined && x.version >= finalB)
      .map((x) => `B v${x.version} ${x.deadLetter} (${x.error ?? x.status})`),
    ...dlqA.map((m) => `A v${m.version} in the DLQ (${whyOf(m)})`),
    ...dlqB.map((m) => `B v${m.version} in the DLQ (${whyOf(m)})`),
  ];
  if (isTerminal(a) && (b === undefined || isTerminal(b)) && finalsDeadLettered.length > 0) {
    notes.push(
      `dead-lettered: task ${requester.head.taskId} ${a} at A, ${b ?? 'missing'} at B; ${finalsDeadLettered.join('; ')}`,
    );
    return [];
  }
  const deadLettered = both
    .filter((x) => x.deadLetter)
    .map((x) => `${x.hub} v${x.version} ${x.deadLetter} (${x.error ?? x.status})`);
  // times of day (HH:MM:SS.mmm): enough to see which came first
  const time = (iso: string | undefined) => iso?.slice(11, 23) ?? '?';
  const events = (t: StoredTask | undefined) =>
    t
      ? t.events
          .filter((e) => e.type !== 'status_update')
          .map((e) => `${e.version}:${e.type}${e.reason ? `(${e.reason.code})` : ''}@${time(e.at)}`)
          .join(' ')
      : '-';
  // the deliveries of the events shown, and any other that did not simply go through
  const shown = (t: StoredTask | undefined) =>
    new Set(t?.events.filter((e) => e.type !== 'status_update').map((e) => e.version));
  const deliveries = (log: typeof logA, t: StoredTask | undefined) =>
    log
      .filter((x) => shown(t).has(x.version) || x.status !== 'delivered')
      .map(
        (x) =>
          `v${x.version} ${x.redrive}.${x.attempt} ${x.status}${x.httpStatus ? ` ${x.httpStatus}` : ''}@${time(x.startedAt)}`,
      );
  const what = `requester ${a} at A, executor ${b ?? 'missing'} at B (${idAtB})${
    deadLettered.length > 0 ? `; dead-lettered: ${deadLettered.join('; ')}` : ''
  }; A events: ${events(requester)}; A deliveries: ${deliveries(logA, requester).join(', ')}; B events: ${events(
    executor,
  )}; B deliveries: ${deliveries(logB, executor).join(', ')}`;
  return [{ hub: 'A', taskId: requester.head.taskId, category: 'mismatch', what }];
};
