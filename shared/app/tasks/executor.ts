/**
 * Runs the agent for a task: validate a new one, claim it with a conditional
 * transition (so a redelivered request never runs a task twice), execute,
 * and record what the agent reports through the engine. The same runner
 * serves the SQS executor (queued runs, resumes, lease checks) and blocking
 * sends, which run the agent inline within the request's time budget and
 * hand the task back (`release`) if it needs longer. While the agent runs,
 * its run keeps the task's heartbeat: what it reports counts, and after an
 * interval of silence the executor makes a liveness write (heartbeat.ts).
 * Every write of a run is fenced by its claim: a run whose task was handed
 * back or claimed again (a lost run that comes back) writes nothing more.
 */
import type {
  AgentHandler,
  AgentMessageInput,
  ArtifactInput,
  ExecutionContext,
  IncomingMessage,
  Outcome,
  Resumption,
  TaskInput,
  Validation,
} from '../../agent/api.ts';
import { textOf } from '../../agent/api.ts';
import {
  ConflictError,
  InvalidTransitionError,
  UnavailableError,
  ValidationError,
} from '../../domain/errors.ts';
import { isTerminal } from '../../domain/states.ts';
import type { EventDraft, Message, TaskEvent } from '../../domain/task.ts';
import { type Clock, type IdGenerator, systemClock } from '../../ports/clock.ts';
import type { ExecutorRun } from '../../ports/executor-queue.ts';
import type { LivenessWriter } from '../../ports/liveness-writer.ts';
import type { TaskRecord, TaskRef } from '../../ports/task-store.ts';
import { clip } from '../../validation/text.ts';
import { MAX_EVENTS_PER_WRITE, randomIds, type TaskEngine } from './task-engine.ts';

/**
 * Rounds of a run's write while the store stays unavailable through the SDK's own retries (about 1.5 s
 * of pauses between them): what the agent reported is in hand, so a passing outage costs a wait, not the
 * task (docs/reliability.md#the-sdk).
 */
export const WRITE_ROUNDS = 5;
const roundPause = (round: number) => new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (round - 1)));

export type RunResult =
  | 'completed'
  | 'waiting'
  | 'finished'
  | 'stopped'
  | 'skipped'
  | 'released'
  | 'lost'
  | 'recheck';

export interface RunOutcome {
  result: RunResult;
  /** The task as the run left it (when the run wrote to it). */
  record?: TaskRecord;
  /** For `recheck`: the lease is still running; look again after this many seconds. */
  recheckInSeconds?: number;
}

const RESUMABLE = new Set(['info_provided', 'human_approved', 'human_rejected']);
const ANSWERS = new Set(['info_provided', 'human_approve', 'human_reject']);
const QUESTIONS = new Set(['need_info', 'need_human']);

/** Messages handed to the agent: the most recent ones (plus always the request). */
export const AGENT_HISTORY_LENGTH = 200;

// 2,000 characters stay under the 8 KiB status-message limit even in 3-byte UTF-8 scripts
export const MAX_STATUS_TEXT = 2000;
/** Status messages stay within their 8 KiB limit as JSON (control characters escape to 6 bytes each). */
const MAX_STATUS_JSON_BYTES = 6 * 1024;
/** An agent's text as a status message keeps it (it may hand any value: it is shown as a string). */
const statusText = (input: unknown): string =>
  clip(typeof input === 'string' ? input : String(input ?? ''), {
    chars: MAX_STATUS_TEXT,
    jsonBytes: MAX_STATUS_JSON_BYTES,
  });

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The task was canceled, finished elsewhere or handed back while the agent was running. */
class TaskStoppedError extends Error {}

/** Lost a race that another executor (or a cancel) won: nothing to do. */
const lostRace = (e: unknown): boolean => e instanceof InvalidTransitionError || e instanceof ConflictError;

export interface ExecuteOptions {
  resumption?: Resumption;
  /** Inline runs: give the task back for the executor to run again if the agent is not done by then (epoch ms). */
  handBackAt?: number;
}

export interface TaskExecutorOptions {
  /** Liveness writes while the agent is silent; without it a run makes none (its events still count). */
  heartbeat?: { writer: LivenessWriter; intervalSeconds: number };
}

