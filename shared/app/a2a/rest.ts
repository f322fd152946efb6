/**
 * The HTTP+JSON (REST) binding of A2A v1.0 (docs/rest.md): each route
 * is a short closure over the transport-neutral A2AHandler; the binding owns
 * the routes, content types (415 for a body of another type), the request
 * size limit, query parameters, and the mapping of errors to HTTP statuses
 * with the `{"error": google.rpc.Status}` body. Bodies are v1.0 ProtoJSON,
 * parsed and encoded by the v1.0 codec, so every rule of the JSON-RPC
 * binding's params (bounds, unknown fields, limits) applies here too.
 *
 * Every route also exists under a `/{tenant}` prefix: the tenant named there
 * (or in the body's `tenant`) must be the principal's, else 403; a prefix and
 * a body naming two tenants are refused as invalid.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { AuthError } from '../../domain/errors.ts';
import { checkTenant, type Principal } from '../../domain/principal.ts';
import { logger } from '../../observability/index.ts';
import type { WireObject } from '../../protocol/a2a/codec.ts';
import { activatedExtensionsHeader } from '../../protocol/a2a/extensions.ts';
import {
  A2AProtocolError,
  ERROR_CODES,
  errorHeaders,
  negotiateVersion,
  SUPPORTED_VERSIONS,
  toProtocolError,
  v1Codec,
} from '../../protocol/a2a/index.ts';
import type { Operation, StreamingOperation } from '../../protocol/a2a/operations.ts';
import {
  isRestMediaType,
  responseMediaType,
  restErrorBody,
  restStatusOf,
  unsupportedMediaType,
} from '../../protocol/a2a/rest.ts';
import type { A2AHandler } from './handler.ts';
import { MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES } from './jsonrpc.ts';
import { answerWithSse, keysOfStreamItem, type SseStream, type StreamRequest } from './sse-answer.ts';

export interface RestRequest {
  method: string;
  /** The path below the interface's base URL, e.g. `/tasks/abc:cancel` or `/acme/message:send`. */
  path: string;
  query: Record<string, string | undefined>;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  body: string | null | undefined;
  /** Who is calling (shared/adapters/lambda/auth-context.ts), or why they may not: answered before any route runs. */
  principal: Principal | AuthError;
  /** How long a blocking send may wait for its task to settle. */
  blockingBudgetMs: number;
  /** How long a stream may stay open (ms); default DEFAULT_STREAM_BUDGET_MS. */
  streamBudgetMs?: number;
  /** The deployment's public URL (the extended card's interfaces), without a trailing slash. */
  publicUrl?: string;
}

export interface RestResponse {
  statusCode: number;
  headers: Record<string, string>;
  /** The answer; '' for a stream. */
  body: string;
  /** A text/event-stream answer: the chunks to write after the headers. */
  stream?: SseStream;
  /** Work the request started that goes on after this answer: the invocation must not end before it. */
  settled?: Promise<void>;
  /** For logs: what the request was about. */
  meta?: { route?: string; taskId?: string; contextId?: string; errorCode?: number; streamed?: boolean };
}

interface Matched {
  request: RestRequest;
  principal: Principal;
  /** Decoded path parameters. */
  params: Record<string, string>;
  /** The request body as JSON (undefined when it has none). */
  json: () => unknown;
  meta: NonNullable<RestResponse['meta']>;
  /** The extensions the request activated (`A2A-Extensions`): how its answer shows tasks. */
  extensions: readonly string[];
}

const ROOTS = /^\/(?:message:(?:send|stream)|tasks(?:\/|$)|extendedAgentCard$)/;

/** The headers of a JSON answer: its negotiated type, which depends on these request headers. */
const jsonHeaders = (contentType: string): Record<string, string> => ({
  'content-type': contentType,
  vary: 'Accept, Content-Type',
});

const ok = (body: unknown, meta: RestResponse['meta'], contentType: string): RestResponse => ({
  statusCode: 200,
  headers: jsonHeaders(contentType),
  body: JSON.stringify(body),
  ...(meta ? { meta } : {}),
});

/** `true` / `false` as ProtoJSON query parameters spell them; anything else is left for the codec to refuse. */
const queryBoolean = (v: string | undefined): boolean | string | undefined =>
  v === 'true' ? true : v === 'false' ? false : v;

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

