/**
 * The agent handler API: what a user implements to put an agent behind the
 * hub. It covers both protocols' needs: validate (accept / reject / ask for
 * missing fields), execute with progress, artifacts, questions and human
 * decisions, and a description that feeds the agent card.
 */
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
}

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
  | { decision: 'reject'; code?: string; message: string }
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
  /** Report a status message (A2A: status update; Synapse: p2p:task_status_update). */
  status(text: string): Promise<void>;
  /** Report progress, 0-100, with an optional message. */
  progress(percent: number, text?: string): Promise<void>;
  /** Emit an artifact, whole or as one chunk; returns its id. */
  artifact(artifact: ArtifactInput): Promise<string>;
}

export type Outcome =
  | { kind: 'completed'; text?: string; artifacts?: ArtifactInput[] }
  | { kind: 'failed'; code?: string; message: string; recoverable?: boolean }
  | { kind: 'input_required'; question: string; missingFields?: MissingField[] }
  | { kind: 'human_decision'; question: string; options?: DecisionOption[] }
  | { kind: 'rejected'; code?: string; message: string };

export interface AgentHandler {
  describe(): AgentDescription;
  /** Called once per new task, before it is confirmed. Accepts everything when absent. */
  validate?(task: TaskInput): Validation | Promise<Validation>;
  /** Do the work. Called again (with `resumption`) after input or a human decision. */
  execute(ctx: ExecutionContext): Promise<Outcome>;
}

// Small constructors so agent code reads like the protocol.
export const complete = (text?: string, artifacts?: ArtifactInput[]): Outcome => ({
  kind: 'completed',
  ...(text !== undefined ? { text } : {}),
  ...(artifacts ? { artifacts } : {}),
});
export const fail = (message: string, code?: string): Outcome => ({
  kind: 'failed',
  message,
  ...(code ? { code } : {}),
});
export const askForInput = (question: string, missingFields?: MissingField[]): Outcome => ({
  kind: 'input_required',
  question,
  ...(missingFields ? { missingFields } : {}),
});
export const askHuman = (question: string, options?: DecisionOption[]): Outcome => ({
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

/** Joins the text parts of a message. */
export const textOf = (message: Message | undefined): string =>
  (message?.parts ?? [])
    .map((p) => p.text)
    .filter((t): t is string => t !== undefined)
    .join('\n');