export class TaskExecutor {
  constructor(
    private readonly engine: TaskEngine,
    private readonly agent: AgentHandler,
    private readonly ids: IdGenerator = randomIds,
    private readonly clock: Clock = systemClock,
    private readonly options: TaskExecutorOptions = {},
  ) {}

  /** One request from the executor queue. */
  async run(run: ExecutorRun): Promise<RunOutcome> {
    const ref: TaskRef = { tenant: run.tenant, taskId: run.taskId };
    const record = await this.engine.store.get(ref);
    if (!record || isTerminal(record.head.state)) return { result: 'skipped' };
    // a task this hub delegated is a Synapse peer's to work on
    if (record.head.role === 'requester') return { result: 'skipped' };
    if (run.watch === 'lease' || record.head.state === 'executing') return this.checkLease(ref, record, run);

    if (record.head.state === 'pending') {
      const input = await this.inputOf(record);
      const validated = await this.recordValidation(ref, record, await this.validationDrafts(input));
      if (!validated) return { result: 'skipped' };
      if (validated.head.state !== 'executing')
        return { result: validated.head.state === 'info_needed' ? 'waiting' : 'finished', record: validated };
      return this.execute(ref, validated, input);
    }
    const claim: EventDraft | undefined =
      record.head.state === 'confirmed'
        ? { type: 'start' }
        : RESUMABLE.has(record.head.state)
          ? { type: 'resume' }
          : undefined;
    // otherwise waiting for the requester: not ours to run
    if (!claim) return { result: 'skipped' };
    const [input, resumption] = await Promise.all([this.inputOf(record), this.resumptionOf(record)]);
    const claimed = await this.tryApply(ref, record, [claim]);
    if (!claimed) return { result: 'skipped' };
    return this.execute(ref, claimed, input, resumption ? { resumption } : {});
  }

  /**
   * What the agent's validation says, as the events that record it: accepted tasks are claimed in the
   * same write (confirm + start). A validation that throws, or answers nonsense, fails the task.
   */
  async validationDrafts(input: TaskInput): Promise<EventDraft[]> {
    let v: Validation;
    try {
      v = (await this.agent.validate?.(input)) ?? { decision: 'accept' };
    } catch (e) {
      return this.outcomeDrafts({
        kind: 'failed',
        code: 'execution_failed',
        message: `Validation threw: ${messageOf(e)}`,
      });
    }
    switch (v?.decision) {
      case 'accept':
        return [{ type: 'confirm' }, { type: 'start' }];
      case 'reject':
        return [
          {
            type: 'reject',
            message: this.agentMessage(v.message),
            reason: {
              code: v.code ?? 'capability_lacking',
              message: statusText(v.message),
              ...(v.details ? { details: v.details } : {}),
            },
          },
        ];
      case 'need_info':
        return [
          {
            type: 'need_info',
            message: this.agentMessage(v.question),
            data: { missingFields: v.missingFields ?? [] },
          },
        ];
      default:
        return this.outcomeDrafts({
          kind: 'failed',
          code: 'invalid_agent_output',
          message: `Invalid validation: ${JSON.stringify(v)?.slice(0, 200)}`,
        });
    }
  }

  /** The input an agent gets for a task: the request, the recent history and its text. */
  async inputOf(record: TaskRecord): Promise<TaskInput> {
    const view = await this.engine.store.view(record, { historyLength: AGENT_HISTORY_LENGTH });
    // the request is the message that created the task (event 1); a long history may have cut it off
    const first = record.recent[0]?.version === 1 ? record.recent[0] : undefined;
    const request =
      (first && !first.detached ? first.message : undefined) ??
      (await this.engine.store.events(record, 0, 1))[0]?.message ??
      this.agentMessage('');
    return {
      taskId: record.head.taskId,
      contextId: record.head.contextId,
      request,
      history: view.history,
      text: textOf(request),
    };
  }

