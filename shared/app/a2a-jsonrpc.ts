/**
 * One A2A JSON-RPC request, end to end: pick the codec from A2A-Version,
 * parse the envelope and params, run the operation on the task service,
 * encode the result or the error. The same operations serve every version;
 * codecs only translate shapes.
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import { ValidationError } from '../domain/errors.ts';
import { isInterrupted, isTerminal, type SynapseState, synapseStatesFor } from '../domain/states.ts';
import type { TaskView } from '../domain/task.ts';
import { logger } from '../observability/index.ts';
import {
  type A2ACodec,
  A2AProtocolError,
  type CancelTaskCommand,
  checkContentType,
  clip,
  ERROR_CODES,
  errorCodecFor,
  failure,
  type GetTaskCommand,
  httpStatusOf,
  isValidId,
  type JsonRpcId,
  type ListTasksCommand,
  parseEnvelope,
  parseRequest,
  type SendMessageCommand,
  selectCodec,
  success,
  toProtocolError,
} from '../protocol/a2a/index.ts';
import type { Caller, TaskService } from './task-service.ts';

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
  caller: Caller;
  /** How long a blocking SendMessage may wait for the task to settle. */
  blockingBudgetMs: number;
}

export interface RpcResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
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
    headers: JSON_HEADERS,
    body: JSON.stringify(failure(id, outcome.codec.encodeError(outcome.error))),
  };
};

export interface A2AJsonRpcOptions {
  /** Where internal errors (-32603) are logged, with their cause; default the functions' logger. */
  logger?: Pick<Logger, 'error'>;
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

export class A2AJsonRpc {
  private readonly log: Pick<Logger, 'error'>;

  constructor(
    private readonly tasks: TaskService,
    options: A2AJsonRpcOptions = {},
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
      const parsed = parseRequest(codec, envelope.method, envelope.params);
      const result = await this.run(codec, parsed, request, meta);
      const response = reply(envelope.id, { result });
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

  private async run(
    codec: A2ACodec,
    parsed: ReturnType<typeof parseRequest>,
    request: RpcRequest,
    meta: NonNullable<RpcResponse['meta']>,
  ): Promise<unknown> {
    const note = (view: TaskView) => {
      meta.taskId = view.head.taskId;
      meta.contextId = view.head.contextId;
      return view;
    };
    switch (parsed.operation) {
      case 'SendMessage':
        return this.sendMessage(codec, parsed.command, request, note, meta);
      case 'GetTask':
        return this.getTask(codec, parsed.command, request.caller, note);
      case 'ListTasks':
        return this.listTasks(codec, parsed.command, request.caller);
      case 'CancelTask':
        return this.cancelTask(codec, parsed.command, request.caller, note);
    }
  }

  private async sendMessage(
    codec: A2ACodec,
    cmd: SendMessageCommand,
    request: RpcRequest,
    note: (v: TaskView) => TaskView,
    meta: NonNullable<RpcResponse['meta']>,
  ): Promise<unknown> {
    const { caller } = request;
    if (cmd.message.role !== 'user') {
      // the agent's messages come from the agent; a client sending ROLE_AGENT would speak for it
      throw new ValidationError('message.role must be ROLE_USER: clients send user messages', 'message.role');
    }
    const started = Date.now();
    // a blocking send runs the agent right here, within the request's time budget
    const options = cmd.returnImmediately ? {} : { runInlineUntil: started + request.blockingBudgetMs };
    const submitted = cmd.taskId
      ? await this.tasks.continueTask(caller, cmd.taskId, cmd.message, cmd.contextId, options)
      : await this.tasks.send(caller, cmd.message, cmd.contextId, options);
    if ('reply' in submitted) {
      // answered with a message: no task
      meta.contextId = submitted.reply.contextId;
      return codec.encodeSendReply(submitted.reply);
    }
    let record = submitted.record;
    const { state } = record.head;
    if (!cmd.returnImmediately && !isTerminal(state) && !isInterrupted(state)) {
      // run elsewhere (a retried message, or handed back to the executor): wait for it to settle
      const left = Math.max(0, started + request.blockingBudgetMs - Date.now());
      record = await this.tasks.waitUntilSettled(caller, record.head.taskId, left);
    }
    const view = await this.tasks.view(record, {
      includeArtifacts: true,
      ...historyOption(cmd.historyLength),
    });
    return codec.encodeSendResult(note(view), {
      includeArtifacts: true,
      ...(cmd.historyLength !== undefined ? { historyLength: cmd.historyLength } : {}),
    });
  }

  private async getTask(
    codec: A2ACodec,
    cmd: GetTaskCommand,
    caller: Caller,
    note: (v: TaskView) => TaskView,
  ): Promise<unknown> {
    const view = await this.tasks.read(caller, cmd.id, {
      includeArtifacts: true,
      ...historyOption(cmd.historyLength),
    });
    return codec.encodeGetResult(note(view), {
      includeArtifacts: true,
      ...(cmd.historyLength !== undefined ? { historyLength: cmd.historyLength } : {}),
    });
  }

  private async cancelTask(
    codec: A2ACodec,
    cmd: CancelTaskCommand,
    caller: Caller,
    note: (v: TaskView) => TaskView,
  ): Promise<unknown> {
    const view = await this.tasks.cancel(caller, cmd.id);
    return codec.encodeCancelResult(note(view), { includeArtifacts: true });
  }

  private async listTasks(codec: A2ACodec, cmd: ListTasksCommand, caller: Caller): Promise<unknown> {
    // history in a listing only when asked for: it costs a query per task
    const historyLength = cmd.historyLength ?? 0;
    const encode = { includeArtifacts: cmd.includeArtifacts, historyLength };
    const states: SynapseState[] | undefined = cmd.status ? synapseStatesFor(cmd.status) : undefined;
    if (states && states.length === 0) {
      return codec.encodeListResult(
        { tasks: [], nextPageToken: '', pageSize: cmd.pageSize, totalSize: 0 },
        encode,
      );
    }
    const page = await this.tasks.list(caller, {
      pageSize: cmd.pageSize,
      ...(cmd.contextId ? { contextId: cmd.contextId } : {}),
      ...(states ? { states } : {}),
      ...(cmd.statusTimestampAfter ? { statusAfter: cmd.statusTimestampAfter } : {}),
      ...(cmd.pageToken ? { pageToken: cmd.pageToken } : {}),
    });
    const needDetails = cmd.includeArtifacts || historyLength > 0;
    const tasks: TaskView[] = needDetails
      ? await Promise.all(
          page.tasks.map((t) =>
            this.tasks.read(caller, t.taskId, { includeArtifacts: cmd.includeArtifacts, historyLength }),
          ),
        )
      : page.tasks.map((head) => ({ head, history: [], artifacts: [] }));
    return codec.encodeListResult(
      { tasks, nextPageToken: page.nextPageToken, pageSize: cmd.pageSize, totalSize: page.totalSize },
      encode,
    );
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
 * Without historyLength a task carries its most recent DEFAULT_HISTORY_LENGTH messages (the spec lets the
 * server choose): a long task's full history could outgrow a Lambda response.
 */
export const DEFAULT_HISTORY_LENGTH = 100;
const historyOption = (historyLength: number | undefined) => ({
  historyLength: historyLength ?? DEFAULT_HISTORY_LENGTH,
});
