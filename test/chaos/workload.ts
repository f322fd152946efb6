/**
 * The chaos run's workload: tasks of every demo kind (agents/demo/index.ts) over both A2A bindings and
 * both hubs, some streamed, each with an inline push config to the run's receiver; Synapse delegations
 * from hub A to hub B (the four flows of docs/synapse-protocol.md); and tasks left to time out. Which
 * task is which, and every choice in its flow, comes from the run's seed.
 */
import { seededGenerator } from '../../local/faults/layer.ts';
import { type Observed, request, type StreamAnswer, stream } from './client.ts';

/** Each kind of task, its weight in the mix. */
export const KINDS = {
  hello: 14,
  /** `slow 2`, cancelled once working */
  cancel: 9,
  /** `ask`, answered once input-required */
  ask: 10,
  /** `approve`, approved or rejected once input-required */
  approve: 10,
  /** `chunks 3`, always streamed */
  chunks: 10,
  fail: 7,
  /** `ask` with a 3 s deadline, never answered: the sweeper expires it */
  timeout: 7,
  'synapse-normal': 9,
  /** `slow` without a duration at B: B asks, A's owner answers */
  'synapse-info': 8,
  /** `approve` at B: A's owner decides */
  'synapse-human': 8,
  /** `slow 20` at B, cancelled at A */
  'synapse-cancel': 8,
} as const;
export type Kind = keyof typeof KINDS;

export const TIMEOUT_DEADLINE_SECONDS = 3;

export type HubName = 'A' | 'B';
export type Binding = 'jsonrpc' | 'rest';

export interface Planned {
  index: number;
  kind: Kind;
  /** Where it is sent (Synapse flows: always A, which delegates to B). */
  hub: HubName;
  binding: Binding;
  streamed: boolean;
  /** approve: the decision given. */
  decision?: 'approve' | 'reject';
  /** The receiver's path of its inline push config (A2A tasks). */
  hook?: string;
}

export interface Outcome extends Planned {
  taskId?: string;
  /** Every messageId it sent (the first makes the task). */
  messageIds: string[];
  /** What went wrong in the flow itself (a wait that ran out, a refusal). */
  note?: string;
  /** The last state a stream showed, if it was streamed. */
  streamedState?: string;
}

export const plan = (seed: number, tasks: number): Planned[] => {
  const random = seededGenerator(seed);
  const kinds = Object.entries(KINDS) as [Kind, number][];
  const total = kinds.reduce((s, [, w]) => s + w, 0);
  return Array.from({ length: tasks }, (_, index) => {
    let u = random() * total;
    let kind: Kind = 'hello';
    for (const [k, w] of kinds) {
      if (u < w) {
        kind = k;
        break;
      }
      u -= w;
    }
    const synapse = kind.startsWith('synapse-');
    const hub: HubName = synapse || random() < 0.5 ? 'A' : 'B';
    const binding: Binding = random() < 0.5 ? 'jsonrpc' : 'rest';
    const streamed = kind === 'chunks' || ((kind === 'hello' || kind === 'fail') && random() < 0.3);
    const decision = random() < 0.5 ? 'approve' : 'reject';
    return {
      index,
      kind,
      hub,
      binding,
      streamed,
      ...(kind === 'approve' || kind === 'synapse-human' ? { decision } : {}),
      ...(synapse ? {} : { hook: `/task-${index}` }),
    } satisfies Planned;
  });
};

export interface Targets {
  urls: Record<HubName, string>;
  /** The push receiver's URL of a path. */
  hookUrl: (path: string) => string;
  observed: Observed;
}

const TERMINAL = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
const POLL_MS = 250;
/**
 * How long a flow waits for the state it acts on: past the 60 s a delivery whose worker died after its
 * claim stays `sending` before the next attempt goes (docs/deliveries.md), which a Synapse message may wait.
 */
const WAIT_MS = 150_000;