  /** Runs the agent on a claimed task and records what it reports; see ExecuteOptions for inline runs. */
  async execute(
    ref: TaskRef,
    claimed: TaskRecord,
    task: TaskInput,
    options: ExecuteOptions = {},
  ): Promise<RunOutcome> {
    const abort = new AbortController();
    // each write starts from the task as we wrote it last; if someone else moved it the engine re-reads
    let last = claimed;
    let stopped = false;
    // our claim: a task handed back or claimed again since is no longer this run's to write to
    const claim = claimed.head.leaseUntil;
    const ours = (r: TaskRecord) => r.head.state === 'executing' && r.head.leaseUntil === claim;
    const stop = () => {
      stopped = true;
      abort.abort();
    };
    const liveness = this.liveness(() => last, ours, stop);
    const record = async (drafts: EventDraft[]) => {
      if (stopped) throw new TaskStoppedError('the run ended');
      try {
        for (let i = 0; i < drafts.length; i += MAX_EVENTS_PER_WRITE) {
          for (let round = 1; ; round++) {
            try {
              last = (
                await this.engine.apply(ref, drafts.slice(i, i + MAX_EVENTS_PER_WRITE), {
                  seen: last,
                  guard: ours,
                })
              ).record;
              break;
            } catch (e) {
              if (!(e instanceof UnavailableError) || round >= WRITE_ROUNDS || stopped) throw e;
              await roundPause(round);
            }
          }
          // a write is a sign of life: the next liveness write is due an interval after it
          liveness.wrote();
        }
      } catch (e) {
        if (e instanceof InvalidTransitionError) {
          stop();
          throw new TaskStoppedError(e.message);
        }
        throw e;
      }
    };
    const ctx: ExecutionContext = {
      task,
      ...(options.resumption ? { resumption: options.resumption } : {}),
      signal: abort.signal,
      status: (message) => record([{ type: 'status_update', ...this.withMessage(message) }]),
      progress: (percent, message) =>
        record([{ type: 'status_update', progress: percent, ...this.withMessage(message) }]),
      artifact: async (a) => {
        const chunk = this.chunk(a);
        await record([{ type: 'artifact', artifact: chunk }]);
        return chunk.artifact.artifactId;
      },
    };

    const handBack = options.handBackAt === undefined ? undefined : this.deadline(options.handBackAt);
    try {
      let outcome: Outcome | 'hand back';
      try {
        const running = this.agent.execute(ctx);
        outcome = handBack ? await Promise.race([running, handBack.reached]) : await running;
      } catch (e) {
        if (e instanceof TaskStoppedError) return { result: 'stopped', record: last };
        outcome = { kind: 'failed', code: 'execution_failed', message: messageOf(e) };
      }
      if (outcome === 'hand back') {
        // the request's time is up: stop recording for this run and give the task back to the executor
        stop();
        liveness.stop();
        try {
          last = (await this.engine.apply(ref, { type: 'release' }, { seen: last, guard: ours })).record;
          return { result: 'released', record: last };
        } catch (e) {
          if (lostRace(e)) return { result: 'stopped', record: last };
          throw e;
        }
      }
      try {
        await record(this.outcomeDrafts(outcome));
      } catch (e) {
        if (e instanceof TaskStoppedError) throw e;
        // the outcome could not be recorded (invalid agent output, or the store failed): fail the task now,
        // rather than leave it executing until its lease runs out; if even that fails, the run is retried
        const why = messageOf(e);
        const code = e instanceof ValidationError ? 'invalid_agent_output' : 'execution_failed';
        await record(
          this.outcomeDrafts({ kind: 'failed', code, message: `Could not record the outcome: ${why}` }),
        );
        return { result: 'completed', record: last };
      }
      const waiting = outcome.kind === 'input_required' || outcome.kind === 'human_decision';
      return { result: waiting ? 'waiting' : 'completed', record: last };
    } catch (e) {
      if (e instanceof TaskStoppedError) return { result: 'stopped', record: last };
      throw e;
    } finally {
      handBack?.cancel();
      liveness.stop();
    }
  }

