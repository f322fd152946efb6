/**
 * A2A v1.0 JSON-RPC codec (ProtoJSON shapes of a2a.proto): translates wire
 * params to the neutral commands and neutral results to wire objects.
 * Parsing follows ProtoJSON leniency where it is harmless (snake_case
 * aliases, integer enums, int32 as strings, null = unset) and ignores
 * unknown fields (they are dropped here: the domain never sees them), while
 * every known field is validated.
 */
import { A2A_STATES, type A2AState } from '../../domain/states.ts';
import type { Message, Part, TaskView } from '../../domain/task.ts';
import * as z from '../../validation/zod.ts';
import { MAX_PARTS, showValue } from './bounds.ts';
import type { A2ACodec } from './codec.ts';
import { type A2AProtocolError, badRequestOf, type ErrorInfoDetail, errorInfoOf } from './errors.ts';
import {
  type CancelTaskCommand,
  type CreatePushConfigCommand,
  finishCancelTask,
  finishGetTask,
  finishListTasks,
  finishSendMessage,
  finishSubscribeToTask,
  type GetExtendedAgentCardCommand,
  type GetTaskCommand,
  LIST_PAGE_SIZE,
  type ListPushConfigsCommand,
  type ListTasksCommand,
  type ListTasksResult,
  listResultWith,
  type ParseOptions,
  PUSH_CONFIG_LIMITS,
  type PushConfigCommand,
  type PushConfigView,
  type PushNotificationConfig,
  type SendMessageCommand,
  type SubscribeToTaskCommand,
  type TaskEncodeOptions,
} from './operations.ts';
import {
  encodeMessage,
  encodeStreamEvent,
  encodeTask,
  type V1ListPushConfigsResponse,
  type V1ListTasksResponse,
  type V1PushConfig,
  type V1SendMessageReply,
  type V1SendMessageResponse,
  type V1Task,
} from './v1-wire.ts';
import {
  base64Schema,
  boundedArray,
  boundedMetadataSchema,
  generationSchema,
  historyLengthSchema,
  idFilterSchema,
  int32,
  metadataSchema,
  nonEmpty,
  parseWire,
  taskIdSchema,
  timestampSchema,
  type UnknownFieldHint,
  wireObject,
} from './validation.ts';

export * from './v1-wire.ts';

export type V1ErrorDetails = [ErrorInfoDetail, ...Record<string, unknown>[]];

// ---- parsing ------------------------------------------------------------------------------------

/** Advice for a part without v1.0 content that carries these (v0.3) fields instead; they are ignored. */
const V1_HINTS: Readonly<Record<string, string>> = {
  kind:
    '"kind" is an A2A v0.3 field: v1.0 has no kind discriminators, a part is identified by its text, raw, url ' +
    'or data member (to send v0.3 shapes, omit the A2A-Version header and call message/send)',
  file: '"file" is the v0.3 file part: in v1.0 put the bytes in "raw" or the link in "url", with "mediaType" and "filename"',
  bytes: '"bytes" is a v0.3 file field: v1.0 uses "raw"',
  uri: '"uri" is a v0.3 file field: v1.0 uses "url"',
};
const hint: UnknownFieldHint = (key) => (Object.hasOwn(V1_HINTS, key) ? V1_HINTS[key] : undefined);

const ROLE_BY_WIRE: Readonly<Record<string, Message['role']>> = {
  ROLE_USER: 'user',
  ROLE_AGENT: 'agent',
  1: 'user',
  2: 'agent',
};

const roleSchema = z.pipe(
  z.unknown(),
  z.transform((v: unknown, ctx): Message['role'] => {
    const role =
      (typeof v === 'string' || typeof v === 'number') && Object.hasOwn(ROLE_BY_WIRE, v)
        ? ROLE_BY_WIRE[v]
        : undefined;
    if (role) return role;
    let message: string;
    if (v === undefined) message = 'is required (ROLE_USER or ROLE_AGENT)';
    else if (v === 'user' || v === 'agent') {
      message = `must be ROLE_USER or ROLE_AGENT; "${v}" is the A2A v0.3 spelling`;
    } else if (v === 'ROLE_UNSPECIFIED' || v === 0)
      message = 'must be ROLE_USER or ROLE_AGENT, not unspecified';
    else message = `must be ROLE_USER or ROLE_AGENT, got ${showValue(v)}`;
    ctx.issues.push({ code: 'custom', message, input: v });
    return z.NEVER;
  }),
);

