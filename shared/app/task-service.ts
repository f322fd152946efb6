/**
 * Use cases a requester drives (the A2A server and, later, Synapse inbound):
 * submit a task, continue it with a message, cancel it, read and list tasks,
 * and wait for a task to settle. Every read and write is scoped to the
 * caller (tenant + owner); another caller's task is "not found".
 */
import { textOf } from '../agent/api.ts';
import {
  InvalidTransitionError,
  TaskNotCancelableError,
  TaskNotFoundError,
  ValidationError,
} from '../domain/errors.ts';
import { isInterrupted, isTerminal, type SynapseState } from '../domain/states.ts';
import { MAX_ID_LENGTH, type Message, type TaskHead, type TaskView } from '../domain/task.ts';
import type { ExecutorQueue, ListTasksPage, ListTasksQuery, ReadOptions, TaskRef } from './ports.ts';
import { assertSameMessage, dedupKey, type TaskEngine } from './task-engine.ts';

export interface Caller {
  tenant: string;
  /** The authenticated principal; message ids are de-duplicated per owner. */
  owner: string;
}

export interface SubmitResult {
  head: TaskHead;
  duplicate: boolean;
}

/** No task has an id that could not be one: such ids are simply not found. */
const isTaskId = (id: string): boolean => id.length > 0 && id.length <= MAX_ID_LENGTH;

/** States in which the task waits for the executor to pick it up. */
const RUNNABLE: ReadonlySet<SynapseState> = new Set([
  'pending',
  'confirmed',
  'info_provided',
  'human_approved',
  'human_rejected',
]);

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

/** A task still live after this long is failed by the expiry sweep (Synapse TaskTimeout; generous for A2A). */
export const DEFAULT_TASK_TIMEOUT_SECONDS = 3600;

export class TaskService {
  constructor(
    private readonly engine: TaskEngine,
    private readonly executor: ExecutorQueue,
    private readonly taskTimeoutSeconds = DEFAULT_TASK_TIMEOUT_SECONDS,
  ) {}

  /** Creates a task from the requester's first message and hands it to the executor. */
  async submit(caller: Caller, message: Message, contextId?: string): Promise<SubmitResult> {
    const result = await this.engine.create({
      tenant: caller.tenant,
      owner: caller.owner,
      ...(contextId ? { contextId } : {}),
      message,
      dedupScope: caller.owner,
      deadlineAt: new Date(Date.now() + this.taskTimeoutSeconds * 1000).toISOString(),
    });
    await this.handToExecutor(result.head);
    return result;
  }

  /**
   * A message on an existing task: the answer to a question, or a human decision.
   * Anything else is refused; a message to a finished task is an invalid transition.
   */
  async continueTask(
    caller: Caller,
    taskId: string,
    message: Message,
    contextId?: string,
  ): Promise<SubmitResult> {
    const head = await this.owned(caller, taskId);
    if (contextId !== undefined && contextId !== head.contextId) {
      throw new ValidationError(
        `message.contextId ${contextId} does not match the context ${head.contextId} of task ${taskId}`,
        'message.contextId',
      );
    }
    const ref = this.ref(head);
    let applied: { head: TaskHead; duplicate: boolean };
    if (head.state === 'info_needed') {
      applied = await this.engine.apply(
        ref,
        { type: 'info_provided', message },
        { dedupScope: caller.owner, seen: head },
      );
    } else if (head.state === 'need_human' || head.state === 'human_deciding') {
      const decision = decisionOf(message);
      if (!decision) {
        // a retry of the answer that led here is a duplicate, not a wrong decision
        const duplicate = await this.duplicateContinuation(caller, head, message);
        if (duplicate) return duplicate;
        throw new ValidationError(
          'This task waits for a human decision: reply "approve" or "reject" (optionally followed by notes), ' +
            'or send a data part {"decision": "approve" | "reject", "notes"?: string}',
          'message.parts',
        );
      }
      applied = await this.engine.apply(
        ref,
        {
          type: decision.approved ? 'human_approve' : 'human_reject',
          message,
          ...(decision.notes ? { data: { notes: decision.notes } } : {}),
        },
        { dedupScope: caller.owner, seen: head },
      );
    } else {
      const duplicate = await this.duplicateContinuation(caller, head, message);
      if (duplicate) return duplicate;
      throw new InvalidTransitionError(
        taskId,
        head.state,
        'message',
        isTerminal(head.state)
          ? `Task ${taskId} is ${head.state}; a finished task accepts no messages (start a new task in its context)`
          : `Task ${taskId} is ${head.state} and is not waiting for input`,
      );
    }
    await this.handToExecutor(applied.head);
    return applied;
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
    const view = await this.read(caller, taskId, options);
    try {
      const { head } = await this.engine.apply(this.ref(view.head), { type: 'cancel' }, { seen: view.head });
      return { ...view, head };
    } catch (e) {
      if (e instanceof TaskNotCancelableError && e.state === 'cancelled')
        return this.read(caller, taskId, options);
      throw e;
    }
  }

