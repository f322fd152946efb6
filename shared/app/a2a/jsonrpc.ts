/**
 * The JSON-RPC binding of A2A: owns the envelope, the content types, the
 * request and response size limits, id echoing and the HTTP status of each
 * answer. It picks the codec from A2A-Version, resolves the method, hands
 * the command to the transport-neutral A2AHandler and encodes what it
 * returns; codecs only translate shapes.
 */

import type { Logger } from '@aws-lambda-powertools/logger';
import { logger } from '../../observability/index.ts';
import {
  type A2ACodec,
  A2AProtocolError,
  checkContentType,
  clip,
  ERROR_CODES,
  errorCodecFor,
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
import type { Caller, TaskService } from '../task-service.ts';
import { A2AHandler } from './handler.ts';

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
    body: JSON.stringify(failure(id, jsonRpcError(outcome.codec, outcome.error))),
  };
};

export interface JsonRpcBindingOptions {
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
    const note = (view: { head: { taskId: string; contextId: string } }) => {
      meta.taskId = view.head.taskId;
      meta.contextId = view.head.contextId;
    };
    const { caller } = request;
    switch (parsed.operation) {
      case 'SendMessage': {
        const sent = await this.handler.sendMessage(caller, parsed.command, {
          blockingBudgetMs: request.blockingBudgetMs,
        });
        if (sent.kind === 'message') {
          // answered with a message: no task
          if (sent.message.contextId) meta.contextId = sent.message.contextId;
          return codec.encodeSendReply(sent.message);
        }
        note(sent.view);
        return codec.encodeSendResult(sent.view, sent.show);
      }
      case 'GetTask': {
        const got = await this.handler.getTask(caller, parsed.command);
        note(got.view);
        return codec.encodeGetResult(got.view, got.show);
      }
      case 'ListTasks': {
        const listed = await this.handler.listTasks(caller, parsed.command);
        return codec.encodeListResult(listed.page, listed.show);
      }
      case 'CancelTask': {
        const canceled = await this.handler.cancelTask(caller, parsed.command);
        note(canceled.view);
        return codec.encodeCancelResult(canceled.view, canceled.show);
      }
    }
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

/** The JSON-RPC binding over a handler of these tasks. */
export const jsonRpcOver = (tasks: TaskService, options: JsonRpcBindingOptions = {}): JsonRpcBinding =>
  new JsonRpcBinding(new A2AHandler(tasks), options);