/** ProtoJSON TaskState enum numbers (a2a.proto's TaskState). */
const STATE_NUMBERS: Readonly<Record<number, A2AState>> = {
  1: 'TASK_STATE_SUBMITTED',
  2: 'TASK_STATE_WORKING',
  3: 'TASK_STATE_COMPLETED',
  4: 'TASK_STATE_FAILED',
  5: 'TASK_STATE_CANCELED',
  6: 'TASK_STATE_INPUT_REQUIRED',
  7: 'TASK_STATE_REJECTED',
  8: 'TASK_STATE_AUTH_REQUIRED',
};

/** A state filter; TASK_STATE_UNSPECIFIED (the proto default) means "no filter". */
const stateFilterSchema = z.pipe(
  z.unknown(),
  z.transform((v: unknown, ctx): A2AState | undefined => {
    if (v === undefined || v === 'TASK_STATE_UNSPECIFIED' || v === 0) return undefined;
    if (typeof v === 'string' && (A2A_STATES as readonly string[]).includes(v)) return v as A2AState;
    if (typeof v === 'number' && Object.hasOwn(STATE_NUMBERS, v)) return STATE_NUMBERS[v];
    ctx.issues.push({
      code: 'custom',
      message: `must be a TaskState: one of ${A2A_STATES.join(', ')}, got ${showValue(v)}`,
      input: v,
    });
    return z.NEVER;
  }),
);

const CONTENT = ['text', 'raw', 'url', 'data'] as const;

const partSchema = wireObject(
  {
    text: z.optional(z.string()),
    raw: z.optional(base64Schema),
    url: z.optional(z.string().check(z.minLength(1))),
    data: z.optional(z.unknown()),
    mediaType: z.optional(z.string()),
    filename: z.optional(z.string()),
    metadata: z.optional(boundedMetadataSchema),
  },
  { media_type: 'mediaType' },
  { oneOf: { members: CONTENT, what: 'a part', hint } },
);

const messageSchema = wireObject(
  {
    messageId: z.string().check(z.minLength(1)),
    contextId: z.optional(z.string()),
    taskId: z.optional(z.string()),
    role: roleSchema,
    parts: boundedArray(partSchema, MAX_PARTS).check(z.minLength(1)),
    metadata: z.optional(boundedMetadataSchema),
    extensions: z.optional(boundedArray(z.string())),
    referenceTaskIds: z.optional(boundedArray(z.string())),
  },
  {
    message_id: 'messageId',
    context_id: 'contextId',
    task_id: 'taskId',
    reference_task_ids: 'referenceTaskIds',
  },
);

const authenticationSchema = wireObject({
  scheme: z.string().check(z.minLength(1), z.maxLength(64)),
  credentials: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.credentialsLength))),
});

const pushConfigSchema = wireObject(
  {
    tenant: z.optional(z.string()),
    id: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.idLength))),
    taskId: z.optional(idFilterSchema),
    url: z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.urlLength)),
    token: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.tokenLength))),
    authentication: z.optional(authenticationSchema),
  },
  { task_id: 'taskId' },
);

/** CreateTaskPushNotificationConfig: the config itself, its taskId required (REST: from the path). */
const createPushConfigSchema = wireObject(
  {
    tenant: z.optional(z.string()),
    id: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.idLength))),
    taskId: taskIdSchema,
    url: z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.urlLength)),
    token: z.optional(z.string().check(z.maxLength(PUSH_CONFIG_LIMITS.tokenLength))),
    authentication: z.optional(authenticationSchema),
  },
  { task_id: 'taskId' },
);

/** Get/DeleteTaskPushNotificationConfig: `{taskId, id}`. */
const pushConfigRefSchema = wireObject(
  {
    tenant: z.optional(z.string()),
    taskId: taskIdSchema,
    id: z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.idLength)),
  },
  { task_id: 'taskId' },
);

const listPushConfigsSchema = wireObject(
  {
    tenant: z.optional(z.string()),
    taskId: taskIdSchema,
    pageSize: z.optional(int32(true, { min: LIST_PAGE_SIZE.min, max: LIST_PAGE_SIZE.max })),
    pageToken: z.optional(z.string()),
  },
  { task_id: 'taskId', page_size: 'pageSize', page_token: 'pageToken' },
);

const configurationShape = {
  acceptedOutputModes: z.optional(boundedArray(z.string())),
  taskPushNotificationConfig: z.optional(pushConfigSchema),
  historyLength: z.optional(historyLengthSchema(true)),
  returnImmediately: z.optional(z.boolean()),
};
const configurationAliases = {
  accepted_output_modes: 'acceptedOutputModes',
  task_push_notification_config: 'taskPushNotificationConfig',
  history_length: 'historyLength',
  return_immediately: 'returnImmediately',
} as const;

