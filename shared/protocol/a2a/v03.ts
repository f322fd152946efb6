/**
 * A2A v0.3 JSON-RPC codec (the v0.3 JSON Schema shapes: `kind`
 * discriminators, lower-case states, `user`/`agent` roles, nested file
 * parts). Used for requests without an `A2A-Version` header or with
 * `A2A-Version: 0.3`. Translates shapes only; the operations are the same
 * as v1.0's (v0.3 just has no ListTasks method). Unknown fields (v1.0 ones
 * included) are ignored: dropped here, the domain never sees them.
 */
import type { A2AState } from '../../domain/states.ts';
import type { Artifact, Message, Part, TaskView } from '../../domain/task.ts';
import * as z from '../../validation/zod.ts';
import { MAX_PARTS, showValue } from './bounds.ts';
import type { A2ACodec } from './codec.ts';
import { A2AProtocolError } from './errors.ts';
import {
  artifactFields,
  type CancelTaskCommand,
  type CreatePushConfigCommand,
  finishCancelTask,
  finishGetTask,
  finishSendMessage,
  finishSubscribeToTask,
  type GetExtendedAgentCardCommand,
  type GetTaskCommand,
  type ListPushConfigsCommand,
  type ListTasksCommand,
  type ListTasksResult,
  listResultWith,
  messageFields,
  type ParseOptions,
  PUSH_CONFIG_LIMITS,
  type PushConfigCommand,
  type PushConfigView,
  type PushNotificationConfig,
  projectTask,
  type SendMessageCommand,
  type StreamEvent,
  type SubscribeToTaskCommand,
  type TaskEncodeOptions,
} from './operations.ts';
import {
  base64Schema,
  boundedArray,
  historyLengthSchema,
  metadataSchema,
  nonEmpty,
  parseWire,
  type UnknownFieldHint,
  wireObject,
} from './validation.ts';

// ---- wire types (output) ------------------------------------------------------------------------

export type V03Role = 'user' | 'agent';
export type V03State =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'unknown';

export type V03Part =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> }
  | {
      kind: 'file';
      file:
        | { bytes: string; mimeType?: string; name?: string }
        | { uri: string; mimeType?: string; name?: string };
      metadata?: Record<string, unknown>;
    }
  | { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> };

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: V03State; message?: V03Message; timestamp: string };
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Record<string, unknown>;
}

export interface V03ListTasksResponse {
  tasks: V03Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03Task['status'];
  /** True on the last event of the stream (v0.3 consumers rely on it, sharp edge 9). */
  final: boolean;
  metadata?: Record<string, unknown>;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

/** A v0.3 stream event's `result`: the bare object, told apart by `kind`. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

/** v0.3 error `data`: free-form. */
/** TaskPushNotificationConfig as reads return it (no token, no credentials). */
export interface V03PushConfig {
  taskId: string;
  pushNotificationConfig: { id: string; url: string; authentication?: { schemes: string[] } };
}

export type V03ErrorData = Record<string, unknown> & { reason: string };

export const V03_STATE_OF: Readonly<Record<A2AState, V03State>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
};

/**
 * v0.3 data parts must hold an object. Like a2a-js's compat layer, other JSON values
 * travel wrapped as `{value}` with this metadata flag, and are unwrapped on input.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

// ---- parsing ------------------------------------------------------------------------------------

/** Advice for a part without v0.3 content that carries these (v1.0) fields instead; they are ignored. */
const V03_HINTS: Readonly<Record<string, string>> = {
  raw: '"raw" is a v1.0 part field: in v0.3 use {"kind":"file","file":{"bytes":…}} (or send A2A-Version: 1.0)',
  url: '"url" is a v1.0 part field: in v0.3 use {"kind":"file","file":{"uri":…}} (or send A2A-Version: 1.0)',
};
const hint: UnknownFieldHint = (key) => (Object.hasOwn(V03_HINTS, key) ? V03_HINTS[key] : undefined);

const roleSchema = z.pipe(
  z.unknown(),
  z.transform((v: unknown, ctx): Message['role'] => {
    if (v === 'user' || v === 'agent') return v;
    let message: string;
    if (v === undefined) message = 'is required ("user" or "agent")';
    else if (v === 'ROLE_USER' || v === 'ROLE_AGENT') {
      message = `must be "user" or "agent"; ${v} is the A2A v1.0 spelling (send A2A-Version: 1.0 to use it)`;
    } else message = `must be "user" or "agent", got ${showValue(v)}`;
    ctx.issues.push({ code: 'custom', message, input: v });
    return z.NEVER;
  }),
);