const snakeOf = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The named query parameters, each under the spelling it was given: its camelCase name (as A2A's
 * routes spell them) or the proto's snake_case one (ProtoJSON accepts either; the TCK and Python
 * clients send it), so the codec reads both, as in a body, and refuses a parameter given both ways.
 */
const queryFields = (
  query: RestRequest['query'],
  names: readonly string[],
  convert: (name: string, value: string | undefined) => unknown = (_, v) => v,
): Record<string, unknown> =>
  defined(
    Object.fromEntries(
      names.flatMap((name) => [
        [name, convert(name, query[name])],
        [snakeOf(name), convert(name, query[snakeOf(name)])],
      ]),
    ),
  );

/** Push-config routes exist only where push notifications are offered: refused before their body is read. */
const requirePush = (h: A2AHandler): void => {
  if (!h.pushNotifications)
    throw A2AProtocolError.pushNotificationNotSupported('poll GET /tasks/{id} instead');
};

/** A request body's members, when it is a JSON object (path parameters are added to them). */
const bodyMembers = (m: Matched): object => {
  const body = m.json();
  return body && typeof body === 'object' && !Array.isArray(body) ? body : {};
};

/**
 * The paths, in match order: the first whose pattern matches a path (without its tenant prefix) is its
 * route, named so in the logs; named groups are path parameters. `:verb` paths come before
 * `/tasks/{id}`, so an id never swallows its verb.
 */
const PATHS = [
  { name: 'SendMessage', pattern: /^\/message:send$/ },
  { name: 'SendStreamingMessage', pattern: /^\/message:stream$/ },
  { name: 'CancelTask', pattern: /^\/tasks\/(?<id>[^/]+?):cancel$/ },
  { name: 'SubscribeToTask', pattern: /^\/tasks\/(?<id>[^/]+?):subscribe$/ },
  { name: 'TaskPushNotificationConfigs', pattern: /^\/tasks\/(?<id>[^/]+)\/pushNotificationConfigs$/ },
  {
    name: 'TaskPushNotificationConfig',
    pattern: /^\/tasks\/(?<id>[^/]+)\/pushNotificationConfigs\/(?<configId>[^/]+)$/,
  },
  { name: 'GetTask', pattern: /^\/tasks\/(?<id>[^/]+)$/ },
  { name: 'ListTasks', pattern: /^\/tasks$/ },
  { name: 'GetExtendedAgentCard', pattern: /^\/extendedAgentCard$/ },
] as const;

type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** The order methods are listed in (`Allow`, the 405's message). */
const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'POST', 'DELETE'];

/**
 * Where an operation is served (a path of PATHS, the methods it takes there) and how: a streaming
 * operation's request, answered with server-sent events, or any other's one result.
 */
type OperationRoute<Op extends Operation> = {
  path: (typeof PATHS)[number]['name'];
  methods: readonly HttpMethod[];
} & (Op extends StreamingOperation
  ? { stream(h: A2AHandler, m: Matched): Extract<StreamRequest, { operation: Op }> }
  : { run(h: A2AHandler, m: Matched): Promise<WireObject> });