  async read(caller: Caller, taskId: string, options: ReadOptions): Promise<TaskView> {
    if (!isTaskId(taskId)) throw new TaskNotFoundError(taskId);
    const view = await this.engine.store.read({ tenant: caller.tenant, taskId }, options);
    if (!view || view.head.owner !== caller.owner) throw new TaskNotFoundError(taskId);
    return view;
  }

  list(caller: Caller, query: Omit<ListTasksQuery, 'tenant' | 'owner'>): Promise<ListTasksPage> {
    if (query.contextId !== undefined && !isTaskId(query.contextId)) {
      throw new ValidationError(`contextId must be 1 to ${MAX_ID_LENGTH} characters`, 'contextId');
    }
    return this.engine.store.list({ ...query, tenant: caller.tenant, owner: caller.owner });
  }

  /**
   * Polls the store until the task is terminal or interrupted (waiting for the requester),
   * or the time budget runs out; reading the store makes it work whichever Lambda runs the agent.
   */
  async waitUntilSettled(caller: Caller, taskId: string, budgetMs: number): Promise<TaskHead> {
    const ref = { tenant: caller.tenant, taskId };
    const until = Date.now() + budgetMs;
    // quick tasks answer fast; long ones cost a read every 500 ms at most
    let pause = 50;
    for (;;) {
      const head = await this.engine.store.getHead(ref);
      if (!head) throw new TaskNotFoundError(taskId);
      if (isTerminal(head.state) || isInterrupted(head.state) || Date.now() >= until) return head;
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, until - Date.now()))));
      pause = Math.min(500, pause * 1.5);
    }
  }

  /**
   * A message that cannot apply to the task as it is now may be the retry of one that already did:
   * answer it as the duplicate it is (handing the task over again if it still waits for the executor).
   */
  private async duplicateContinuation(
    caller: Caller,
    head: TaskHead,
    message: Message,
  ): Promise<SubmitResult | undefined> {
    const key = dedupKey(caller.tenant, caller.owner, message);
    const seen = await this.engine.store.findDedup(key);
    if (!seen) return undefined;
    assertSameMessage(key, seen);
    if (seen.taskId !== head.taskId) {
      throw new ValidationError(
        `messageId ${message.messageId} was already used for another task; send each message with a new id`,
        'message.messageId',
      );
    }
    await this.handToExecutor(head);
    return { head, duplicate: true };
  }

  /**
   * Every write that leaves the task for the executor enqueues a run, duplicates included: if the first
   * enqueue failed after the write committed, the client's retry is what gets the task going (the executor's
   * claim makes an extra run harmless).
   */
  private async handToExecutor(head: TaskHead): Promise<void> {
    if (RUNNABLE.has(head.state)) await this.executor.enqueue({ ...this.ref(head), version: head.version });
  }

  private async owned(caller: Caller, taskId: string): Promise<TaskHead> {
    if (!isTaskId(taskId)) throw new TaskNotFoundError(taskId);
    const head = await this.engine.store.getHead({ tenant: caller.tenant, taskId });
    if (!head || head.owner !== caller.owner) throw new TaskNotFoundError(taskId);
    return head;
  }

  private ref(head: TaskHead): TaskRef {
    return { tenant: head.tenant, taskId: head.taskId };
  }
}