const fileSchema = wireObject(
  {
    bytes: z.optional(base64Schema),
    uri: z.optional(z.string().check(z.minLength(1))),
    mimeType: z.optional(z.string()),
    name: z.optional(z.string()),
  },
  {},
  { oneOf: { members: ['bytes', 'uri'], what: 'a file' } },
);

const PART_MEMBERS = ['text', 'file', 'data'] as const;

const partSchema = wireObject(
  {
    kind: z.optional(z.enum(['text', 'file', 'data'])),
    text: z.optional(z.string()),
    file: z.optional(fileSchema),
    data: z.optional(metadataSchema),
    metadata: z.optional(metadataSchema),
  },
  {},
  { oneOf: { members: PART_MEMBERS, what: 'a part', hint } },
).check(
  z.superRefine((p, ctx) => {
    const member = PART_MEMBERS.find((m) => p[m] !== undefined);
    if (member && p.kind !== undefined && p.kind !== member) {
      ctx.addIssue({
        code: 'custom',
        message: `is "${p.kind}" but the part carries "${member}"`,
        path: ['kind'],
        input: p.kind,
      });
    }
  }),
);

const messageSchema = wireObject({
  kind: z.optional(z.literal('message')),
  messageId: z.string().check(z.minLength(1)),
  contextId: z.optional(z.string()),
  taskId: z.optional(z.string()),
  role: roleSchema,
  parts: boundedArray(partSchema, MAX_PARTS).check(z.minLength(1)),
  metadata: z.optional(metadataSchema),
  extensions: z.optional(boundedArray(z.string())),
  referenceTaskIds: z.optional(boundedArray(z.string())),
});

const pushConfigSchema = wireObject({
  id: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.idLength))),
  url: z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.urlLength)),
  token: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.tokenLength))),
  authentication: z.optional(
    wireObject({
      schemes: boundedArray(z.string().check(z.maxLength(64))),
      credentials: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.credentialsLength))),
    }),
  ),
});

/** TaskPushNotificationConfig (tasks/pushNotificationConfig/set): the task and its config, nested. */
const setPushConfigSchema = wireObject({
  taskId: z.string().check(z.minLength(1)),
  pushNotificationConfig: pushConfigSchema,
});

/** Get/DeleteTaskPushNotificationConfigParams: `id` is the task's; the config's is optional for a get. */
const pushConfigRefSchema = wireObject({
  id: z.string().check(z.minLength(1)),
  pushNotificationConfigId: z.optional(
    z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.idLength)),
  ),
  metadata: z.optional(metadataSchema),
});

const configurationSchema = wireObject({
  acceptedOutputModes: z.optional(boundedArray(z.string())),
  blocking: z.optional(z.boolean()),
  historyLength: z.optional(historyLengthSchema(false)),
  pushNotificationConfig: z.optional(pushConfigSchema),
});

const sendMessageSchema = wireObject({
  message: messageSchema,
  configuration: z.optional(configurationSchema),
  metadata: z.optional(metadataSchema),
});

/** TaskQueryParams; its `metadata` is accepted and ignored. */
const getTaskSchema = wireObject({
  id: z.string().check(z.minLength(1)),
  historyLength: z.optional(historyLengthSchema(false)),
  metadata: z.optional(metadataSchema),
});

/** TaskIdParams (tasks/cancel, tasks/resubscribe). */
const noParamsSchema = wireObject({});

const cancelTaskSchema = wireObject({
  id: z.string().check(z.minLength(1)),
  metadata: z.optional(metadataSchema),
});

type WirePart = z.output<typeof partSchema>;

