/**
 * Runs the agent for one executor message: validate a new task, claim it
 * with a conditional transition (so a redelivered message never runs a task
 * twice), execute, and record everything the agent reports through the engine.
 */
import type {
  AgentHandler,
  ArtifactInput,
  ExecutionContext,
  Outcome,
  Resumption,
  TaskInput,
  Validation,
} from '../agent/api.ts';
import { textOf } from '../agent/api.ts';
import { ConflictError, InvalidTransitionError, ValidationError } from '../domain/errors.ts';
import { isTerminal } from '../domain/states.ts';
import type { EventDraft, Message, TaskHead, TaskView } from '../domain/task.ts';
import type { ExecutorRun, IdGenerator, TaskRef } from './ports.ts';
import { randomIds, type TaskEngine } from './task-engine.ts';

export type RunResult = 'completed' | 'waiting' | 'finished' | 'stopped' | 'skipped';

const RESUMABLE = new Set(['info_provided', 'human_approved', 'human_rejected']);

// 2,000 characters stay under the 8 KiB status-message limit even in 3-byte UTF-8 scripts
/** Messages handed to the agent: the most recent ones (plus always the request). */
export const AGENT_HISTORY_LENGTH = 200;

export const MAX_STATUS_TEXT = 2000;
/** Status messages stay within their 8 KiB limit as JSON (control characters escape to 6 bytes each). */
const MAX_STATUS_JSON_BYTES = 6 * 1024;
const clip = (input: unknown): string => {
  let text = typeof input === 'string' ? input : String(input ?? '');
  if (text.length <= MAX_STATUS_TEXT && Buffer.byteLength(JSON.stringify(text)) <= MAX_STATUS_JSON_BYTES)
    return text;
  let keep = Math.min(text.length, MAX_STATUS_TEXT - 1);
  while (keep > 0 && Buffer.byteLength(JSON.stringify(text.slice(0, keep))) > MAX_STATUS_JSON_BYTES - 8) {
    keep = Math.floor(keep * 0.9);
  }
  // never cut a surrogate pair in half: a lone surrogate is not valid Unicode for strict JSON parsers
  const last = text.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep--;
  text = `${text.slice(0, keep)}…`;
  return text;
};

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The task was canceled or finished elsewhere while the agent was running. */
class TaskStoppedError extends Error {}

/** Lost a race that another executor (or a cancel) won: nothing to do. */
const lostRace = (e: unknown): boolean => e instanceof InvalidTransitionError || e instanceof ConflictError;

export class TaskExecutor {
  constructor(
    private readonly engine: TaskEngine,
    private readonly agent: AgentHandler,
    private readonly ids: IdGenerator = randomIds,
  ) {}

  async run(run: ExecutorRun): Promise<RunResult> {
    const ref: TaskRef = { tenant: run.tenant, taskId: run.taskId };
    // one read gives the head to decide on and the (recent) history the agent needs
    const view = await this.engine.store.read(ref, { historyLength: AGENT_HISTORY_LENGTH });
    if (!view || isTerminal(view.head.state)) return 'skipped';
    const input = await this.inputOf(ref, view);
    let head = view.head;

    if (head.state === 'pending') {
      const next = await this.validate(ref, head, input);
      if (!next) return 'skipped';
      if (next.state !== 'confirmed') return next.state === 'info_needed' ? 'waiting' : 'finished';
      head = next;
    }

    let resumption: Resumption | undefined;
    let claimed: TaskHead | undefined;
    if (head.state === 'confirmed') {
      claimed = await this.claim(ref, head, { type: 'start' });
    } else if (RESUMABLE.has(head.state)) {
      resumption = await this.resumptionOf(ref, head);
      claimed = await this.claim(ref, head, { type: 'resume' });
    }
    // otherwise executing (someone holds it) or waiting for the requester: not ours to run
    if (!claimed) return 'skipped';
    return this.execute(ref, claimed, input, resumption);
  }

  /** Validation whose answer cannot be recorded (or that throws) fails the task rather than leave it pending. */
  private async validate(ref: TaskRef, head: TaskHead, input: TaskInput): Promise<TaskHead | undefined> {
    let validation: Validation;
    try {
      validation = (await this.agent.validate?.(input)) ?? { decision: 'accept' };
    } catch (e) {
      return this.recordValidationFailure(ref, head, 'execution_failed', `Validation threw: ${messageOf(e)}`);
    }
    try {
      return await this.recordValidation(ref, head, validation);
    } catch (e) {
      if (!(e instanceof ValidationError) && !(e instanceof TypeError)) throw e;
      return this.recordValidationFailure(
        ref,
        head,
        'invalid_agent_output',
        `Invalid validation: ${messageOf(e)}`,
      );
    }
  }

  private async recordValidationFailure(ref: TaskRef, head: TaskHead, code: string, message: string) {
    try {
      return (
        await this.engine.apply(ref, this.outcomeDrafts({ kind: 'failed', code, message })[0]!, {
          seen: head,
        })
      ).head;
    } catch (e) {
      if (lostRace(e)) return undefined;
      throw e;
    }
  }

  private async recordValidation(ref: TaskRef, seen: TaskHead, v: Validation): Promise<TaskHead | undefined> {
    const draft: EventDraft =
      v.decision === 'accept'
        ? { type: 'confirm' }
        : v.decision === 'reject'
          ? {
              type: 'reject',
              message: this.agentMessage(v.message),
              reason: { code: v.code ?? 'capability_lacking', message: clip(v.message) },
            }
          : {
              type: 'need_info',
              message: this.agentMessage(v.question),
              data: { missingFields: v.missingFields ?? [] },
            };
    try {
      return (await this.engine.apply(ref, draft, { seen })).head;
    } catch (e) {
      if (lostRace(e)) return undefined;
      throw e;
    }
  }

