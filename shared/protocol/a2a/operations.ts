/**
 * The protocol-neutral operations: the commands a JSON-RPC handler hands to
 * the task engine, and the operation semantics shared by every wire version
 * (defaults, capability checks, history/artifact projection). Codecs only
 * translate shapes to and from these.
 */
import type { A2AState } from '../../domain/states.ts';
import { type Message, messageSchema } from '../../domain/task.ts';
import { A2AProtocolError } from './errors.ts';
import { invalidParamsOf } from './validation.ts';

/** Every A2A operation, by its v1.0 (= gRPC) name. */
export const PROTOCOL_OPERATIONS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export type ProtocolOperation = (typeof PROTOCOL_OPERATIONS)[number];

/**
 * The operations this server implements: all of them. Push-config operations answer
 * PushNotificationNotSupported where no delivery pipeline is configured (the handler decides).
 */
export const SUPPORTED_OPERATIONS = PROTOCOL_OPERATIONS;
export type Operation = (typeof SUPPORTED_OPERATIONS)[number];

export const isSupportedOperation = (op: string): op is Operation =>
  (SUPPORTED_OPERATIONS as readonly string[]).includes(op);

/** The operations answered with a stream of events (text/event-stream) instead of one result. */
export const STREAMING_OPERATIONS = ['SendStreamingMessage', 'SubscribeToTask'] as const;
export type StreamingOperation = (typeof STREAMING_OPERATIONS)[number];

export const LIST_PAGE_SIZE = { default: 50, min: 1, max: 100 } as const;

// ---- commands -----------------------------------------------------------------------------------

/** A webhook registration (v1.0 TaskPushNotificationConfig without tenant/taskId). */
export interface PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

export interface SendMessageCommand {
  /** `params.tenant` (v1.0 only); undefined when absent or empty. */
  tenant?: string;
  message: Message;
  /** From `message.taskId`: continue this task (A2A's multi-turn: the message names its task). */
  taskId?: string;
  /** From `message.contextId`; a taskId/contextId mismatch is the engine's to reject. */
  contextId?: string;
  /** v1.0 `configuration.returnImmediately`, v0.3 `!configuration.blocking`; default false (blocking). */
  returnImmediately: boolean;
  historyLength?: number;
  acceptedOutputModes?: string[];
  /** Only ever set when the caller declared push support (see ParseOptions). */
  pushNotificationConfig?: PushNotificationConfig;
  metadata?: Record<string, unknown>;
  /** `configuration.ifGenerationMatch` (dev-1.1); only read when generations are on (ParseOptions). */
  ifGenerationMatch?: number;
}

export interface GetTaskCommand {
  tenant?: string;
  id: string;
  historyLength?: number;
  /** `currentGeneration` (dev-1.1): long-poll until the task's generation is above it; generations on only. */
  currentGeneration?: number;
}

export interface ListTasksCommand {
  tenant?: string;
  contextId?: string;
  status?: A2AState;
  /** 1..100, default 50. */
  pageSize: number;
  pageToken?: string;
  historyLength?: number;
  /** Inclusive lower bound, normalized ISO-8601 UTC with milliseconds (`2025-01-01T00:00:00.000Z`). */
  statusTimestampAfter?: string;
  includeArtifacts: boolean;
}

export interface CancelTaskCommand {
  tenant?: string;
  id: string;
  metadata?: Record<string, unknown>;
}

/** SubscribeToTask (v0.3 `tasks/resubscribe`): the task to follow. */
export interface SubscribeToTaskCommand {
  tenant?: string;
  id: string;
}

/** CreateTaskPushNotificationConfig (v0.3 `tasks/pushNotificationConfig/set`): a webhook for a task. */
export interface CreatePushConfigCommand {
  tenant?: string;
  taskId: string;
  config: PushNotificationConfig;
}

/** Get/DeleteTaskPushNotificationConfig: one config of a task. */
export interface PushConfigCommand {
  tenant?: string;
  taskId: string;
  /** The config id; absent only in a v0.3 get, which then names the task's first config. */
  id?: string;
}