interface A2ATask {
  id: string;
  status?: { state?: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One task's flow, its outcome recorded in `out` as it goes. */
export const runFlow = async (t: Targets, p: Planned, out: Outcome): Promise<void> => {
  const base = t.urls[p.hub];
  const o = t.observed;

  /** A JSON-RPC error of code -32603 (internal) is a 500 in all but its HTTP status. */
  const internalInBody = (body: unknown, what: string) => {
    const error = (body as { error?: { code?: number; status?: string } } | undefined)?.error;
    if (error && (error.code === -32603 || error.status === 'INTERNAL'))
      o.unexpected5xx.push({ status: 500, what: `${what} (in the body)`, body: JSON.stringify(error) });
  };

  /** How many times the last request was sent. */
  let lastSends = 0;
  const a2a = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    if (p.binding === 'jsonrpc') {
      const answer = await request(o, `${base}/a2a/jsonrpc`, {
        method: 'POST',
        body: { jsonrpc: '2.0', id: 1, method, params },
      });
      lastSends = answer.sends;
      internalInBody(answer.body, method);
      const body = answer.body as { result?: unknown; error?: { code: number; message: string } };
      if (body?.error)
        throw new Error(`${method}: ${answer.status} ${body.error.code} ${body.error.message}`);
      return body?.result;
    }
    const id = encodeURIComponent(String(params.id ?? ''));
    const route: Record<string, [string, string]> = {
      SendMessage: ['POST', '/message:send'],
      GetTask: ['GET', `/tasks/${id}`],
      CancelTask: ['POST', `/tasks/${id}:cancel`],
    };
    const [verb, path] = route[method]!;
    const answer = await request(o, `${base}/a2a/rest${path}`, {
      method: verb,
      ...(verb === 'POST' ? { body: method === 'CancelTask' ? {} : params } : {}),
    });
    lastSends = answer.sends;
    internalInBody(answer.body, method);
    if (answer.status >= 300)
      throw new Error(`${method}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
    return answer.body;
  };

  const message = (text: string, extra: Record<string, unknown> = {}) => {
    const messageId = crypto.randomUUID();
    out.messageIds.push(messageId);
    return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
  };

  const send = async (text: string, metadata?: Record<string, unknown>): Promise<A2ATask> => {
    const m = message(text, metadata ? { metadata } : {});
    const params = {
      message: m,
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: t.hookUrl(p.hook!), token: `tok-${p.index}` },
      },
    };
    const result = (await a2a('SendMessage', params)) as { task?: A2ATask };
    if (!result?.task) throw new Error(`SendMessage answered no task: ${JSON.stringify(result)}`);
    if (lastSends > 1) o.answeredRetried(m.messageId, result.task.id);
    out.taskId = result.task.id;
    return result.task;
  };

  const streamed = async (text: string): Promise<void> => {
    const m = message(text);
    const params = {
      message: m,
      configuration: { taskPushNotificationConfig: { url: t.hookUrl(p.hook!), token: `tok-${p.index}` } },
    };
    const answer: StreamAnswer =
      p.binding === 'jsonrpc'
        ? await stream(o, `${base}/a2a/jsonrpc`, {
            jsonrpc: '2.0',
            id: 1,
            method: 'SendStreamingMessage',
            params,
          })
        : await stream(o, `${base}/a2a/rest/message:stream`, params);
    if (answer.events.length === 0) {
      internalInBody(answer.body, 'SendStreamingMessage');
      throw new Error(`stream refused: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
    }
    for (const e of answer.events) {
      const data = e.data as Record<string, unknown>;
      const result = (p.binding === 'jsonrpc' ? data.result : e.event === 'error' ? undefined : data) as
        | {
            task?: A2ATask;
            statusUpdate?: { taskId: string; status?: { state?: string } };
          }
        | undefined;
      if (e.event === 'error' || data.error) {
        internalInBody(data, 'SendStreamingMessage (in the stream)');
        out.note = `stream ended with an error: ${JSON.stringify(data.error ?? data).slice(0, 200)}`;
        continue;
      }
      if (result?.task) {
        out.taskId = result.task.id;
        out.streamedState = result.task.status?.state;
      }
      if (result?.statusUpdate) out.streamedState = result.statusUpdate.status?.state;
    }
    if (answer.sends > 1) o.answeredRetried(m.messageId, out.taskId);
  };

  const stateOf = async (id: string): Promise<string | undefined> =>
    ((await a2a('GetTask', { id })) as A2ATask | undefined)?.status?.state;

  const waitFor = async (id: string, states: readonly string[]): Promise<string> => {
    const until = Date.now() + WAIT_MS;
    for (;;) {
      const state = await stateOf(id);
      if (state && (states.includes(state) || TERMINAL.includes(state))) return state;
      if (Date.now() > until) throw new Error(`waited in vain for ${states.join('|')}: ${state}`);
      await sleep(POLL_MS);
    }
  };

  /** A follow-up message to the task (an answer), sent again on 503 with the same messageId. */
  const reply = async (id: string, text: string) => {
    const m = message(text, { taskId: id });
    await a2a('SendMessage', { message: m, configuration: { returnImmediately: true } });
  };

  // ---- Synapse, through hub A's requester API ----
  const api = async (method: string, path: string, body?: unknown) => {
    const answer = await request(o, `${t.urls.A}/synapse/tasks${path}`, {
      method,
      ...(body !== undefined ? { body } : {}),
    });
    lastSends = answer.sends;
    if (answer.status >= 300)
      throw new Error(`${method} /synapse/tasks${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as { task: A2ATask; synapse: { state: string } };
  };
  const delegate = async (type: string, text: string) => {
    const messageId = crypto.randomUUID();
    out.messageIds.push(messageId);
    const made = await api('POST', '', { peer: 'hub-b', type, text, messageId });
    if (lastSends > 1) o.answeredRetried(messageId, made.task.id);
    out.taskId = made.task.id;
    return made.task.id;
  };
  const synapseWait = async (id: string, states: readonly string[]) => {
    const until = Date.now() + WAIT_MS;
    for (;;) {
      const state = (await api('GET', `/${id}`)).synapse.state;
      if (states.includes(state) || ['completed', 'failed', 'cancelled', 'rejected'].includes(state))
        return state;
      if (Date.now() > until) throw new Error(`waited in vain for ${states.join('|')}: ${state}`);
      await sleep(POLL_MS);
    }
  };

  switch (p.kind) {
    case 'hello':
    case 'fail': {
      const text = p.kind === 'hello' ? `hello ${p.index}` : 'fail';
      if (p.streamed) await streamed(text);
      else await send(text);
      return;
    }
    case 'chunks':
      await streamed('chunks 3');
      return;
    case 'cancel': {
      const task = await send('slow 2');
      if ((await waitFor(task.id, ['TASK_STATE_WORKING'])) !== 'TASK_STATE_WORKING') return;
      try {
        await a2a('CancelTask', { id: task.id });
      } catch (e) {
        // it finished first: not cancelable any more
        out.note = `cancel refused: ${(e as Error).message}`;
      }
      return;
    }
    case 'ask': {
      const task = await send('ask');
      if ((await waitFor(task.id, ['TASK_STATE_INPUT_REQUIRED'])) !== 'TASK_STATE_INPUT_REQUIRED') return;
      await reply(task.id, `forty-${p.index}`);
      return;
    }
    case 'approve': {
      const task = await send('approve');
      if ((await waitFor(task.id, ['TASK_STATE_INPUT_REQUIRED'])) !== 'TASK_STATE_INPUT_REQUIRED') return;
      await reply(task.id, `${p.decision} chaos ${p.index}`);
      return;
    }
    case 'timeout':
      await send('ask', { 'synapse.deadlineSeconds': TIMEOUT_DEADLINE_SECONDS });
      return;
    case 'synapse-normal':
      await delegate('echo', `echo chaos ${p.index}`);
      return;
    case 'synapse-info': {
      const id = await delegate('slow', 'slow');
      if ((await synapseWait(id, ['info_needed'])) !== 'info_needed') return;
      // with a messageId, as a client that sends again on 503 does: a retry of an answer applied is that answer
      await api('POST', `/${id}/answer`, { fields: { seconds: 1 }, messageId: crypto.randomUUID() });
      return;
    }
    case 'synapse-human': {
      const id = await delegate('approve', 'approve');
      if ((await synapseWait(id, ['need_human'])) !== 'need_human') return;
      await api('POST', `/${id}/answer`, {
        decision: p.decision,
        notes: `chaos ${p.index}`,
        decidedBy: { userId: 'chaos', userName: 'Chaos run' },
        messageId: crypto.randomUUID(),
      });
      return;
    }
    case 'synapse-cancel': {
      const id = await delegate('slow', 'slow 20');
      await synapseWait(id, ['confirmed', 'executing']);
      await api('POST', `/${id}/cancel`);
      return;
    }
  }
};

/** Runs every planned flow, at most `concurrency` at once; each outcome whatever happened. */
export const runWorkload = async (
  t: Targets,
  planned: readonly Planned[],
  concurrency: number,
  onDone?: (done: number) => void,
): Promise<Outcome[]> => {
  const outcomes: Outcome[] = planned.map((p) => ({ ...p, messageIds: [] }));
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= planned.length) return;
      const out = outcomes[i]!;
      try {
        await runFlow(t, planned[i]!, out);
      } catch (e) {
        out.note = (e as Error).message;
      }
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, planned.length) }, worker));
  return outcomes;
};
