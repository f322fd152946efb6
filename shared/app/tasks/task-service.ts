/**
 * Use cases a requester drives (the A2A handler, Synapse inbound in ../synapse/inbound.ts, the Synapse
 * requester's API in ../synapse/tasks-api.ts): submit a task, continue it with a message, cancel it,
 * read and list tasks, and wait for a task to settle. Every read and write is scoped to the caller
 * (tenant + owner); another caller's task is "not found".
 *
 * Nothing here hands work to the executor: the table's stream is the outbox,
 * and the relay enqueues a run for every committed change that leaves a task
 * waiting for one. A blocking send with an agent at hand runs it inline.
 */

import type { Resumption } from '../../agent/api.ts';
import { textOf } from '../../agent/api.ts';
import type { Caller } from '../../domain/caller.ts';
import {
  GenerationMismatchError,
  InvalidTransitionError,
  TaskNotCancelableError,
  TaskNotFoundError,
  ValidationError,
} from '../../domain/errors.ts';
import { isInterrupted, isTerminal, type SynapseState } from '../../domain/states.ts';
import {
  type EventDraft,
  isWellFormed,
  MAX_ID_LENGTH,
  type Message,
  type TaskHead,
  type TaskProtocol,
  type TaskView,
} from '../../domain/task.ts';
import type { PushConfigStore } from '../../ports/push-config-store.ts';
import {
  type ListTasksPage,
  type ListTasksQuery,
  MessageAnsweredError,
  type ReadOptions,
  type TaskRecord,
  type TaskRef,
  type TaskStore,
} from '../../ports/task-store.ts';
import {
  type InlinePushConfig,
  keepUntilOf,
  MAX_PUSH_CONFIGS_PER_TASK,
  storedConfig,
} from '../push/push-configs.ts';
import type { RemoteRoute } from '../synapse/remote-skills.ts';
import type { SynapseRequester } from '../synapse/requester.ts';
import type { TaskExecutor } from './executor.ts';
import { DEFAULT_TASK_TIMEOUT_SECONDS, messageKey, type TaskEngine } from './task-engine.ts';

/** The bridge to Synapse: which new messages go to a remote executor, and who delegates them. */
export interface RemoteExecution {
  /** The peer a new message of `caller` goes to (../synapse/remote-skills.ts), or undefined: done here. */
  route(caller: Caller, message: Message): Promise<RemoteRoute | undefined>;
  requester: Pick<SynapseRequester, 'delegate'>;
}

export interface SubmitResult {
  record: TaskRecord;
  head: TaskHead;
  duplicate: boolean;
}

/** What a new message got: a task (made now or before), or the agent's reply and no task. */
export type SendResult = SubmitResult | { reply: Message; duplicate: boolean };

export interface SendOptions {
  /**
   * Run the agent inline (a blocking send): until this time (epoch ms) at most; a task that needs
   * longer is handed back to the executor. Without it the executor picks the task up.
   */
  runInlineUntil?: number;
  /** A push config sent with the message: registered in the write that creates or continues the task. */
  pushConfig?: InlinePushConfig;
  /**
   * The new task's id, when its protocol names the task (Synapse: derived from the peer and the
   * requester's task id, so its later messages find it); default derived from the message.
   */
  taskId?: string;
  /** The protocol the task came over (default a2a). */
  protocol?: TaskProtocol;
  /**
   * What a continuation answers, when its protocol says (Synapse's info and decision messages): refused
   * unless the task waits for that (a retry of one applied before is still a duplicate).
   */
  answers?: 'information' | 'decision';
  /**
   * A continuation applies only to a task at this version (A2A `ifGenerationMatch`, docs/generations.md):
   * checked before anything is written and again by the write's own version condition.
   */
  ifGenerationMatch?: number;
}

/** No task has an id that could not be one: such ids are simply not found. */
const isTaskId = (id: string): boolean => id.length > 0 && id.length <= MAX_ID_LENGTH && isWellFormed(id);

/** The states a continuation of each kind answers. */
const WAITS_FOR: Readonly<Record<NonNullable<SendOptions['answers']>, readonly SynapseState[]>> = {
  information: ['info_needed'],
  decision: ['need_human', 'human_deciding'],
};

const APPROVE = /^(approve|approved|yes|y|ok|accept)$/i;
const REJECT = /^(reject|rejected|no|n|deny|decline)$/i;