  /**
   * The run's liveness writes: one each interval the run spent without writing, none while it reports
   * more often (so a task done within an interval makes none). A refused write whose task is no longer
   * this run's (canceled, failed as lost, claimed again) stops the run at once, silent agent or not.
   */
  private liveness(
    last: () => TaskRecord,
    ours: (r: TaskRecord) => boolean,
    stop: () => void,
  ): { wrote(): void; stop(): void } {
    const heartbeat = this.options.heartbeat;
    if (!heartbeat) return { wrote: () => {}, stop: () => {} };
    const intervalMs = heartbeat.intervalSeconds * 1000;
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      if (ended) return;
      timer = setTimeout(beat, intervalMs);
      // a run in flight keeps the process alive, not its heartbeat
      timer.unref?.();
    };
    const beat = async () => {
      if (ended) return;
      try {
        const result = await heartbeat.writer.beat(last(), this.clock.now().toISOString());
        if (!result.written && (!result.current || !ours(result.current))) {
          ended = true;
          stop();
          return;
        }
        // refused by a write of our own that landed meanwhile: that write was the sign of life
      } catch {
        // the store failed this once: the next beat tries again (the watch allows a missed one)
      }
      arm();
    };
    arm();
    return {
      wrote: arm,
      stop: () => {
        ended = true;
        clearTimeout(timer);
      },
    };
  }

  /**
   * A claimed task whose run must have ended by its lease: a run that left it executing past the
   * lease died (a crash, a timeout), so the task fails; before that, look again when the lease ends.
   */
  private async checkLease(ref: TaskRef, record: TaskRecord, run: ExecutorRun): Promise<RunOutcome> {
    const { head } = record;
    if (head.state !== 'executing' || !head.leaseUntil) return { result: 'skipped' };
    const remainingMs = Date.parse(head.leaseUntil) - this.clock.now().getTime();
    if (remainingMs > 0) {
      // a plain run finding the task in someone else's hands leaves it to them (and to their lease watch)
      if (run.watch !== 'lease') return { result: 'skipped' };
      return { result: 'recheck', recheckInSeconds: Math.ceil(remainingMs / 1000) };
    }
    const why = `The run ended without an outcome; its lease expired at ${head.leaseUntil}`;
    const lost = await this.tryApply(ref, record, [
      {
        type: 'heartbeat_lost',
        message: this.agentMessage(why),
        reason: { code: 'executor_lost', message: why },
      },
    ]);
    return lost ? { result: 'lost', record: lost } : { result: 'skipped' };
  }

  /** Records validation; output that cannot be recorded fails the task rather than leave it pending. */
  private async recordValidation(
    ref: TaskRef,
    seen: TaskRecord,
    drafts: EventDraft[],
  ): Promise<TaskRecord | undefined> {
    try {
      return await this.tryApply(ref, seen, drafts);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      return this.tryApply(
        ref,
        seen,
        this.outcomeDrafts({
          kind: 'failed',
          code: 'invalid_agent_output',
          message: `Invalid validation: ${messageOf(e)}`,
        }),
      );
    }
  }

  /** Applies drafts; a lost race (another executor, a cancel) means there is nothing to do. */
  private async tryApply(
    ref: TaskRef,
    seen: TaskRecord,
    drafts: EventDraft[],
  ): Promise<TaskRecord | undefined> {
    try {
      return (await this.engine.apply(ref, drafts, { seen })).record;
    } catch (e) {
      if (lostRace(e)) return undefined;
      throw e;
    }
  }

  /** The events an outcome makes; its task metadata rides on the last one. */
  outcomeDrafts(outcome: Outcome): EventDraft[] {
    const drafts = this.outcomeEvents(outcome);
    const taskMetadata = (outcome as { taskMetadata?: unknown } | undefined)?.taskMetadata;
    if (taskMetadata !== undefined && drafts.length > 0) {
      const last = drafts[drafts.length - 1]!;
      drafts[drafts.length - 1] = { ...last, taskMetadata: taskMetadata as Record<string, unknown> };
    }
    return drafts;
  }

  private outcomeEvents(outcome: Outcome): EventDraft[] {
    switch (outcome?.kind) {
      case 'completed':
        return [
          ...(outcome.artifacts ?? []).map((a) => ({ type: 'artifact' as const, artifact: this.chunk(a) })),
          { type: 'complete', ...this.withMessage(outcome.text) },
        ];
      case 'failed':
        return [
          {
            type: 'fail',
            message: this.agentMessage(outcome.message),
            reason: {
              code: outcome.code ?? 'execution_failed',
              message: statusText(outcome.message),
              ...(outcome.recoverable !== undefined ? { details: { recoverable: outcome.recoverable } } : {}),
            },
          },
        ];
      case 'input_required':
        return [
          {
            type: 'need_info',
            ...this.withMessage(outcome.question),
            data: { missingFields: outcome.missingFields ?? [] },
          },
        ];
      case 'human_decision':
        return [
          {
            type: 'need_human',
            ...this.withMessage(outcome.question),
            data: { options: outcome.options ?? [] },
          },
        ];
      case 'rejected':
        return [
          {
            type: 'reject',
            message: this.agentMessage(outcome.message),
            reason: { code: outcome.code ?? 'rejected', message: statusText(outcome.message) },
          },
        ];
      default:
        return this.outcomeDrafts({
          kind: 'failed',
          code: 'invalid_agent_output',
          message: `Invalid outcome: ${JSON.stringify(outcome)?.slice(0, 200)}`,
        });
    }
  }

  /** Why the agent runs again: the requester's latest answer since the agent last asked, if any. */
  private async resumptionOf(record: TaskRecord): Promise<Resumption | undefined> {
    let events: TaskEvent[] = record.recent;
    const answer = (list: readonly TaskEvent[]) => {
      for (let i = list.length - 1; i >= 0; i--) {
        const e = list[i]!;
        if (ANSWERS.has(e.type)) return e;
        if (QUESTIONS.has(e.type)) return null;
      }
      return undefined;
    };
    let found = answer(events);
    if (found === undefined && (record.recent[0]?.version ?? 1) > 1) {
      // the answer left the recent log: look further back (an answer is followed by few events)
      events = await this.engine.store.events(record, Math.max(0, record.head.version - 50));
      found = answer(events);
    }
    if (!found) return undefined;
    const event =
      (found as TaskEvent & { detached?: unknown }).detached && !found.message
        ? (await this.engine.store.events(record, found.version - 1, 1))[0]!
        : found;
    const text = textOf(event.message);
    if (event.type === 'info_provided' && event.message)
      return { kind: 'info', message: event.message, text };
    const notes = typeof event.data?.notes === 'string' ? event.data.notes : undefined;
    return {
      kind: 'human_decision',
      approved: event.type === 'human_approve',
      text,
      ...(event.message ? { message: event.message } : {}),
      ...(notes ? { notes } : {}),
    };
  }

  private deadline(at: number): { reached: Promise<'hand back'>; cancel(): void } {
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<'hand back'>((resolve) => {
      timer = setTimeout(() => resolve('hand back'), Math.max(0, at - this.clock.now().getTime()));
    });
    return { reached, cancel: () => clearTimeout(timer) };
  }

  private chunk(a: ArtifactInput) {
    return {
      artifact: {
        artifactId: a.artifactId ?? this.ids.messageId(),
        ...(a.name ? { name: a.name } : {}),
        ...(a.description ? { description: a.description } : {}),
        parts: a.parts,
        ...(a.metadata ? { metadata: a.metadata } : {}),
      },
      ...(a.append !== undefined ? { append: a.append } : {}),
      ...(a.lastChunk !== undefined ? { lastChunk: a.lastChunk } : {}),
    };
  }

  /** Status messages live in the (bounded) task head: long text is clipped; results belong in artifacts. */
  agentMessage(text: string): Message {
    return {
      messageId: this.ids.messageId(),
      role: 'agent',
      parts: [{ text: statusText(text), mediaType: 'text/plain' }],
    };
  }

  /** The agent's message from what it said (text, parts, metadata), or undefined when it said nothing. */
  messageFrom(input: AgentMessageInput | undefined): Message | undefined {
    if (input === undefined) return undefined;
    if (typeof input === 'string') return this.agentMessage(input);
    const parts = [
      ...(input.text !== undefined ? [{ text: statusText(input.text), mediaType: 'text/plain' }] : []),
      ...(input.parts ?? []),
    ];
    if (parts.length === 0) return undefined;
    return {
      messageId: this.ids.messageId(),
      role: 'agent',
      parts,
      ...(input.metadata ? { metadata: input.metadata } : {}),
    };
  }

  private withMessage(input: AgentMessageInput | undefined): { message?: Message } {
    const message = this.messageFrom(input);
    return message ? { message } : {};
  }

  /**
   * The agent's answer to a new message, when it answers with a message and no task. A respond() that
   * throws or answers nonsense makes a task instead (validation and execution then decide).
   */
  async respond(message: IncomingMessage): Promise<Message | undefined> {
    if (!this.agent.respond) return undefined;
    try {
      const reply = await this.agent.respond(message);
      const answer = this.messageFrom(reply ?? undefined);
      return answer ? { ...answer, contextId: message.contextId } : undefined;
    } catch {
      return undefined;
    }
  }
}
