/**
 * The JSON-RPC binding of A2A: owns the envelope, the content types, the
 * request and response size limits, id echoing and the HTTP status of each
 * answer. It picks the codec from A2A-Version, resolves the method, hands
 * the command to the transport-neutral A2AHandler and encodes what it
 * returns; codecs only translate shapes.
 *
 * The streaming methods (SendStreamingMessage, SubscribeToTask; v0.3
 * message/stream, tasks/resubscribe) answer `text/event-stream`: each SSE
 * `data:` is a whole JSON-RPC response with the request's id (what JSON-RPC
 * clients match events by)
 * whose result is the event in the requested version's shape, and its `id:`
 * the task version it comes from. An error before the first event is a plain
 * JSON-RPC error answer (not a stream); one after it is a last `data:` with the
 * JSON-RPC error, then the stream ends (docs/streaming.md#resuming).
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import { AuthError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { logger } from '../../observability/index.ts';
import type { TaskStore } from '../../ports/task-store.ts';
import type { WireObject } from '../../protocol/a2a/codec.ts';
import { activatedExtensionsHeader } from '../../protocol/a2a/extensions.ts';
import {
  type A2ACodec,
  A2AProtocolError,
  checkContentType,
  ERROR_CODES,
  errorCodecFor,
  errorHeaders,
  failure,
  httpStatusOf,
  isValidId,
  type JsonRpcId,
  jsonRpcError,
  parseEnvelope,
  parseRequest,
  selectCodec,
  success,
  toProtocolError,
} from '../../protocol/a2a/index.ts';
import type { CommandMap, Operation, StreamingOperation } from '../../protocol/a2a/operations.ts';
import { clip } from '../../validation/text.ts';
import type { TaskService } from '../tasks/task-service.ts';
import { A2AHandler, type A2AHandlerOptions } from './handler.ts';
import {
  answerWithSse,
  isStreamRequest,
  keysOfStreamItem,
  type SseStream,
  type StreamRequest,
} from './sse-answer.ts';

export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * A Lambda response carries at most 6 MB, the proxy result's JSON included (the body is a JSON
 * string in it, escaped): a result whose escaped body exceeds this is answered with an error instead,
 * which API Gateway can deliver (rather than a bare 502).
 */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** Method names are clipped to this many characters in logs and metadata. */
const MAX_LOGGED_METHOD_LENGTH = 100;

export interface RpcRequest {
  body: string | undefined | null;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  /** Who is calling (shared/adapters/lambda/auth-context.ts), or why they may not: answered before anything is parsed. */
  principal: Principal | AuthError;
  /** How long a blocking SendMessage may wait for the task to settle. */
  blockingBudgetMs: number;
  /** How long a stream may stay open (ms); default DEFAULT_STREAM_BUDGET_MS. */
  streamBudgetMs?: number;
  /** The deployment's public URL (the extended card's interfaces), without a trailing slash. */
  publicUrl?: string;
}

export interface RpcResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** The answer; '' for a stream. */
  body: string;
  /** A text/event-stream answer: the chunks to write after the headers. */
  stream?: SseStream;
  /**
   * Work the request started that goes on after this answer (a streamed send whose stream failed
   * before its first event while its agent still runs): the invocation must not end before it.
   */
  settled?: Promise<void>;
  /** For logs: what the request was about. */
  meta?: { method?: string; taskId?: string; contextId?: string; errorCode?: number };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

const reply = (
  id: JsonRpcId,
  outcome: { result: unknown } | { error: A2AProtocolError; codec: A2ACodec },
) => {
  if ('result' in outcome) {
    return { statusCode: 200, headers: JSON_HEADERS, body: JSON.stringify(success(id, outcome.result)) };
  }
  return {
    statusCode: httpStatusOf(outcome.error.code),
    headers: { ...JSON_HEADERS, ...errorHeaders(outcome.error) },
    body: JSON.stringify(failure(id, jsonRpcError(outcome.codec, outcome.error))),
  };
};