/** Reads a human decision from a message: a data part {decision, notes?} or the text approve / reject. */
export const decisionOf = (message: Message): { approved: boolean; notes?: string } | undefined => {
  for (const part of message.parts) {
    const data = part.data as { decision?: unknown; notes?: unknown } | undefined;
    if (data && typeof data === 'object' && typeof data.decision === 'string') {
      const notes = typeof data.notes === 'string' ? { notes: data.notes } : {};
      if (APPROVE.test(data.decision)) return { approved: true, ...notes };
      if (REJECT.test(data.decision)) return { approved: false, ...notes };
    }
  }
  const [first = '', ...rest] = textOf(message).trim().split(/\s+/);
  const notes = rest.length ? { notes: rest.join(' ') } : {};
  if (APPROVE.test(first)) return { approved: true, ...notes };
  if (REJECT.test(first)) return { approved: false, ...notes };
  return undefined;
};

export { DEFAULT_TASK_TIMEOUT_SECONDS };

export class TaskService {
  constructor(
    private readonly engine: TaskEngine,
    /** Runs the agent for blocking sends; without one, every task goes through the executor queue. */
    private readonly inline?: TaskExecutor,
    private readonly taskTimeoutSeconds = DEFAULT_TASK_TIMEOUT_SECONDS,
    /** Where inline push configs are kept; without it a message's push config is refused. */
    private readonly pushConfigs?: PushConfigStore,
    /** Skills carried out by a remote Synapse executor (shared/app/synapse/bridge.ts). */
    private readonly remote?: RemoteExecution,
  ) {}

  /**
   * A new message (not for an existing task): the agent may answer it with a message and make no task
   * (`respond`); otherwise it makes a task (`submit`). A retry finds what the first delivery got.
   */
  async send(
    caller: Caller,
    message: Message,
    contextId?: string,
    options: SendOptions = {},
  ): Promise<SendResult> {
    const remote = await this.remote?.route(caller, message);
    if (remote) {
      // a remote skill: a requester task, delegated to the peer (not answered or run here)
      const { record, duplicate } = await this.remote!.requester.delegate(caller, {
        peerId: remote.peer,
        type: remote.type,
        message,
        ...(contextId ? { contextId } : {}),
        ...(options.pushConfig ? { pushConfig: options.pushConfig } : {}),
      });
      return { record, head: record.head, duplicate };
    }
    if (this.inline) {
      const context = contextId ?? crypto.randomUUID();
      const reply = await this.inline.respond({
        contextId: context,
        request: { ...message, contextId: context },
        text: textOf(message),
      });
      if (reply) {
        const kept = await this.engine.keepReply({
          tenant: caller.tenant,
          dedupScope: caller.owner,
          request: message,
          reply,
        });
        if ('task' in kept) return { record: kept.task, head: kept.task.head, duplicate: true };
        return { reply: kept.reply.message, duplicate: !kept.created };
      }
    }
    try {
      return await this.submit(caller, message, contextId, options);
    } catch (e) {
      if (e instanceof MessageAnsweredError) return { reply: e.reply.message, duplicate: true };
      throw e;
    }
  }

  /**
   * Creates a task from the requester's first message. Inline, the agent validates it first, and an
   * accepted task is created already claimed (one write) and run here.
   */
  async submit(
    caller: Caller,
    message: Message,
    contextId?: string,
    options: SendOptions = {},
  ): Promise<SubmitResult> {
    const base = {
      tenant: caller.tenant,
      owner: caller.owner,
      ...(contextId ? { contextId } : {}),
      message,
      dedupScope: caller.owner,
      deadlineAt: new Date(Date.now() + this.taskTimeoutSeconds * 1000).toISOString(),
      ...(options.protocol ? { protocol: options.protocol } : {}),
    };
    const runner = options.runInlineUntil !== undefined ? this.inline : undefined;
    const taskId = options.taskId ?? this.engine.taskIdFor(base);
    // the task may exist already (a retried message): its config is then left as registered
    const registered = await this.registerInline(caller, taskId, base.deadlineAt, options.pushConfig, [], {
      ifAbsent: true,
    });
    if (!runner) {
      const then = registered;
      return this.engine.create({ ...base, then }, taskId);
    }

    const request = { ...message, taskId, contextId: contextId ?? crypto.randomUUID() };
    const input = {
      taskId,
      contextId: request.contextId,
      request,
      history: [request],
      text: textOf(message),
    };
    const then = [...registered, ...(await runner.validationDrafts(input))];
    const created = await this.engine.create(
      { ...base, contextId: request.contextId, then, leaseSeconds: leaseFor(options.runInlineUntil!) },
      taskId,
    );
    if (created.duplicate || created.head.state !== 'executing') return created;
    return this.runInline(runner, created.record, input, options.runInlineUntil!);
  }

