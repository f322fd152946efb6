import type { Message, Part, TaskView } from '../../domain/task.ts';
import * as z from '../../validation/zod.ts';
import { MAX_PARTS, showValue } from './bounds.ts';
import type { A2ACodec } from './codec.ts';
import { A2AProtocolError } from './errors.ts';
import {
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
  DATA_PART_COMPAT_FLAG,
  encodeMessage,
  encodeStreamEvent,
  encodeTask,
  type V03ErrorData,
  type V03ListTasksResponse,
  type V03Message,
  type V03PushConfig,
  type V03Task,
} from './v03-wire.ts';
import {
  base64Schema,
  boundedArray,
  boundedMetadataSchema,
  generationSchema,
  historyLengthSchema,
  metadataSchema,
  nonEmpty,
  parseWire,
  taskIdSchema,
  type UnknownFieldHint,
  wireObject,
} from './validation.ts';

export * from './v03-wire.ts';

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
    metadata: z.optional(boundedMetadataSchema),
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
  metadata: z.optional(boundedMetadataSchema),
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
  taskId: taskIdSchema,
  pushNotificationConfig: pushConfigSchema,
});

/** Get/DeleteTaskPushNotificationConfigParams: `id` is the task's; the config's is optional for a get. */
const pushConfigRefSchema = wireObject({
  id: taskIdSchema,
  pushNotificationConfigId: z.optional(
    z.string().check(z.minLength(1), z.maxLength(PUSH_CONFIG_LIMITS.idLength)),
  ),
  metadata: z.optional(metadataSchema),
});

const configurationShape = {
  acceptedOutputModes: z.optional(boundedArray(z.string())),
  blocking: z.optional(z.boolean()),
  historyLength: z.optional(historyLengthSchema(false)),
  pushNotificationConfig: z.optional(pushConfigSchema),
};

const sendMessageSchema = wireObject({
  message: messageSchema,
  configuration: z.optional(wireObject(configurationShape)),
  metadata: z.optional(boundedMetadataSchema),
});
/** With generations on, the card's extension serves v0.3 clients too (docs/generations.md). */
const generationSendMessageSchema = wireObject({
  message: messageSchema,
  configuration: z.optional(
    wireObject(
      { ...configurationShape, ifGenerationMatch: z.optional(generationSchema) },
      { if_generation_match: 'ifGenerationMatch' },
    ),
  ),
  metadata: z.optional(boundedMetadataSchema),
});

/** TaskQueryParams; its `metadata` is accepted and ignored. */
const getTaskShape = {
  id: taskIdSchema,
  historyLength: z.optional(historyLengthSchema(false)),
  metadata: z.optional(metadataSchema),
};
const getTaskSchema = wireObject(getTaskShape);
const generationGetTaskSchema = wireObject(
  { ...getTaskShape, currentGeneration: z.optional(generationSchema) },
  { current_generation: 'currentGeneration' },
);

/** TaskIdParams (tasks/cancel, tasks/resubscribe). */
const noParamsSchema = wireObject({});

const cancelTaskSchema = wireObject({
  id: taskIdSchema,
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

// ---- the codec ----------------------------------------------------------------------------------

export const v03Codec = {
  version: '0.3',

  parseSendMessage(params: unknown, options?: ParseOptions): SendMessageCommand {
    const p = options?.generations
      ? parseWire(generationSendMessageSchema, params)
      : parseWire(sendMessageSchema, params);
    const c: ({ ifGenerationMatch?: number } & NonNullable<typeof p.configuration>) | undefined =
      p.configuration;
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
      id: p.id,
      ...(p.historyLength !== undefined ? { historyLength: p.historyLength } : {}),
      ...(p.currentGeneration !== undefined ? { currentGeneration: p.currentGeneration } : {}),
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