/** Each operation's route: an operation without one is a type error here. */
const OPERATIONS: { readonly [Op in Operation]: OperationRoute<Op> } = {
  SendMessage: {
    path: 'SendMessage',
    methods: ['POST'],
    run: async (h, m) => {
      const command = v1Codec.parseSendMessage(m.json(), {
        pushNotifications: h.pushNotifications,
        generations: h.generations,
      });
      const sent = await h.sendMessage(m.principal, command, {
        blockingBudgetMs: m.request.blockingBudgetMs,
        version: '1.0',
        extensions: m.extensions,
      });
      if (sent.kind === 'message') return v1Codec.encodeSendReply(sent.message);
      m.meta.taskId = sent.view.head.taskId;
      return v1Codec.encodeSendResult(sent.view, sent.show);
    },
  },
  SendStreamingMessage: {
    path: 'SendStreamingMessage',
    methods: ['POST'],
    stream: (h, m) => ({
      operation: 'SendStreamingMessage',
      command: v1Codec.parseSendMessage(m.json(), {
        pushNotifications: h.pushNotifications,
        generations: h.generations,
      }),
    }),
  },
  CancelTask: {
    path: 'CancelTask',
    methods: ['POST'],
    run: async (h, m) => {
      const canceled = await h.cancelTask(
        m.principal,
        v1Codec.parseCancelTask({ ...bodyMembers(m), id: m.params.id }),
        { extensions: m.extensions },
      );
      m.meta.taskId = canceled.view.head.taskId;
      return v1Codec.encodeCancelResult(canceled.view, canceled.show);
    },
  },
  SubscribeToTask: {
    path: 'SubscribeToTask',
    methods: ['GET', 'POST'],
    stream: (_, m) => ({
      operation: 'SubscribeToTask',
      command: v1Codec.parseSubscribeToTask({ ...bodyMembers(m), id: m.params.id }),
    }),
  },
  CreateTaskPushNotificationConfig: {
    path: 'TaskPushNotificationConfigs',
    methods: ['POST'],
    run: async (h, m) => {
      m.meta.taskId = m.params.id;
      requirePush(h);
      const cmd = v1Codec.parseCreatePushConfig({ ...bodyMembers(m), taskId: m.params.id });
      return v1Codec.encodePushConfig(await h.createPushConfig(m.principal, cmd, '1.0'));
    },
  },
  ListTaskPushNotificationConfigs: {
    path: 'TaskPushNotificationConfigs',
    methods: ['GET'],
    run: async (h, m) => {
      m.meta.taskId = m.params.id;
      requirePush(h);
      const cmd = v1Codec.parseListPushConfigs({
        ...queryFields(m.request.query, ['pageSize', 'pageToken']),
        taskId: m.params.id,
      });
      return v1Codec.encodePushConfigList(await h.listPushConfigs(m.principal, cmd), '');
    },
  },
  GetTaskPushNotificationConfig: {
    path: 'TaskPushNotificationConfig',
    methods: ['GET'],
    run: async (h, m) => {
      m.meta.taskId = m.params.id;
      requirePush(h);
      const cmd = v1Codec.parsePushConfigRef({ taskId: m.params.id, id: m.params.configId }, 'get');
      return v1Codec.encodePushConfig(await h.getPushConfig(m.principal, cmd));
    },
  },
  DeleteTaskPushNotificationConfig: {
    path: 'TaskPushNotificationConfig',
    methods: ['DELETE'],
    run: async (h, m) => {
      m.meta.taskId = m.params.id;
      requirePush(h);
      const cmd = v1Codec.parsePushConfigRef({ taskId: m.params.id, id: m.params.configId }, 'delete');
      await h.deletePushConfig(m.principal, cmd);
      return {};
    },
  },
  GetTask: {
    path: 'GetTask',
    methods: ['GET'],
    run: async (h, m) => {
      const got = await h.getTask(
        m.principal,
        v1Codec.parseGetTask(
          { ...queryFields(m.request.query, ['historyLength', 'currentGeneration']), id: m.params.id },
          { generations: h.generations },
        ),
        { waitBudgetMs: m.request.blockingBudgetMs, extensions: m.extensions },
      );
      m.meta.taskId = got.view.head.taskId;
      return v1Codec.encodeGetResult(got.view, got.show);
    },
  },
  ListTasks: {
    path: 'ListTasks',
    methods: ['GET'],
    run: async (h, m) => {
      const listed = await h.listTasks(
        m.principal,
        v1Codec.parseListTasks(
          queryFields(
            m.request.query,
            [
              'contextId',
              'status',
              'pageSize',
              'pageToken',
              'historyLength',
              'statusTimestampAfter',
              'includeArtifacts',
            ],
            (name, v) => (name === 'includeArtifacts' ? queryBoolean(v) : v),
          ),
        ),
        { extensions: m.extensions },
      );
      return v1Codec.encodeListResult(listed.page, listed.show);
    },
  },
  GetExtendedAgentCard: {
    path: 'GetExtendedAgentCard',
    methods: ['GET'],
    run: async (h, m) => {
      v1Codec.parseGetExtendedAgentCard({});
      return h.getExtendedAgentCard(m.principal, {
        publicUrl: m.request.publicUrl ?? '',
        version: '1.0',
      });
    },
  },
};

/** A path's route: the operations served there, and the methods they take. */
interface Route {
  name: string;
  pattern: RegExp;
  operations: readonly OperationRoute<Operation>[];
  methods: readonly HttpMethod[];
}