  /**
   * A message on an existing task: the answer to a question, or a human decision.
   * Anything else is refused; a message to a finished task is an invalid transition.
   * Inline, the answer and the claim to resume are one write, and the agent runs here.
   */
  async continueTask(
    caller: Caller,
    taskId: string,
    message: Message,
    contextId?: string,
    options: SendOptions = {},
  ): Promise<SubmitResult> {
    const record = await this.owned(caller, taskId);
    const { head } = record;
    if (contextId !== undefined && contextId !== head.contextId) {
      throw new ValidationError(
        `message.contextId ${contextId} does not match the context ${head.contextId} of task ${taskId}`,
        'message.contextId',
      );
    }
    // a retry of a message the task already applied gets the same answer, whatever state it is in now
    if (head.recentMessageKeys?.includes(messageKey(caller.owner, message)))
      return { record, head, duplicate: true };
    // before anything is written (an inline push config's item included)
    const expected = options.ifGenerationMatch;
    if (expected !== undefined && head.version !== expected)
      throw new GenerationMismatchError(taskId, expected, head.version);
    if (options.answers && !WAITS_FOR[options.answers].includes(head.state)) {
      throw new InvalidTransitionError(
        taskId,
        head.state,
        'message',
        isTerminal(head.state)
          ? `Task ${taskId} is ${head.state}; a finished task accepts no messages`
          : `The task is ${head.state}: it does not wait for ${options.answers === 'decision' ? 'a decision' : 'information'}`,
      );
    }
    // a task delegated to a Synapse peer is the peer's to resume: the answer is only recorded (and sent)
    const runner = options.runInlineUntil !== undefined && head.role === 'executor' ? this.inline : undefined;
    const answer = this.answerDrafts(head, message, caller);
    if (!answer) {
      if (head.state === 'need_human' || head.state === 'human_deciding') {
        throw new ValidationError(
          'This task waits for a human decision: reply "approve" or "reject" (optionally followed by notes), ' +
            'or send a data part {"decision": "approve" | "reject", "notes"?: string}',
          'message.parts',
        );
      }
      throw new InvalidTransitionError(
        taskId,
        head.state,
        'message',
        isTerminal(head.state)
          ? `Task ${taskId} is ${head.state}; a finished task accepts no messages (start a new task in its context)`
          : `Task ${taskId} is ${head.state} and is not waiting for input`,
      );
    }
    const registered = await this.registerInline(
      caller,
      head.taskId,
      head.deadlineAt,
      options.pushConfig,
      head.pushConfigIds,
    );
    const drafts: EventDraft[] = [
      ...registered,
      answer.draft,
      ...(runner ? [{ type: 'resume' as const }] : []),
    ];
    const applied = await this.engine.apply(this.ref(head), drafts, {
      dedupScope: caller.owner,
      seen: record,
      ...(expected !== undefined ? { expectVersion: expected } : {}),
      ...(runner ? { leaseSeconds: leaseFor(options.runInlineUntil!) } : {}),
    });
    if (!runner || applied.duplicate || applied.head.state !== 'executing') return applied;
    const input = await runner.inputOf(applied.record);
    return this.runInline(
      runner,
      applied.record,
      input,
      options.runInlineUntil!,
      answer.resumption(applied.head),
    );
  }

  /**
   * Cancel wins only through a conditional transition; canceling a canceled task returns it. Returns the
   * whole task: the read (head, history, artifacts) and the write are one round trip each.
   */
  async cancel(
    caller: Caller,
    taskId: string,
    options: ReadOptions = { includeArtifacts: true },
  ): Promise<TaskView> {
    const record = await this.owned(caller, taskId);
    try {
      const { record: written } = await this.engine.apply(
        this.ref(record.head),
        { type: 'cancel' },
        { seen: record },
      );
      return this.engine.store.view(written, options);
    } catch (e) {
      if (e instanceof TaskNotCancelableError && e.state === 'cancelled')
        return this.read(caller, taskId, options);
      throw e;
    }
  }

  async read(caller: Caller, taskId: string, options: ReadOptions): Promise<TaskView> {
    return this.engine.store.view(await this.owned(caller, taskId), options);
  }

  /** The view of a task the caller already holds (as written or read), reading only what it lacks. */
  view(record: TaskRecord, options: ReadOptions): Promise<TaskView> {
    return this.engine.store.view(record, options);
  }

  list(caller: Caller, query: Omit<ListTasksQuery, 'tenant' | 'owner'>): Promise<ListTasksPage> {
    if (query.contextId !== undefined && !isTaskId(query.contextId)) {
      throw new ValidationError(
        `contextId must be 1 to ${MAX_ID_LENGTH} characters of well-formed Unicode`,
        'contextId',
      );
    }
    return this.engine.store.list({ ...query, tenant: caller.tenant, owner: caller.owner });
  }