  /** The claim: one conditional write; whoever loses it does not run the agent. */
  private async claim(ref: TaskRef, seen: TaskHead, draft: EventDraft): Promise<TaskHead | undefined> {
    try {
      return (await this.engine.apply(ref, draft, { seen })).head;
    } catch (e) {
      if (lostRace(e)) return undefined;
      throw e;
    }
  }

  private async execute(
    ref: TaskRef,
    claimed: TaskHead,
    task: TaskInput,
    resumption?: Resumption,
  ): Promise<RunResult> {
    const abort = new AbortController();
    // each write starts from the head we wrote last; if someone else moved the task the engine re-reads
    let last = claimed;
    const record = async (draft: EventDraft) => {
      try {
        last = (await this.engine.apply(ref, draft, { seen: last })).head;
      } catch (e) {
        if (e instanceof InvalidTransitionError) {
          abort.abort();
          throw new TaskStoppedError(e.message);
        }
        throw e;
      }
    };
    const ctx: ExecutionContext = {
      task,
      ...(resumption ? { resumption } : {}),
      signal: abort.signal,
      status: (text) => record({ type: 'status_update', message: this.agentMessage(text) }),
      progress: (percent, text) =>
        record({
          type: 'status_update',
          progress: percent,
          ...(text ? { message: this.agentMessage(text) } : {}),
        }),
      artifact: async (a) => {
        const chunk = this.chunk(a);
        await record({ type: 'artifact', artifact: chunk });
        return chunk.artifact.artifactId;
      },
    };

    try {
      let outcome: Outcome;
      try {
        outcome = await this.agent.execute(ctx);
      } catch (e) {
        if (e instanceof TaskStoppedError) return 'stopped';
        const message = e instanceof Error ? e.message : String(e);
        outcome = { kind: 'failed', code: 'execution_failed', message };
      }
      try {
        for (const draft of this.outcomeDrafts(outcome)) await record(draft);
      } catch (e) {
        if (e instanceof TaskStoppedError) throw e;
        // the outcome could not be recorded (invalid agent output, or the store failed): fail the task now,
        // rather than leave it executing until its deadline; if even that fails, the queue retries the run
        const why = e instanceof Error ? e.message : String(e);
        const code = e instanceof ValidationError ? 'invalid_agent_output' : 'execution_failed';
        await record(
          this.outcomeDrafts({ kind: 'failed', code, message: `Could not record the outcome: ${why}` })[0]!,
        );
        return 'completed';
      }
      return outcome.kind === 'input_required' || outcome.kind === 'human_decision' ? 'waiting' : 'completed';
    } catch (e) {
      if (e instanceof TaskStoppedError) return 'stopped';
      throw e;
    }
  }

  private outcomeDrafts(outcome: Outcome): EventDraft[] {
    switch (outcome.kind) {
      case 'completed':
        return [
          ...(outcome.artifacts ?? []).map((a) => ({ type: 'artifact' as const, artifact: this.chunk(a) })),
          { type: 'complete', ...(outcome.text ? { message: this.agentMessage(outcome.text) } : {}) },
        ];
      case 'failed':
        return [
          {
            type: 'fail',
            message: this.agentMessage(outcome.message),
            reason: {
              code: outcome.code ?? 'execution_failed',
              message: clip(outcome.message),
              ...(outcome.recoverable !== undefined ? { details: { recoverable: outcome.recoverable } } : {}),
            },
          },
        ];
      case 'input_required':
        return [
          {
            type: 'need_info',
            message: this.agentMessage(outcome.question),
            data: { missingFields: outcome.missingFields ?? [] },
          },
        ];
      case 'human_decision':
        return [
          {
            type: 'need_human',
            message: this.agentMessage(outcome.question),
            data: { options: outcome.options ?? [] },
          },
        ];
      case 'rejected':
        return [
          {
            type: 'reject',
            message: this.agentMessage(outcome.message),
            reason: { code: outcome.code ?? 'rejected', message: clip(outcome.message) },
          },
        ];
    }
  }

  private async inputOf(ref: TaskRef, view: TaskView): Promise<TaskInput> {
    // the request is the message that created the task (event 1); a long history may have cut it off
    const request =
      (view.history.length < AGENT_HISTORY_LENGTH
        ? view.history.find((m) => m.role === 'user')
        : (await this.engine.store.events(ref, 0, 1))[0]?.message) ?? this.agentMessage('');
    return {
      taskId: view.head.taskId,
      contextId: view.head.contextId,
      request,
      history: view.history,
      text: textOf(request),
    };
  }

  /** The event that moved the task into a resumable state says why we run again. */
  private async resumptionOf(ref: TaskRef, head: TaskHead): Promise<Resumption | undefined> {
    const [event] = await this.engine.store.events(ref, head.version - 1, 1);
    if (!event) return undefined;
    const text = textOf(event.message);
    if (event.type === 'info_provided' && event.message)
      return { kind: 'info', message: event.message, text };
    if (event.type === 'human_approve' || event.type === 'human_reject') {
      const notes = typeof event.data?.notes === 'string' ? event.data.notes : undefined;
      return {
        kind: 'human_decision',
        approved: event.type === 'human_approve',
        text,
        ...(event.message ? { message: event.message } : {}),
        ...(notes ? { notes } : {}),
      };
    }
    return undefined;
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
  private agentMessage(text: string): Message {
    return {
      messageId: this.ids.messageId(),
      role: 'agent',
      parts: [{ text: clip(text), mediaType: 'text/plain' }],
    };
  }
}