/** The routes, in PATHS' order. */
const ROUTES: readonly Route[] = PATHS.map(({ name, pattern }) => {
  const operations = Object.values<OperationRoute<Operation>>(OPERATIONS).filter((o) => o.path === name);
  const methods = METHOD_ORDER.filter((method) => operations.some((o) => o.methods.includes(method)));
  return { name, pattern, operations, methods };
});

export interface RestBindingOptions {
  /** Where internal errors are logged, with their cause; default the functions' logger. */
  logger?: Pick<Logger, 'error'>;
}

export class RestBinding {
  private readonly log: Pick<Logger, 'error'>;

  constructor(
    private readonly handler: A2AHandler,
    options: RestBindingOptions = {},
  ) {
    this.log = options.logger ?? logger;
  }

  /** Never throws: whatever fails is answered (and a fault of ours logged). */
  async handle(request: RestRequest): Promise<RestResponse> {
    const meta: NonNullable<RestResponse['meta']> = {};
    const contentType = responseMediaType(request.headers);
    try {
      return await this.answer(request, meta, contentType);
    } catch (e) {
      const error = toProtocolError(e);
      if (error.code === ERROR_CODES.INTERNAL_ERROR) this.logInternal(error, meta);
      return this.error(error, { ...meta, errorCode: error.code }, contentType);
    }
  }

  private error(
    error: A2AProtocolError,
    meta: RestResponse['meta'],
    contentType: string,
    http?: number,
  ): RestResponse {
    const status = http ?? restStatusOf(error).http;
    return {
      statusCode: status,
      headers: { ...jsonHeaders(contentType), ...errorHeaders(error) },
      body: JSON.stringify(restErrorBody(error, status)),
      ...(meta ? { meta } : {}),
    };
  }

  private async answer(
    request: RestRequest,
    meta: NonNullable<RestResponse['meta']>,
    responseType: string,
  ): Promise<RestResponse> {
    // HTTP+JSON is served for A2A 1.0 only (the card lists no 0.3 HTTP+JSON interface): an absent
    // header means 1.0 here, an explicit other version is refused
    const asked = request.headers['a2a-version'] ?? request.query['A2A-Version'];
    if (asked?.trim() && negotiateVersion(asked) !== '1.0') {
      throw A2AProtocolError.versionNotSupported(
        asked.trim().slice(0, 32),
        SUPPORTED_VERSIONS.filter((v) => v === '1.0'),
      );
    }
    const { principal } = request;
    if (principal instanceof AuthError) throw principal;
    const { path, tenant } = this.routePath(request.path);
    const route = ROUTES.find((r) => r.pattern.test(path));
    if (!route)
      throw A2AProtocolError.methodNotFound(
        `${request.method} ${path.slice(0, 200)}`,
        'no such HTTP+JSON route',
      );
    meta.route = route.name;
    const method = request.method.toUpperCase();
    const operation = route.operations.find((o) => (o.methods as readonly string[]).includes(method));
    if (!operation) {
      const error = A2AProtocolError.methodNotFound(
        `${request.method} ${path.slice(0, 200)}`,
        `${route.name} takes ${route.methods.join(' or ')}`,
      );
      return {
        ...this.error(error, { ...meta, errorCode: error.code }, responseType, 405),
        headers: { ...jsonHeaders(responseType), allow: route.methods.join(', ') },
      };
    }
    // the prefix names the tenant the request is for: the principal's, or refused here
    if (tenant !== undefined) checkTenant(principal, tenant);
    const body = request.body ?? '';
    const size = Buffer.byteLength(body, 'utf8');
    if (size > MAX_REQUEST_BYTES) {
      const error = A2AProtocolError.invalidRequest(
        `Request body is ${size} bytes; the limit is ${MAX_REQUEST_BYTES} bytes`,
      );
      return this.error(error, { ...meta, errorCode: error.code }, responseType, 413);
    }
    const contentType = request.headers['content-type'];
    if (
      body.trim() !== '' &&
      contentType !== undefined &&
      contentType.trim() !== '' &&
      !isRestMediaType(contentType)
    ) {
      const error = unsupportedMediaType(contentType);
      return this.error(error, { ...meta, errorCode: error.code }, responseType, 415);
    }
    const match = route.pattern.exec(path)!;
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(match.groups ?? {})) {
      try {
        params[name] = decodeURIComponent(raw);
      } catch {
        throw A2AProtocolError.invalidParams([
          { field: name, description: 'is not a valid percent-encoded path segment' },
        ]);
      }
    }
    const parsedBody = () => {
      if (body.trim() === '' || body.trim() === 'null') return undefined;
      try {
        return JSON.parse(body) as unknown;
      } catch {
        throw A2AProtocolError.parseError();
      }
    };
    const extensions = this.handler.activateExtensions(request.headers);
    const echoed = activatedExtensionsHeader('1.0', extensions);
    const json = () => {
      const parsed = parsedBody();
      if (tenant === undefined || !parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return parsed;
      const named = (parsed as { tenant?: unknown }).tenant;
      if (named !== undefined && named !== '' && named !== tenant)
        throw A2AProtocolError.invalidParams([
          {
            field: 'tenant',
            description: `names another tenant than the path's /${tenant.slice(0, 64)} prefix`,
          },
        ]);
      return { ...parsed, tenant };
    };
    const matched: Matched = { request, principal, params, json, meta, extensions };
    if ('stream' in operation) {
      const streamed = await this.streamed(operation.stream(this.handler, matched), matched, responseType);
      return { ...streamed, headers: { ...streamed.headers, ...echoed } };
    }
    const result = await operation.run(this.handler, matched);
    const answered = ok(result, meta, responseType);
    const response = { ...answered, headers: { ...answered.headers, ...echoed } };
    const carried = Buffer.byteLength(JSON.stringify(response.body), 'utf8');
    if (carried > MAX_RESPONSE_BYTES) {
      throw A2AProtocolError.internalError(
        `Internal error: the result is too large to return (${carried} bytes, the limit is ${MAX_RESPONSE_BYTES}); ` +
          'ask for less of it (historyLength, pageSize, includeArtifacts)',
      );
    }
    return response;
  }

