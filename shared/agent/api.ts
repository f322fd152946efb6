/**
 * The agent handler API: what a user implements to put an agent behind the
 * hub. It covers both protocols' needs: answer a message with a message (no
 * task), validate (accept / reject / ask for missing fields), execute with
 * progress, artifacts, questions and human decisions, and a description that
 * feeds the agent card.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Artifact, Message, Part } from '../domain/task.ts';

export type { Artifact, Message, Part };

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  /**
   * How long a task of this skill may live, in seconds, instead of the agent's `deadlineSeconds` (not shown
   * in the card). A task is of this skill when its first message names it (metadata `synapse.skill`) or
   * the agent's `skillOf` says so.
   */
  deadlineSeconds?: number;
}

export interface AgentDescription {
  name: string;
  description: string;
  /** The agent's own version (not the protocol's). */
  version: string;
  skills: AgentSkill[];
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  /** A2A extensions the agent supports, declared in the card's `capabilities.extensions`. */
  extensions?: AgentExtension[];
  /**
   * What the extended agent card (GetExtendedAgentCard, `GET /extendedAgentCard`) adds to the public
   * one: when set, the card declares `capabilities.extendedAgentCard` and the hub serves it.
   */
  extendedCard?: { description?: string; skills?: AgentSkill[] };
  /**
   * How long a task may live, in seconds from its creation, instead of the hub's TASK_TIMEOUT_SECONDS
   * (not shown in the card); a requester may ask for its own (metadata `synapse.deadlineSeconds`).
   */
  deadlineSeconds?: number;
}

/** An A2A extension (the card's AgentExtension); `required: true` means clients must activate it. */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: Record<string, unknown>;
}

/** A new message (not one for an existing task), offered to `respond` before a task is made. */
export interface IncomingMessage {
  contextId: string;
  request: Message;
  /** The text parts of `request`, joined by newlines. */
  text: string;
}

/**
 * What the agent says in a message: plain text, or parts (text, file: `raw` base64 bytes or `url`, with
 * `mediaType` and `filename`; `data`: any JSON) with optional message metadata.
 */
export type AgentMessageInput =
  | string
  | { text?: string; parts?: Part[]; metadata?: Record<string, unknown> };

/** A message answering a message: no task is made. */
export type Reply = Exclude<AgentMessageInput, string> | string;

/** What the agent is asked to work on. */
export interface TaskInput {
  taskId: string;
  contextId: string;
  /** The message that created the task. */
  request: Message;
  /** All messages of the task so far, oldest first (requester's and agent's). */
  history: Message[];
  /** The text parts of `request`, joined by newlines. */
  text: string;
}

export interface MissingField {
  field: string;
  reason?: string;
  suggestedValue?: unknown;
}

export type Validation =
  | { decision: 'accept' }
  | {
      decision: 'reject';
      code?: string;
      message: string;
      /**
       * Free details; `alternatives: {suggestedAgentId?, retryAfter? (s), partialSupport?}` is sent to a
       * Synapse requester as p2p:task_reject's `alternatives`.
       */
      details?: Record<string, unknown>;
    }
  | { decision: 'need_info'; question: string; missingFields?: MissingField[] };

export interface DecisionOption {
  field?: string;
  value: unknown;
  prosCons?: string;
  confidence?: number;
}

/** Why execute() is being called again for the same task. */
export type Resumption =
  | { kind: 'info'; message: Message; text: string }
  | { kind: 'human_decision'; approved: boolean; message?: Message; text: string; notes?: string };