export interface JsonRpcBindingOptions {
  /** Where internal errors (-32603) are logged, with their cause; default the functions' logger. */
  logger?: Pick<Logger, 'error'>;
}

/** jsonRpcOver's options: the binding's, and the handler's (the store streams read, their timing). */
export interface JsonRpcOverOptions extends JsonRpcBindingOptions, A2AHandlerOptions {
  store?: TaskStore;
}

/** The answer when even building an error answer failed: fixed, small, and it leaks nothing. */
const LAST_RESORT: RpcResponse = {
  statusCode: 500,
  headers: JSON_HEADERS,
  body: JSON.stringify(
    failure(null, {
      code: ERROR_CODES.INTERNAL_ERROR,
      message: 'Internal error',
      data: { reason: 'INTERNAL_ERROR' },
    }),
  ),
};

/** The JSON-RPC `result` of an operation answered at once: a wire object, or null (v0.3's delete). */
type RpcResult = WireObject | null;

/** The operations answered with one result (the others answer a stream). */
type UnaryOperation = Exclude<Operation, StreamingOperation>;

/** What an operation's result is made of: the request, its codec and caller, and the log keys it fills in. */
interface RunContext {
  handler: A2AHandler;
  codec: A2ACodec;
  request: RpcRequest;
  caller: Principal;
  meta: NonNullable<RpcResponse['meta']>;
  extensions: readonly string[];
}

/** Notes the task (and context) a result is about, for the logs. */
const noteTask = (
  meta: NonNullable<RpcResponse['meta']>,
  view: { head: { taskId: string; contextId: string } },
) => {
  meta.taskId = view.head.taskId;
  meta.contextId = view.head.contextId;
};

/** How each operation answered at once is run: an operation without an entry is a type error here. */
const RUNNERS: {
  readonly [Op in UnaryOperation]: (command: CommandMap[Op], context: RunContext) => Promise<RpcResult>;
} = {
  SendMessage: async (command, { handler, codec, request, caller, meta, extensions }) => {
    const sent = await handler.sendMessage(caller, command, {
      blockingBudgetMs: request.blockingBudgetMs,
      version: codec.version,
      extensions,
    });
    if (sent.kind === 'message') {
      // answered with a message: no task
      if (sent.message.contextId) meta.contextId = sent.message.contextId;
      return codec.encodeSendReply(sent.message);
    }
    noteTask(meta, sent.view);
    return codec.encodeSendResult(sent.view, sent.show);
  },
  GetTask: async (command, { handler, codec, request, caller, meta, extensions }) => {
    // a long poll (currentGeneration) waits at most as long as a blocking send
    const got = await handler.getTask(caller, command, {
      waitBudgetMs: request.blockingBudgetMs,
      extensions,
    });
    noteTask(meta, got.view);
    return codec.encodeGetResult(got.view, got.show);
  },
  ListTasks: async (command, { handler, codec, caller, extensions }) => {
    const listed = await handler.listTasks(caller, command, { extensions });
    return codec.encodeListResult(listed.page, listed.show);
  },
  CancelTask: async (command, { handler, codec, caller, meta, extensions }) => {
    const canceled = await handler.cancelTask(caller, command, { extensions });
    noteTask(meta, canceled.view);
    return codec.encodeCancelResult(canceled.view, canceled.show);
  },
  CreateTaskPushNotificationConfig: async (command, { handler, codec, caller, meta }) => {
    meta.taskId = command.taskId;
    return codec.encodePushConfig(await handler.createPushConfig(caller, command, codec.version));
  },
  GetTaskPushNotificationConfig: async (command, { handler, codec, caller, meta }) => {
    meta.taskId = command.taskId;
    return codec.encodePushConfig(await handler.getPushConfig(caller, command));
  },
  ListTaskPushNotificationConfigs: async (command, { handler, codec, caller, meta }) => {
    meta.taskId = command.taskId;
    return codec.encodePushConfigList(await handler.listPushConfigs(caller, command), '');
  },
  DeleteTaskPushNotificationConfig: async (command, { handler, codec, caller, meta }) => {
    meta.taskId = command.taskId;
    await handler.deletePushConfig(caller, command);
    // google.protobuf.Empty (a2a-js answers null; v0.3 defined a null result)
    return codec.version === '1.0' ? {} : null;
  },
  GetExtendedAgentCard: async (command, { handler, codec, request, caller }) =>
    handler.getExtendedAgentCard(caller, {
      publicUrl: request.publicUrl ?? '',
      version: codec.version,
      ...(command.tenant ? { tenant: command.tenant } : {}),
    }),
};