/** The fields generations add (docs/generations.md): without them, an unknown field, dropped unread. */
const generationConfigurationSchema = wireObject(
  { ...configurationShape, ifGenerationMatch: z.optional(generationSchema) },
  { ...configurationAliases, if_generation_match: 'ifGenerationMatch' },
);

const sendMessageShape = {
  tenant: z.optional(z.string()),
  message: messageSchema,
  metadata: z.optional(boundedMetadataSchema),
};
const sendMessageSchema = wireObject({
  ...sendMessageShape,
  configuration: z.optional(wireObject(configurationShape, configurationAliases)),
});
const generationSendMessageSchema = wireObject({
  ...sendMessageShape,
  configuration: z.optional(generationConfigurationSchema),
});

const getTaskShape = {
  tenant: z.optional(z.string()),
  id: taskIdSchema,
  historyLength: z.optional(historyLengthSchema(true)),
};
const getTaskSchema = wireObject(getTaskShape, { history_length: 'historyLength' });
const generationGetTaskSchema = wireObject(
  { ...getTaskShape, currentGeneration: z.optional(generationSchema) },
  { history_length: 'historyLength', current_generation: 'currentGeneration' },
);

const listTasksSchema = wireObject(
  {
    tenant: z.optional(z.string()),
    contextId: z.optional(idFilterSchema),
    status: z.optional(stateFilterSchema),
    pageSize: z.optional(
      int32(true, {
        min: LIST_PAGE_SIZE.min,
        max: LIST_PAGE_SIZE.max,
        rangeError: `must be between ${LIST_PAGE_SIZE.min} and ${LIST_PAGE_SIZE.max}`,
      }),
    ),
    pageToken: z.optional(z.string()),
    historyLength: z.optional(historyLengthSchema(true)),
    statusTimestampAfter: z.optional(timestampSchema),
    includeArtifacts: z.optional(z.boolean()),
  },
  {
    context_id: 'contextId',
    page_size: 'pageSize',
    page_token: 'pageToken',
    history_length: 'historyLength',
    status_timestamp_after: 'statusTimestampAfter',
    include_artifacts: 'includeArtifacts',
  },
);

const subscribeToTaskSchema = wireObject({
  tenant: z.optional(z.string()),
  id: taskIdSchema,
});

const getExtendedAgentCardSchema = wireObject({ tenant: z.optional(z.string()) });

const cancelTaskSchema = wireObject({
  tenant: z.optional(z.string()),
  id: taskIdSchema,
  metadata: z.optional(metadataSchema),
});

type WirePart = z.output<typeof partSchema>;
type WireMessage = z.output<typeof messageSchema>;

function toDomainPart(p: WirePart): Part {
  return {
    ...(p.text !== undefined ? { text: p.text } : {}),
    ...(p.raw !== undefined ? { raw: p.raw } : {}),
    ...(p.url !== undefined ? { url: p.url } : {}),
    ...(p.data !== undefined ? { data: p.data } : {}),
    ...(nonEmpty(p.mediaType) ? { mediaType: p.mediaType } : {}),
    ...(nonEmpty(p.filename) ? { filename: p.filename } : {}),
    ...(p.metadata ? { metadata: p.metadata } : {}),
  };
}