export interface ArtifactInput {
  /** Generated when absent. Reuse the id with `append: true` to send an artifact in chunks. */
  artifactId?: string;
  name?: string;
  description?: string;
  parts: Part[];
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

export interface ExecutionContext {
  readonly task: TaskInput;
  /** Set when the requester answered a question or a human decided. */
  readonly resumption?: Resumption;
  /** Aborted as soon as the hub notices the task was canceled (or otherwise finished elsewhere). */
  readonly signal: AbortSignal;
  /**
   * Report a status update (A2A: status update; Synapse: p2p:task_status_update): with a message, or
   * without one (the task's status time moves on, its state stays working).
   */
  status(message?: AgentMessageInput): Promise<void>;
  /** Report progress, 0-100, with an optional message. */
  progress(percent: number, message?: AgentMessageInput): Promise<void>;
  /** Emit an artifact, whole or as one chunk; returns its id. */
  artifact(artifact: ArtifactInput): Promise<string>;
}

/** Set on any outcome: merged into the task's metadata (A2A Task.metadata), at most 4 KiB in all. */
export interface OutcomeMetadata {
  taskMetadata?: Record<string, unknown>;
}

export type Outcome = OutcomeMetadata &
  (
    | { kind: 'completed'; text?: AgentMessageInput; artifacts?: ArtifactInput[] }
    | { kind: 'failed'; code?: string; message: string; recoverable?: boolean }
    | { kind: 'input_required'; question: AgentMessageInput; missingFields?: MissingField[] }
    | { kind: 'human_decision'; question: AgentMessageInput; options?: DecisionOption[] }
    | { kind: 'rejected'; code?: string; message: string }
  );

export interface AgentHandler {
  describe(): AgentDescription;
  /**
   * Offered every new message first (not one sent to an existing task): return a reply to answer with a
   * message and make no task (quick, stateless answers), or undefined to make a task as usual. The same
   * message sent again gets the reply stored the first time (for a day), whatever this returns then.
   */
  respond?(message: IncomingMessage): Reply | undefined | Promise<Reply | undefined>;
  /** Called once per new task, before it is confirmed. Accepts everything when absent. */
  validate?(task: TaskInput): Validation | Promise<Validation>;
  /** Do the work. Called again (with `resumption`) after input or a human decision. */
  execute(ctx: ExecutionContext): Promise<Outcome>;
  /**
   * True when execute() may safely run again from the start for the same task: a run whose heartbeat
   * was lost (its Lambda died, say) is then run again, up to HEARTBEAT_MAX_RERUNS (3) times, instead
   * of failing the task with `heartbeat_lost`.
   */
  idempotent?: boolean;
  /** Which of the skills a new message asks for (for per-skill deadlines), when its metadata does not say. */
  skillOf?(message: IncomingMessage): string | undefined;
}

// Small constructors so agent code reads like the protocol.
export const complete = (text?: AgentMessageInput, artifacts?: ArtifactInput[]): Outcome => ({
  kind: 'completed',
  ...(text !== undefined ? { text } : {}),
  ...(artifacts ? { artifacts } : {}),
});
export const fail = (message: string, code?: string): Outcome => ({
  kind: 'failed',
  message,
  ...(code ? { code } : {}),
});
export const askForInput = (question: AgentMessageInput, missingFields?: MissingField[]): Outcome => ({
  kind: 'input_required',
  question,
  ...(missingFields ? { missingFields } : {}),
});
export const askHuman = (question: AgentMessageInput, options?: DecisionOption[]): Outcome => ({
  kind: 'human_decision',
  question,
  ...(options ? { options } : {}),
});
export const reject = (message: string, code?: string): Outcome => ({
  kind: 'rejected',
  message,
  ...(code ? { code } : {}),
});
export const textPart = (text: string): Part => ({ text, mediaType: 'text/plain' });
/** A file given inline: `bytes` are sent base64-encoded. */
export const filePart = (bytes: Uint8Array | string, mediaType: string, filename?: string): Part => ({
  raw: Buffer.from(bytes).toString('base64'),
  mediaType,
  ...(filename ? { filename } : {}),
});
/** A file by reference. */
export const fileUrlPart = (url: string, mediaType: string, filename?: string): Part => ({
  url,
  mediaType,
  ...(filename ? { filename } : {}),
});
/** Structured data (any JSON value). */
export const dataPart = (data: unknown): Part => ({ data, mediaType: 'application/json' });

/**
 * Waits `ms`, or less when `signal` aborts (pass the context's `signal`: a canceled task's wait ends at
 * once, and the next report, which throws then, ends the run).
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  // node's timer rejects with an AbortError on abort: here that is simply the end of the wait
  wait(ms, undefined, signal ? { signal } : {}).catch(() => undefined);

/** Joins the text parts of a message. */
export const textOf = (message: Message | undefined): string =>
  (message?.parts ?? [])
    .map((p) => p.text)
    .filter((t): t is string => t !== undefined)
    .join('\n');