function toDomainPart(p: WirePart): Part {
  const metadata = p.metadata ? { ...p.metadata } : undefined;
  if (p.file) {
    const { file } = p;
    return {
      ...(file.bytes !== undefined ? { raw: file.bytes } : { url: file.uri }),
      ...(nonEmpty(file.mimeType) ? { mediaType: file.mimeType } : {}),
      ...(nonEmpty(file.name) ? { filename: file.name } : {}),
      ...(metadata ? { metadata } : {}),
    };
  }
  if (p.data) {
    let data: unknown = p.data;
    if (metadata?.[DATA_PART_COMPAT_FLAG] === true && Object.hasOwn(p.data, 'value')) {
      data = p.data.value;
      delete metadata[DATA_PART_COMPAT_FLAG];
    }
    return {
      data,
      ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
  }
  return { text: p.text ?? '', ...(metadata ? { metadata } : {}) };
}

function toDomainMessage(m: z.output<typeof messageSchema>): Message {
  return {
    messageId: m.messageId,
    role: m.role,
    parts: m.parts.map(toDomainPart),
    ...(nonEmpty(m.contextId) ? { contextId: m.contextId } : {}),
    ...(nonEmpty(m.taskId) ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(nonEmpty(m.extensions) ? { extensions: m.extensions } : {}),
    ...(nonEmpty(m.referenceTaskIds) ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
}

/** v0.3 allowed several auth schemes; v1.0 (and we) keep one, the first (as a2a-js does). */
function toPushConfig(c: z.output<typeof pushConfigSchema>): PushNotificationConfig {
  const scheme = c.authentication?.schemes[0];
  return {
    ...(nonEmpty(c.id) ? { id: c.id } : {}),
    url: c.url,
    ...(nonEmpty(c.token) ? { token: c.token } : {}),
    ...(scheme
      ? {
          authentication: {
            scheme,
            ...(nonEmpty(c.authentication?.credentials)
              ? { credentials: c.authentication?.credentials }
              : {}),
          },
        }
      : {}),
  };
}

// ---- encoding -----------------------------------------------------------------------------------

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lossy where v0.3 has no field: mediaType/filename of text and data parts are dropped. */
export function encodePart(p: Part): V03Part {
  const metadata = p.metadata ? { ...p.metadata } : undefined;
  const meta = metadata ? { metadata } : {};
  if (p.raw !== undefined || p.url !== undefined) {
    const details = {
      ...(nonEmpty(p.mediaType) ? { mimeType: p.mediaType } : {}),
      ...(nonEmpty(p.filename) ? { name: p.filename } : {}),
    };
    const file = p.raw !== undefined ? { bytes: p.raw, ...details } : { uri: p.url ?? '', ...details };
    return { kind: 'file', file, ...meta };
  }
  if (p.data !== undefined) {
    if (isPlainObject(p.data)) return { kind: 'data', data: p.data, ...meta };
    return {
      kind: 'data',
      data: { value: p.data },
      metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true },
    };
  }
  return { kind: 'text', text: p.text ?? '', ...meta };
}

export function encodeMessage(m: Message): V03Message {
  return { kind: 'message', ...messageFields(m, encodePart), role: m.role };
}

export function encodeArtifact(a: Artifact): V03Artifact {
  return artifactFields(a, encodePart);
}

function encodeTask(view: TaskView, opts: TaskEncodeOptions): V03Task {
  const t = projectTask(view, opts);
  return {
    kind: 'task',
    id: t.id,
    contextId: t.contextId,
    status: {
      state: V03_STATE_OF[t.state],
      ...(t.statusMessage ? { message: encodeMessage(t.statusMessage) } : {}),
      timestamp: t.timestamp,
    },
    ...(t.artifacts ? { artifacts: t.artifacts.map(encodeArtifact) } : {}),
    ...(t.history ? { history: t.history.map(encodeMessage) } : {}),
    ...(t.metadata ? { metadata: t.metadata } : {}),
  };
}

function encodeStreamEvent(event: StreamEvent): V03StreamEvent {
  switch (event.kind) {
    case 'task':
      return encodeTask(event.view, event.show);
    case 'message':
      return encodeMessage(event.message);
    case 'status-update':
      return {
        kind: 'status-update',
        taskId: event.taskId,
        contextId: event.contextId,
        status: {
          state: V03_STATE_OF[event.status.state],
          ...(event.status.message ? { message: encodeMessage(event.status.message) } : {}),
          timestamp: event.status.timestamp,
        },
        final: event.final,
      };
    case 'artifact-update':
      return {
        kind: 'artifact-update',
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: encodeArtifact(event.artifact),
        ...(event.append !== undefined ? { append: event.append } : {}),
        ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
      };
  }
}

// ---- the codec ----------------------------------------------------------------------------------

export const v03Codec = {
  version: '0.3',

  parseSendMessage(params: unknown, options?: ParseOptions): SendMessageCommand {
    const p = parseWire(sendMessageSchema, params);
    const c = p.configuration;
    return finishSendMessage(
      {
        message: toDomainMessage(p.message),
        // v0.3 `blocking` defaults to true, i.e. returnImmediately false.
        ...(c?.blocking !== undefined ? { returnImmediately: !c.blocking } : {}),
        ...(c?.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
        ...(c?.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
        ...(c?.pushNotificationConfig
          ? { pushNotificationConfig: toPushConfig(c.pushNotificationConfig) }
          : {}),
        ...(p.metadata ? { metadata: p.metadata } : {}),
      },
      options,
    );
  },

  parseGetTask(params: unknown): GetTaskCommand {
    const p = parseWire(getTaskSchema, params);
    return finishGetTask({
      id: p.id,
      ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}),
    });
  },

  /** Never reached through resolveOperation: v0.3 has no list method. */
  parseListTasks(_params: unknown): ListTasksCommand {
    throw A2AProtocolError.methodNotFound(
      'ListTasks',
      'A2A v0.3 has no list method; send A2A-Version: 1.0 and call ListTasks',
      { requiredVersion: '1.0' },
    );
  },

  parseCancelTask(params: unknown): CancelTaskCommand {
    const p = parseWire(cancelTaskSchema, params);
    return finishCancelTask({ id: p.id, ...(p.metadata ? { metadata: p.metadata } : {}) });
  },

  /** TaskIdParams: `metadata` is accepted and not kept. */
  parseSubscribeToTask(params: unknown): SubscribeToTaskCommand {
    const p = parseWire(cancelTaskSchema, params);
    return finishSubscribeToTask({ id: p.id });
  },

  /** `agent/getAuthenticatedExtendedCard` takes no params (omitted, null or `{}`). */
  parseGetExtendedAgentCard(params: unknown): GetExtendedAgentCardCommand {
    parseWire(noParamsSchema, params);
    return {};
  },

  parseCreatePushConfig(params: unknown): CreatePushConfigCommand {
    const p = parseWire(setPushConfigSchema, params);
    return { taskId: p.taskId, config: toPushConfig(p.pushNotificationConfig) };
  },

  parsePushConfigRef(params: unknown, purpose: 'get' | 'delete'): PushConfigCommand {
    const p = parseWire(pushConfigRefSchema, params);
    if (purpose === 'delete' && p.pushNotificationConfigId === undefined) {
      throw A2AProtocolError.invalidParams([
        { field: 'pushNotificationConfigId', description: 'is required to delete a config' },
      ]);
    }
    return { taskId: p.id, ...(p.pushNotificationConfigId ? { id: p.pushNotificationConfigId } : {}) };
  },

  /** ListTaskPushNotificationConfigParams: `{id}`, the task's; v0.3 has no paging. */
  parseListPushConfigs(params: unknown): ListPushConfigsCommand {
    const p = parseWire(cancelTaskSchema, params);
    return { taskId: p.id };
  },

  encodePushConfig(config: PushConfigView): V03PushConfig {
    return {
      taskId: config.taskId,
      pushNotificationConfig: {
        id: config.id,
        url: config.url,
        ...(config.authentication ? { authentication: { schemes: [config.authentication.scheme] } } : {}),
      },
    };
  },

  encodePushConfigList(configs: readonly PushConfigView[], _nextPageToken?: string): V03PushConfig[] {
    return configs.map((c) => v03Codec.encodePushConfig(c));
  },

  encodeTask,

  /** v0.3 returns the bare Task (with `kind: "task"`). */
  encodeSendResult(view: TaskView, opts: TaskEncodeOptions): V03Task {
    return encodeTask(view, opts);
  },

  /** v0.3 returns the bare Message (with `kind: "message"`). */
  encodeSendReply(message: Message): V03Message {
    return encodeMessage(message);
  },

  encodeGetResult(view: TaskView, opts: TaskEncodeOptions): V03Task {
    return encodeTask(view, opts);
  },

  encodeCancelResult(view: TaskView, opts: TaskEncodeOptions): V03Task {
    return encodeTask(view, opts);
  },

  /** Not reachable over v0.3 JSON-RPC; provided so every codec can render every result. */
  encodeListResult: listResultWith(encodeTask) satisfies (
    r: ListTasksResult,
    o: TaskEncodeOptions,
  ) => V03ListTasksResponse,

  encodeStreamEvent,

  /** Free-form: the ErrorInfo reason and metadata flattened, plus any field violations. */
  errorData(err: A2AProtocolError): V03ErrorData {
    return {
      ...err.metadata,
      reason: err.reason,
      ...(err.fieldViolations ? { fieldViolations: err.fieldViolations.map((v) => ({ ...v })) } : {}),
    };
  },
} as const satisfies A2ACodec;