/** ListTaskPushNotificationConfigs (v0.3 `tasks/pushNotificationConfig/list`). */
export interface ListPushConfigsCommand {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

/**
 * A stored push config as reads show it: what it was registered with but its secrets. The token and the
 * credentials are never returned (a read must not leak them); the scheme is, so a client sees what is sent.
 */
export interface PushConfigView {
  taskId: string;
  id: string;
  url: string;
  authentication?: { scheme: string };
}

/** Bounds of a push config: a URL a receiver can be reached at, secrets of a sensible size. */
export const PUSH_CONFIG_LIMITS = {
  urlLength: 2048,
  idLength: 128,
  tokenLength: 1024,
  credentialsLength: 4096,
} as const;

/** GetExtendedAgentCard's params may be omitted (JSON-RPC clients send none). */
export interface GetExtendedAgentCardCommand {
  tenant?: string;
}

export interface CommandMap {
  SendMessage: SendMessageCommand;
  /** The same request as SendMessage; `returnImmediately` is irrelevant for a stream (it answers at once). */
  SendStreamingMessage: SendMessageCommand;
  GetTask: GetTaskCommand;
  ListTasks: ListTasksCommand;
  CancelTask: CancelTaskCommand;
  SubscribeToTask: SubscribeToTaskCommand;
  CreateTaskPushNotificationConfig: CreatePushConfigCommand;
  GetTaskPushNotificationConfig: PushConfigCommand;
  ListTaskPushNotificationConfigs: ListPushConfigsCommand;
  DeleteTaskPushNotificationConfig: PushConfigCommand;
  GetExtendedAgentCard: GetExtendedAgentCardCommand;
}

/** A parsed request: the operation and its command, discriminated on `operation`. */
export type ParsedRequest = { [Op in Operation]: { operation: Op; command: CommandMap[Op] } }[Operation];

export interface ParseOptions {
  /**
   * Whether this server accepts push-notification configs (agent card
   * `capabilities.pushNotifications`). Default false: an inline config in
   * SendMessage is then rejected with -32003 instead of being silently dropped.
   */
  pushNotifications?: boolean;
  /**
   * Whether generations are on (docs/generations.md). Default false: `ifGenerationMatch` and
   * `currentGeneration` are then unknown fields, ignored (not validated) as ProtoJSON ignores unknown fields.
   */
  generations?: boolean;
}

// ---- shared finishing steps (called by every codec after shape translation) ----------------------

/** A SendMessage request translated to domain shapes, before defaults and checks. */
export interface SendMessageDraft {
  tenant?: string;
  message: Message;
  returnImmediately?: boolean;
  historyLength?: number;
  acceptedOutputModes?: string[];
  pushNotificationConfig?: PushNotificationConfig;
  metadata?: Record<string, unknown>;
  ifGenerationMatch?: number;
}

export function finishSendMessage(draft: SendMessageDraft, options: ParseOptions = {}): SendMessageCommand {
  // Safety net: the engine must never receive a message its own schema would refuse.
  const checked = messageSchema.safeParse(draft.message);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => ({ ...i, path: ['message', ...i.path] }));
    throw invalidParamsOf(issues);
  }
  if (draft.pushNotificationConfig && !options.pushNotifications) {
    throw A2AProtocolError.pushNotificationNotSupported(
      'a push notification config was sent with the message; poll with GetTask instead',
    );
  }
  const { message } = draft;
  return {
    ...(draft.tenant ? { tenant: draft.tenant } : {}),
    message,
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    returnImmediately: draft.returnImmediately ?? false,
    ...(draft.historyLength !== undefined ? { historyLength: draft.historyLength } : {}),
    ...(draft.acceptedOutputModes?.length ? { acceptedOutputModes: draft.acceptedOutputModes } : {}),
    ...(draft.pushNotificationConfig ? { pushNotificationConfig: draft.pushNotificationConfig } : {}),
    ...(draft.metadata ? { metadata: draft.metadata } : {}),
    ...(options.generations && draft.ifGenerationMatch !== undefined
      ? { ifGenerationMatch: draft.ifGenerationMatch }
      : {}),
  };
}

export interface ListTasksDraft extends Omit<ListTasksCommand, 'pageSize' | 'includeArtifacts'> {
  pageSize?: number;
  includeArtifacts?: boolean;
}

export function finishListTasks(draft: ListTasksDraft): ListTasksCommand {
  return {
    ...(draft.tenant ? { tenant: draft.tenant } : {}),
    ...(draft.contextId ? { contextId: draft.contextId } : {}),
    ...(draft.status ? { status: draft.status } : {}),
    pageSize: draft.pageSize ?? LIST_PAGE_SIZE.default,
    ...(draft.pageToken ? { pageToken: draft.pageToken } : {}),
    ...(draft.historyLength !== undefined ? { historyLength: draft.historyLength } : {}),
    ...(draft.statusTimestampAfter ? { statusTimestampAfter: draft.statusTimestampAfter } : {}),
    includeArtifacts: draft.includeArtifacts ?? false,
  };
}

export function finishGetTask(draft: GetTaskCommand): GetTaskCommand {
  return {
    ...(draft.tenant ? { tenant: draft.tenant } : {}),
    id: draft.id,
    ...(draft.historyLength !== undefined ? { historyLength: draft.historyLength } : {}),
    ...(draft.currentGeneration !== undefined ? { currentGeneration: draft.currentGeneration } : {}),
  };
}

export function finishSubscribeToTask(draft: SubscribeToTaskCommand): SubscribeToTaskCommand {
  return { ...(draft.tenant ? { tenant: draft.tenant } : {}), id: draft.id };
}

export function finishCancelTask(draft: CancelTaskCommand): CancelTaskCommand {
  return {
    ...(draft.tenant ? { tenant: draft.tenant } : {}),
    id: draft.id,
    ...(draft.metadata ? { metadata: draft.metadata } : {}),
  };
}

// ---- results: the version-neutral shapes every codec encodes (./projection.ts) ----------------

export * from './projection.ts';