  /**
   * Polls the store until the task is terminal or interrupted (waiting for the requester),
   * or the time budget runs out; reading the store makes it work whichever Lambda runs the agent.
   */
  async waitUntilSettled(caller: Caller, taskId: string, budgetMs: number): Promise<TaskRecord> {
    const until = Date.now() + budgetMs;
    // quick tasks answer fast; long ones cost a read every 500 ms at most
    let pause = 20;
    for (;;) {
      const record = await this.owned(caller, taskId);
      const { state } = record.head;
      if (isTerminal(state) || isInterrupted(state) || Date.now() >= until) return record;
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, until - Date.now()))));
      pause = Math.min(500, pause * 1.5);
    }
  }

  private async runInline(
    runner: TaskExecutor,
    record: TaskRecord,
    input: Parameters<TaskExecutor['execute']>[2],
    until: number,
    resumption?: Resumption,
  ): Promise<SubmitResult> {
    const outcome = await runner.execute(this.ref(record.head), record, input, {
      handBackAt: until,
      ...(resumption ? { resumption } : {}),
    });
    const last = outcome.record ?? record;
    return { record: last, head: last.head, duplicate: false };
  }

  /** The event a message makes on a task that waits for one, or undefined when it waits for none. */
  private answerDrafts(
    head: TaskHead,
    message: Message,
    caller: Caller,
  ): { draft: EventDraft; resumption: (head: TaskHead) => Resumption } | undefined {
    const text = textOf(message);
    if (head.state === 'info_needed') {
      return {
        draft: { type: 'info_provided', message },
        resumption: (h) => ({
          kind: 'info',
          message: { ...message, taskId: h.taskId, contextId: h.contextId },
          text,
        }),
      };
    }
    if (head.state === 'need_human' || head.state === 'human_deciding') {
      const decision = decisionOf(message);
      if (!decision) return undefined;
      return {
        draft: {
          type: decision.approved ? 'human_approve' : 'human_reject',
          message,
          // the audit: who decided is the authenticated principal, whatever the message claims
          data: { principal: caller.owner, ...(decision.notes ? { notes: decision.notes } : {}) },
        },
        resumption: (h) => ({
          kind: 'human_decision',
          approved: decision.approved,
          text,
          message: { ...message, taskId: h.taskId, contextId: h.contextId },
          ...(decision.notes ? { notes: decision.notes } : {}),
        }),
      };
    }
    return undefined;
  }

  /**
   * Keeps an inline push config beside its task (before the write that lists it, as a config created
   * later is) and returns that write's `push_config` event. Its id, unless given, is the task's: a retried
   * message writes the same config again.
   */
  private async registerInline(
    caller: Caller,
    taskId: string,
    deadlineAt: string,
    inline: InlinePushConfig | undefined,
    existing: readonly string[] = [],
    put: { ifAbsent?: boolean } = {},
  ): Promise<EventDraft[]> {
    if (!inline) return [];
    if (!this.pushConfigs) throw new ValidationError('push notifications are not enabled', 'configuration');
    const id = inline.config.id ?? taskId;
    if (!existing.includes(id) && existing.length >= MAX_PUSH_CONFIGS_PER_TASK) {
      throw new ValidationError(
        `a task has at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs; delete one first`,
        'configuration.taskPushNotificationConfig',
      );
    }
    await this.pushConfigs.put(
      storedConfig(caller.tenant, taskId, { ...inline.config, id }, inline.version, inline.synapse),
      keepUntilOf(deadlineAt),
      put,
    );
    return [{ type: 'push_config', data: { set: id } }];
  }

  /** The caller's task: another caller's, a missing one and an impossible id are all "not found". */
  owned(caller: Caller, taskId: string): Promise<TaskRecord> {
    return ownedTask(this.engine.store, caller, taskId);
  }

  private ref(head: TaskHead): TaskRef {
    return { tenant: head.tenant, taskId: head.taskId };
  }
}

/** The caller's task in `store`: another caller's, a missing one and an impossible id are all "not found". */
export const ownedTask = async (store: TaskStore, caller: Caller, taskId: string): Promise<TaskRecord> => {
  if (!isTaskId(taskId)) throw new TaskNotFoundError(taskId);
  const record = await store.get({ tenant: caller.tenant, taskId });
  if (!record || record.head.owner !== caller.owner) throw new TaskNotFoundError(taskId);
  return record;
};

/** An inline run's lease: until its hand-back time, plus a margin for the write that hands it back. */
const leaseFor = (until: number): number => Math.max(1, Math.ceil((until - Date.now()) / 1000) + 5);