  /**
   * A streaming route's answer: every `data:` a bare StreamResponse (v1.0 ProtoJSON), an error after the
   * first event an `event: error` whose data is the `{"error": google.rpc.Status}` body; an error before
   * it is a plain error answer.
   */
  private async streamed(
    request: StreamRequest,
    { request: http, principal, meta, extensions }: Matched,
    responseType: string,
  ): Promise<RestResponse> {
    const answer = await answerWithSse(
      this.handler,
      request,
      {
        principal,
        version: '1.0',
        extensions,
        ...(http.streamBudgetMs !== undefined ? { budgetMs: http.streamBudgetMs } : {}),
        ...(http.headers['last-event-id'] !== undefined
          ? { lastEventId: http.headers['last-event-id'] }
          : {}),
      },
      {
        event: (event) => JSON.stringify(v1Codec.encodeStreamEvent(event)),
        error: (error) => JSON.stringify(restErrorBody(error)),
        internal: (error) => this.logInternal(error, meta),
      },
    );
    if (answer.kind === 'error') {
      if (answer.error.code === ERROR_CODES.INTERNAL_ERROR) this.logInternal(answer.error, meta);
      return {
        ...this.error(answer.error, { ...meta, errorCode: answer.error.code }, responseType),
        settled: answer.settled,
      };
    }
    Object.assign(meta, keysOfStreamItem(answer.first), { streamed: true });
    return { statusCode: 200, headers: answer.headers, body: '', stream: answer.stream, meta };
  }

  private logInternal(error: A2AProtocolError, meta: RestResponse['meta']): void {
    this.log.error('HTTP+JSON request failed with an internal error', {
      ...(meta?.route ? { route: meta.route } : {}),
      error: error.cause instanceof Error ? error.cause : error,
    });
  }

  /** The path without its `/{tenant}` prefix (and without a trailing slash), and the tenant it named. */
  private routePath(path: string): { path: string; tenant?: string } {
    const clean = `/${path.replace(/^\/+|\/+$/g, '')}`;
    if (ROOTS.test(clean)) return { path: clean };
    const rest = clean.indexOf('/', 1);
    if (rest <= 0) return { path: clean };
    let tenant: string;
    try {
      tenant = decodeURIComponent(clean.slice(1, rest));
    } catch {
      throw A2AProtocolError.invalidParams([
        { field: 'tenant', description: 'is not a valid percent-encoded path segment' },
      ]);
    }
    return { path: clean.slice(rest), tenant };
  }
}