export class JsonRpcBinding {
  private readonly log: Pick<Logger, 'error'>;

  constructor(
    private readonly handler: A2AHandler,
    options: JsonRpcBindingOptions = {},
  ) {
    this.log = options.logger ?? logger;
  }

  /**
   * Never throws: whatever fails is answered. A -32603 (a fault of ours, not of the request) is
   * logged at ERROR with the error, its stack and cause; the client only reads "Internal error".
   */
  async handle(request: RpcRequest): Promise<RpcResponse> {
    try {
      return await this.answer(request);
    } catch (e) {
      // a failure outside the operation (reading the request, encoding an answer)
      this.logInternal(e, undefined);
      try {
        const error = A2AProtocolError.internalError('Internal error', e);
        return {
          ...reply(null, { error, codec: errorCodecFor(undefined) }),
          meta: { errorCode: error.code },
        };
      } catch {
        return LAST_RESORT;
      }
    }
  }

  private logInternal(cause: unknown, method: string | undefined): void {
    this.log.error('JSON-RPC request failed with an internal error', {
      ...(method !== undefined ? { method } : {}),
      error: cause instanceof Error ? cause : String(cause),
    });
  }

  private async answer(request: RpcRequest): Promise<RpcResponse> {
    const versionHeader = request.headers['a2a-version'];
    const size = Buffer.byteLength(request.body ?? '', 'utf8');
    let codec: A2ACodec;
    try {
      codec = selectCodec(versionHeader);
    } catch (e) {
      return reply(peekId(request.body, size), {
        error: toProtocolError(e),
        codec: errorCodecFor(versionHeader),
      });
    }
    // decided before the body is parsed as a request: only its id is looked for, to echo it
    const { principal } = request;
    if (principal instanceof AuthError)
      return reply(peekId(request.body, size), { error: toProtocolError(principal), codec });
    const unsupported = checkContentType(request.headers['content-type']);
    if (unsupported) return reply(peekId(request.body, size), { error: unsupported, codec });
    if (size > MAX_REQUEST_BYTES) {
      const error = A2AProtocolError.invalidRequest(
        `Request body is ${size} bytes; the limit is ${MAX_REQUEST_BYTES} bytes`,
      );
      return { ...reply(peekId(request.body, size), { error, codec }), statusCode: 413 };
    }
    const envelope = parseEnvelope(request.body);
    if (!envelope.ok) return reply(envelope.id, { error: envelope.error, codec });
    const meta: NonNullable<RpcResponse['meta']> = {
      method: clip(envelope.method, MAX_LOGGED_METHOD_LENGTH),
    };
    try {
      const parsed = parseRequest(codec, envelope.method, envelope.params, {
        pushNotifications: this.handler.pushNotifications,
        generations: this.handler.generations,
      });
      const extensions = this.handler.activateExtensions(request.headers);
      const echoed = activatedExtensionsHeader(codec.version, extensions);
      if (isStreamRequest(parsed)) {
        const streamed = await this.stream(codec, parsed, envelope.id, request, principal, meta, extensions);
        return { ...streamed, headers: { ...streamed.headers, ...echoed } };
      }
      const result = await this.run(codec, parsed, request, principal, meta, extensions);
      const answered = reply(envelope.id, { result });
      const response = { ...answered, headers: { ...answered.headers, ...echoed } };
      // measured as the proxy result will carry it: a JSON string, escaped
      const carried = Buffer.byteLength(JSON.stringify(response.body), 'utf8');
      if (carried > MAX_RESPONSE_BYTES) {
        throw A2AProtocolError.internalError(
          `Internal error: the result is too large to return (${carried} bytes, the limit is ` +
            `${MAX_RESPONSE_BYTES}); ask for less of it (historyLength, pageSize, includeArtifacts)`,
        );
      }
      return { ...response, meta };
    } catch (e) {
      const error = toProtocolError(e);
      if (error.code === ERROR_CODES.INTERNAL_ERROR) this.logInternal(error.cause ?? error, meta.method);
      return { ...reply(envelope.id, { error, codec }), meta: { ...meta, errorCode: error.code } };
    }
  }