function toDomainMessage(m: WireMessage): Message {
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

function toPushConfig(c: z.output<typeof pushConfigSchema>): PushNotificationConfig {
  return {
    ...(nonEmpty(c.id) ? { id: c.id } : {}),
    url: c.url,
    ...(nonEmpty(c.token) ? { token: c.token } : {}),
    ...(c.authentication
      ? {
          authentication: {
            scheme: c.authentication.scheme,
            ...(nonEmpty(c.authentication.credentials) ? { credentials: c.authentication.credentials } : {}),
          },
        }
      : {}),
  };
}

// ---- the codec ----------------------------------------------------------------------------------

export const v1Codec = {
  version: '1.0',

  parseSendMessage(params: unknown, options?: ParseOptions): SendMessageCommand {
    const p = options?.generations
      ? parseWire(generationSendMessageSchema, params)
      : parseWire(sendMessageSchema, params);
    const c: ({ ifGenerationMatch?: number } & NonNullable<typeof p.configuration>) | undefined =
      p.configuration;
    return finishSendMessage(
      {
        ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
        message: toDomainMessage(p.message),
        ...(c?.returnImmediately !== undefined ? { returnImmediately: c.returnImmediately } : {}),
        ...(c?.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
        ...(c?.acceptedOutputModes ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
        ...(c?.taskPushNotificationConfig
          ? { pushNotificationConfig: toPushConfig(c.taskPushNotificationConfig) }
          : {}),
        ...(p.metadata ? { metadata: p.metadata } : {}),
        ...(c?.ifGenerationMatch !== undefined ? { ifGenerationMatch: c.ifGenerationMatch } : {}),
      },
      options,
    );
  },

  parseGetTask(params: unknown, options?: ParseOptions): GetTaskCommand {
    const p: { currentGeneration?: number } & z.output<typeof getTaskSchema> = options?.generations
      ? parseWire(generationGetTaskSchema, params)
      : parseWire(getTaskSchema, params);
    return finishGetTask({
      ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
      id: p.id,
      ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}),
      ...(p.currentGeneration !== undefined ? { currentGeneration: p.currentGeneration } : {}),
    });
  },

  parseListTasks(params: unknown): ListTasksCommand {
    const p = parseWire(listTasksSchema, params);
    return finishListTasks({
      ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
      ...(nonEmpty(p.contextId) ? { contextId: p.contextId } : {}),
      ...(p.status ? { status: p.status } : {}),
      ...(p.pageSize !== undefined ? { pageSize: p.pageSize } : {}),
      ...(nonEmpty(p.pageToken) ? { pageToken: p.pageToken } : {}),
      ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}),
      ...(p.statusTimestampAfter ? { statusTimestampAfter: p.statusTimestampAfter } : {}),
      ...(p.includeArtifacts !== undefined ? { includeArtifacts: p.includeArtifacts } : {}),
    });
  },

  parseCancelTask(params: unknown): CancelTaskCommand {
    const p = parseWire(cancelTaskSchema, params);
    return finishCancelTask({
      ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
      id: p.id,
      ...(p.metadata ? { metadata: p.metadata } : {}),
    });
  },

  parseSubscribeToTask(params: unknown): SubscribeToTaskCommand {
    const p = parseWire(subscribeToTaskSchema, params);
    return finishSubscribeToTask({ ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}), id: p.id });
  },

  parseGetExtendedAgentCard(params: unknown): GetExtendedAgentCardCommand {
    const p = parseWire(getExtendedAgentCardSchema, params);
    return nonEmpty(p.tenant) ? { tenant: p.tenant } : {};
  },

  parseCreatePushConfig(params: unknown): CreatePushConfigCommand {
    const p = parseWire(createPushConfigSchema, params);
    return {
      ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
      taskId: p.taskId,
      config: toPushConfig(p),
    };
  },

  parsePushConfigRef(params: unknown, _purpose: 'get' | 'delete'): PushConfigCommand {
    const p = parseWire(pushConfigRefSchema, params);
    return { ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}), taskId: p.taskId, id: p.id };
  },

  parseListPushConfigs(params: unknown): ListPushConfigsCommand {
    const p = parseWire(listPushConfigsSchema, params);
    return {
      ...(nonEmpty(p.tenant) ? { tenant: p.tenant } : {}),
      taskId: p.taskId,
      ...(p.pageSize !== undefined ? { pageSize: p.pageSize } : {}),
      ...(nonEmpty(p.pageToken) ? { pageToken: p.pageToken } : {}),
    };
  },

  /** The flat v1.0 TaskPushNotificationConfig, its secrets left out. */
  encodePushConfig(config: PushConfigView): V1PushConfig {
    return {
      id: config.id,
      taskId: config.taskId,
      url: config.url,
      ...(config.authentication ? { authentication: { scheme: config.authentication.scheme } } : {}),
    };
  },

  encodePushConfigList(configs: readonly PushConfigView[], nextPageToken: string): V1ListPushConfigsResponse {
    return { configs: configs.map((c) => v1Codec.encodePushConfig(c)), nextPageToken };
  },

  encodeTask,

  encodeSendResult(view: TaskView, opts: TaskEncodeOptions): V1SendMessageResponse {
    return { task: encodeTask(view, opts) };
  },

  encodeSendReply(message: Message): V1SendMessageReply {
    return { message: encodeMessage(message) };
  },

  encodeGetResult(view: TaskView, opts: TaskEncodeOptions): V1Task {
    return encodeTask(view, opts);
  },

  encodeCancelResult(view: TaskView, opts: TaskEncodeOptions): V1Task {
    return encodeTask(view, opts);
  },

  /** All four fields always present (listResultWith). */
  encodeListResult: listResultWith(encodeTask) satisfies (
    r: ListTasksResult,
    o: TaskEncodeOptions,
  ) => V1ListTasksResponse,

  encodeStreamEvent,

  /** An array of typed details: always an ErrorInfo, plus a BadRequest for field violations. */
  errorData(err: A2AProtocolError): V1ErrorDetails {
    const badRequest = badRequestOf(err);
    return badRequest ? [errorInfoOf(err), { ...badRequest }] : [errorInfoOf(err)];
  },
} as const satisfies A2ACodec;