  /**
   * A streaming method: the first event decides the answer (a plain error when there is none), then the
   * rest follows as SSE, errors included; each `data:` a JSON-RPC response with the request id.
   */
  private async stream(
    codec: A2ACodec,
    parsed: StreamRequest,
    id: JsonRpcId,
    request: RpcRequest,
    principal: Principal,
    meta: NonNullable<RpcResponse['meta']>,
    extensions: readonly string[],
  ): Promise<RpcResponse> {
    const answer = await answerWithSse(
      this.handler,
      parsed,
      {
        principal,
        version: codec.version,
        extensions,
        ...(request.streamBudgetMs !== undefined ? { budgetMs: request.streamBudgetMs } : {}),
        ...(request.headers['last-event-id'] !== undefined
          ? { lastEventId: request.headers['last-event-id'] }
          : {}),
      },
      {
        event: (event) => JSON.stringify(success(id, codec.encodeStreamEvent(event))),
        error: (error) => JSON.stringify(failure(id, jsonRpcError(codec, error))),
        internal: (error) => this.logInternal(error.cause ?? error, meta.method),
      },
    );
    if (answer.kind === 'error') {
      const { error } = answer;
      if (error.code === ERROR_CODES.INTERNAL_ERROR) this.logInternal(error.cause ?? error, meta.method);
      return {
        ...reply(id, { error, codec }),
        meta: { ...meta, errorCode: error.code },
        settled: answer.settled,
      };
    }
    Object.assign(meta, keysOfStreamItem(answer.first));
    return { statusCode: 200, headers: answer.headers, body: '', stream: answer.stream, meta };
  }

  /** An operation answered with one result: its entry in RUNNERS. */
  private run<Op extends UnaryOperation>(
    codec: A2ACodec,
    parsed: { operation: Op; command: CommandMap[Op] },
    request: RpcRequest,
    caller: Principal,
    meta: NonNullable<RpcResponse['meta']>,
    extensions: readonly string[],
  ): Promise<RpcResult> {
    return RUNNERS[parsed.operation](parsed.command, {
      handler: this.handler,
      codec,
      request,
      caller,
      meta,
      extensions,
    });
  }
}

/**
 * The request id for an error answered before the envelope is parsed (bad version, body too large), so the
 * client can match it: the parsed top-level id when the body is small enough, else a look at its start.
 */
const peekId = (body: string | null | undefined, size: number): JsonRpcId => {
  if (!body) return null;
  if (size <= MAX_REQUEST_BYTES) {
    try {
      // JSON.parse is iterative: no nesting can overflow it
      const id: unknown = (JSON.parse(body) as { id?: unknown } | null)?.id;
      return isValidId(id) ? id : null;
    } catch {
      return null;
    }
  }
  const match = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"[^"]*"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]{0,256}")/.exec(
    body.slice(0, 512),
  );
  const id = match?.[1] ? (JSON.parse(match[1]) as JsonRpcId) : null;
  return isValidId(id) ? id : null;
};

/**
 * The JSON-RPC binding over a handler of these tasks. Streams read the tasks from `store` (the task
 * service's store); without one the streaming methods answer -32004.
 */
export const jsonRpcOver = (tasks: TaskService, options: JsonRpcOverOptions = {}): JsonRpcBinding =>
  new JsonRpcBinding(new A2AHandler(tasks, options), options);
