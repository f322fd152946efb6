/**
 * What every answer of the hub must be, whatever it was asked (properties a
 * and b; property c, the table, is the runner's): no 5xx, and a JSON-RPC 2.0
 * response of the protocol's shape. Each broken rule is a violation of a
 * kind; the fuzzer groups failures by kind and shrinks one of each.
 *
 * The request is read here the way JSON.parse reads it (the last of
 * duplicate keys wins), independently of the hub's own parser.
 */
import { DEFAULT_MAX_BODY_BYTES } from '../../local/http-gateway.ts';
import type { Expectation } from './arbitraries.ts';
import type { HttpOutcome } from './client.ts';
import { BODY_LIMIT as MAX_REQUEST_BYTES } from './values.ts';

export type ViolationKind =
  // (a) no 5xx, no crash
  | 'no-answer'
  | 'http-5xx'
  | 'crash'
  | 'prototype-pollution'
  | 'response-over-lambda-limit'
  // (b) the protocol's answers only
  | 'not-json-rpc'
  | 'bad-envelope'
  | 'code-not-allowed'
  | 'id-not-echoed'
  | 'error-data-shape'
  | 'http-status'
  | 'oversize-not-refused'
  | 'valid-refused'
  | 'invalid-accepted'
  | 'unexpected-code'
  | 'result-shape'
  // (c) the table is unchanged for refused input
  | 'write-on-refusal';

export interface Violation {
  kind: ViolationKind;
  detail: string;
}

export interface Verdict {
  /** `200 ok`, `200 -32602`, `413 -32600`, `500 -32603`, `502 (not JSON-RPC)`, `no answer`. */
  outcome: string;
  /** The answer was a JSON-RPC error (or no JSON-RPC at all): the request must not have written anything. */
  refused: boolean;
  violations: Violation[];
  /** The parsed answer, when it was JSON. */
  response?: Record<string, unknown>;
}

/**
 * JSON-RPC and A2A codes (A2A §5.4) plus the hub's documented ones: -32050 "modified concurrently,
 * retry", and the transport-level 401, 403, 429 (docs/security.md#errors), answered with that HTTP status.
 */
export const ALLOWED_CODES: ReadonlySet<number> = new Set([
  -32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009,
  -32050, 401, 403, 429,
]);
const TRANSPORT_CODES: ReadonlySet<number> = new Set([401, 403, 429]);

/** Lambda's limit for a synchronous response: a larger answer is a 502 behind API Gateway. */
export const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

const V1_STATES = new Set([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
]);
const V03_STATES = new Set([
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'unknown',
]);

export type WireVersion = 'v1' | 'v03' | 'other';

/** The A2A version a header value asks for (`A2A-Version`), `other` for values a hub may refuse or read leniently. */
export function versionOf(header: string | undefined): WireVersion {
  const v = (header ?? '').trim();
  if (v === '') return 'v03';
  if (/^1(?:\.0(?:\.\d+)?)?$/.test(v)) return 'v1';
  if (/^0\.3(?:\.\d+)?$/.test(v)) return 'v03';
  return 'other';
}

export interface SentRequest {
  /** The headers as sent (arrays: one header line per value). */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** The A2A-Version value the hub gets: API Gateway passes the last of repeated headers. */
export const versionHeaderOf = (headers: SentRequest['headers']): string | undefined => {
  const values = Object.entries(headers)
    .filter(([k]) => k.toLowerCase() === 'a2a-version')
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
  return values.length > 1 ? `${values.join(',')}` : values[0];
};

type Parsed = { ok: true; value: unknown } | { ok: false };

const tryParse = (text: string): Parsed => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The request's id when it can be told: a string, a finite number or null (JSON-RPC 2.0 §4). The hub refuses
 * string ids over 256 characters as an invalid request and, like any id it cannot accept, answers null.
 */
const idOf = (request: unknown): { known: true; id: unknown } | { known: false } => {
  if (!isObject(request) || !Object.hasOwn(request, 'id')) return { known: false };
  const id = request.id;
  if (typeof id === 'string' && id.length > 256) return { known: false };
  if (id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))
    return { known: true, id };
  return { known: false };
};

const show = (v: unknown, n = 160): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
};

export interface OracleInput {
  sent: SentRequest;
  answer: HttpOutcome;
  expect: Expectation;
  /** For results: the task id the request resolved its task reference to. */
  taskId?: string;
}

export function judge({ sent, answer, expect: expected, taskId }: OracleInput): Verdict {
  let expect = expected;
  const violations: Violation[] = [];
  const fail = (kind: ViolationKind, detail: string) => violations.push({ kind, detail });
  if (!answer.ok) {
    fail('no-answer', answer.error);
    return { outcome: 'no answer', refused: true, violations };
  }
  const { status, body } = answer.answer;
  const size = sent.body.length;
  const text = sent.body.toString('utf8');
  const strict = tryParse(text);
  // a BOM may be skipped (RFC 8259 §8.1) or refused
  const lenient = !strict.ok && text.startsWith('\ufeff') ? tryParse(text.slice(1)) : strict;
  const request = lenient.ok ? lenient.value : undefined;
  const version = versionOf(versionHeaderOf(sent.headers));

  if (status >= 500) fail('http-5xx', `HTTP ${status}: ${show(body.toString('utf8'), 300)}`);
  if (body.length > LAMBDA_RESPONSE_LIMIT)
    fail('response-over-lambda-limit', `answer of ${body.length} bytes (Lambda returns at most 6 MB)`);

  let response: unknown;
  try {
    response = JSON.parse(body.toString('utf8'));
  } catch {
    fail('not-json-rpc', `HTTP ${status}, body not JSON: ${show(body.toString('utf8'))}`);
    return { outcome: `${status} (not JSON)`, refused: true, violations };
  }
  // the gateway's own limit (API Gateway's 10 MB) answers like API Gateway: 413 {"message": …}
  if (size > DEFAULT_MAX_BODY_BYTES && status === 413 && isObject(response) && !('jsonrpc' in response)) {
    if (typeof response.message !== 'string')
      fail('not-json-rpc', `413 without a message: ${show(response)}`);
    return {
      outcome: '413 (gateway)',
      refused: true,
      violations,
      response: response as Record<string, unknown>,
    };
  }
  if (!isObject(response)) {
    fail('not-json-rpc', `HTTP ${status}, answer is not an object: ${show(response)}`);
    return { outcome: `${status} (not JSON-RPC)`, refused: true, violations };
  }
  const hasResult = Object.hasOwn(response, 'result');
  const hasError = Object.hasOwn(response, 'error');
  if (response.jsonrpc !== '2.0') fail('bad-envelope', `jsonrpc is ${show(response.jsonrpc)}`);
  if (!Object.hasOwn(response, 'id')) fail('bad-envelope', 'no id member');
  if (hasResult === hasError) {
    fail(
      'not-json-rpc',
      `HTTP ${status}, ${hasResult ? 'both result and error' : 'neither result nor error'}: ${show(response)}`,
    );
    return { outcome: `${status} (not JSON-RPC)`, refused: true, violations, response };
  }

  // the id: echoed when the request had one that can be told, null otherwise
  const error = hasError ? response.error : undefined;
  const code = isObject(error) ? error.code : undefined;
  const parseError = code === -32700;
  const requestId = lenient.ok ? idOf(request) : ({ known: false } as const);
  const oversize = size > MAX_REQUEST_BYTES;
  if (oversize) {
    // the id is only looked for at the start of an oversize body
    const atStart = /^\{"jsonrpc":"2\.0","id":/.test(text.slice(0, 32));
    const okIds =
      atStart && requestId.known ? [requestId.id] : [null, ...(requestId.known ? [requestId.id] : [])];
    if (!okIds.some((id) => id === response.id))
      fail(
        'id-not-echoed',
        `answered id ${show(response.id)}, the request's was ${requestId.known ? show(requestId.id) : 'unknown'}`,
      );
  } else {
    const expected = !parseError && requestId.known ? requestId.id : null;
    if (response.id !== expected)
      fail('id-not-echoed', `answered id ${show(response.id)}, expected ${show(expected)}`);
  }
  // a body that is not JSON is a parse error, whatever the case expected (unless the request was refused
  // before its body was read: an unsupported content type or A2A version)
  if (!lenient.ok) expect = { success: 'forbidden', codes: [-32700, -32005, -32009] };

  if (hasError) {
    const outcome = `${status} ${typeof code === 'number' ? code : '(no code)'}`;
    checkError(error, status, version, fail);
    if (oversize) {
      if (status !== 413 || code !== -32600)
        fail('oversize-not-refused', `a ${size}-byte body was answered ${outcome}, not 413 -32600`);
    } else {
      const transport = typeof code === 'number' && TRANSPORT_CODES.has(code);
      if (transport ? status !== code : status !== 200 && status < 500)
        fail('http-status', `JSON-RPC error ${code} with HTTP ${status}`);
      if (expect.success === 'required')
        fail('valid-refused', `${outcome}: ${show(isObject(error) ? error.message : error, 300)}`);
      else if (expect.codes && typeof code === 'number' && !expect.codes.includes(code))
        fail(
          'unexpected-code',
          `${code} (${show(isObject(error) ? error.message : '', 200)}), expected one of ${expect.codes.join(', ')}`,
        );
    }
    return { outcome, refused: true, violations, response };
  }

  // a success
  const outcome = `${status} ok`;
  if (status !== 200) fail('http-status', `success with HTTP ${status}`);
  if (oversize) fail('oversize-not-refused', `a ${size}-byte body was answered with a success`);
  else if (expect.success === 'forbidden') fail('invalid-accepted', `success: ${show(response.result, 300)}`);
  checkResult(request, response.result, version, taskId, fail);
  return { outcome, refused: false, violations, response };
}

// ---- errors -------------------------------------------------------------------------------------

type Fail = (kind: ViolationKind, detail: string) => void;

function checkError(error: unknown, status: number, version: WireVersion, fail: Fail): void {
  if (!isObject(error)) {
    fail('not-json-rpc', `error is ${show(error)}`);
    return;
  }
  const { code, message, data } = error;
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    fail('not-json-rpc', `error code ${show(code)}`);
    return;
  }
  // -32603 comes with HTTP 500, which property (a) reports already
  if (!ALLOWED_CODES.has(code) && !(code === -32603 && status >= 500))
    fail('code-not-allowed', `code ${code}: ${show(message)}`);
  if (typeof message !== 'string' || message === '') fail('not-json-rpc', `error message ${show(message)}`);
  // v1.0: an array of typed details; v0.3: a free-form object (shared/protocol/a2a/errors.ts, v1.ts, v03.ts)
  const shape = version === 'other' ? (code === -32009 ? 'v1' : Array.isArray(data) ? 'v1' : 'v03') : version;
  if (shape === 'v1') {
    const why = v1DataProblem(data);
    if (why) fail('error-data-shape', `v1.0 error data ${why}: ${show(data)}`);
  } else if (!isObject(data) || typeof data.reason !== 'string' || data.reason === '') {
    fail('error-data-shape', `v0.3 error data is not an object with a reason: ${show(data)}`);
  }
}

function v1DataProblem(data: unknown): string | undefined {
  if (!Array.isArray(data) || data.length === 0) return 'is not a non-empty array';
  for (const d of data) {
    if (!isObject(d) || typeof d['@type'] !== 'string') return 'has an element without @type';
  }
  const info = data.find((d) => (d as Record<string, unknown>)['@type'] === ERROR_INFO) as
    | Record<string, unknown>
    | undefined;
  if (!info) return 'has no google.rpc.ErrorInfo';
  if (typeof info.reason !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(info.reason))
    return 'has an ErrorInfo reason that is not UPPER_SNAKE_CASE';
  if (typeof info.domain !== 'string' || info.domain === '') return 'has an ErrorInfo without a domain';
  if (info.metadata !== undefined) {
    if (!isObject(info.metadata) || Object.values(info.metadata).some((v) => typeof v !== 'string'))
      return 'has ErrorInfo metadata that is not a map of strings';
  }
  const bad = data.find((d) => (d as Record<string, unknown>)['@type'] === BAD_REQUEST) as
    | Record<string, unknown>
    | undefined;
  if (bad) {
    const list = bad.fieldViolations;
    if (
      !Array.isArray(list) ||
      list.some((v) => !isObject(v) || typeof v.field !== 'string' || typeof v.description !== 'string')
    )
      return 'has a BadRequest whose fieldViolations are not {field, description} strings';
  }
  return undefined;
}

// ---- results ------------------------------------------------------------------------------------

const V1_METHODS = new Set(['SendMessage', 'GetTask', 'ListTasks', 'CancelTask', 'GetExtendedAgentCard']);
const V03_METHODS = new Set([
  'message/send',
  'tasks/get',
  'tasks/cancel',
  'agent/getAuthenticatedExtendedCard',
]);

function checkResult(
  request: unknown,
  result: unknown,
  version: WireVersion,
  taskId: string | undefined,
  fail: Fail,
) {
  const method = isObject(request) ? request.method : undefined;
  const params = isObject(request) && isObject(request.params) ? request.params : {};
  const bad = (why: string) => fail('result-shape', `${String(method)}: ${why}: ${show(result, 300)}`);
  const asV1 = typeof method === 'string' && V1_METHODS.has(method) && version !== 'v03';
  const asV03 = typeof method === 'string' && V03_METHODS.has(method) && version !== 'v1';
  if (!asV1 && !asV03) return bad(`a success for a method that ${version} does not define`);
  const problems: string[] = [];
  if (asV1) {
    const p = v1ResultProblem(method as string, params, result, taskId);
    if (!p) return;
    problems.push(p);
  }
  if (asV03) {
    const p = v03ResultProblem(method as string, params, result, taskId);
    if (!p) return;
    problems.push(p);
  }
  bad(problems.join('; '));
}

const historyLimit = (params: Record<string, unknown>): number | undefined => {
  const config = isObject(params.configuration) ? params.configuration : params;
  const h = config.historyLength ?? config.history_length;
  const n = typeof h === 'string' ? Number(h) : h;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
};

function v1ResultProblem(method: string, params: Record<string, unknown>, result: unknown, taskId?: string) {
  if (!isObject(result)) return 'result is not an object';
  const limit = historyLimit(params);
  switch (method) {
    case 'SendMessage': {
      const keys = Object.keys(result);
      if (keys.length !== 1 || !['task', 'message'].includes(keys[0]!))
        return 'a SendMessageResponse has exactly one of task, message';
      return result.task !== undefined ? v1TaskProblem(result.task, limit) : v1MessageProblem(result.message);
    }
    case 'GetTask':
    case 'CancelTask': {
      const p = v1TaskProblem(result, method === 'GetTask' ? limit : undefined);
      if (p) return p;
      if (taskId !== undefined && result.id !== taskId)
        return `the task is ${show(result.id)}, not ${show(taskId)}`;
      return undefined;
    }
    case 'ListTasks': {
      const { tasks, nextPageToken, pageSize, totalSize } = result;
      if (!Array.isArray(tasks)) return 'tasks is not an array';
      if (typeof nextPageToken !== 'string') return 'nextPageToken is not a string';
      if (!Number.isInteger(pageSize) || !Number.isInteger(totalSize))
        return 'pageSize/totalSize are not integers';
      if (tasks.length > (pageSize as number)) return `${tasks.length} tasks on a page of ${pageSize}`;
      const withArtifacts = params.includeArtifacts === true || params.include_artifacts === true;
      for (const t of tasks) {
        const p = v1TaskProblem(t, limit ?? 0);
        if (p) return `a task: ${p}`;
        if (!withArtifacts && isObject(t) && 'artifacts' in t) return 'artifacts without includeArtifacts';
      }
      return undefined;
    }
    case 'GetExtendedAgentCard': {
      const caps = result.capabilities;
      if (typeof result.name !== 'string' || !Array.isArray(result.supportedInterfaces))
        return 'an AgentCard has a name and supportedInterfaces';
      if (!isObject(caps) || caps.extendedAgentCard !== true)
        return 'capabilities.extendedAgentCard is not true';
      if ('url' in result || 'protocolVersion' in result) return 'a v1.0 card has no v0.3 top-level fields';
      return undefined;
    }
  }
  return undefined;
}

function v1TaskProblem(t: unknown, historyLimit?: number): string | undefined {
  if (!isObject(t)) return 'a task is not an object';
  if (typeof t.id !== 'string' || t.id === '') return 'task.id is not a non-empty string';
  if (typeof t.contextId !== 'string') return 'task.contextId is not a string';
  if ('kind' in t) return 'a v1.0 task has a kind';
  if (!isObject(t.status) || !V1_STATES.has(t.status.state as string))
    return 'task.status.state is not a TaskState';
  if (typeof t.status.timestamp !== 'string' || !/Z$/.test(t.status.timestamp))
    return 'task.status.timestamp is not UTC';
  if (t.history !== undefined) {
    if (!Array.isArray(t.history)) return 'task.history is not an array';
    if (historyLimit !== undefined && t.history.length > historyLimit)
      return `${t.history.length} history messages, historyLength ${historyLimit}`;
    for (const m of t.history) {
      const p = v1MessageProblem(m);
      if (p) return `history: ${p}`;
    }
  }
  if (t.artifacts !== undefined && !Array.isArray(t.artifacts)) return 'task.artifacts is not an array';
  return undefined;
}

function v1MessageProblem(m: unknown): string | undefined {
  if (!isObject(m)) return 'a message is not an object';
  if (typeof m.messageId !== 'string') return 'message.messageId is not a string';
  if (m.role !== 'ROLE_USER' && m.role !== 'ROLE_AGENT') return `message.role is ${show(m.role)}`;
  if ('kind' in m) return 'a v1.0 message has a kind';
  if (!Array.isArray(m.parts) || m.parts.length === 0) return 'message.parts is not a non-empty array';
  for (const p of m.parts) {
    if (!isObject(p)) return 'a part is not an object';
    const members = ['text', 'raw', 'url', 'data'].filter((k) => p[k] !== undefined);
    if (members.length !== 1) return `a part with ${members.length} content members`;
  }
  return undefined;
}

function v03ResultProblem(method: string, params: Record<string, unknown>, result: unknown, taskId?: string) {
  if (!isObject(result)) return 'result is not an object';
  const limit = historyLimit(params);
  if (method === 'message/send' && result.kind === 'message') return v03MessageProblem(result);
  if (method === 'agent/getAuthenticatedExtendedCard') {
    return result.protocolVersion === '0.3.0' &&
      typeof result.url === 'string' &&
      result.supportsAuthenticatedExtendedCard === true
      ? undefined
      : 'a v0.3 AgentCard has protocolVersion "0.3.0", url and supportsAuthenticatedExtendedCard';
  }
  const p = v03TaskProblem(result, method === 'tasks/cancel' ? undefined : limit);
  if (p) return p;
  if (method !== 'message/send' && taskId !== undefined && result.id !== taskId)
    return `the task is ${show(result.id)}, not ${show(taskId)}`;
  return undefined;
}

function v03TaskProblem(t: Record<string, unknown>, historyLimit?: number): string | undefined {
  if (t.kind !== 'task') return 'a v0.3 task has kind "task"';
  if (typeof t.id !== 'string' || t.id === '') return 'task.id is not a non-empty string';
  if (typeof t.contextId !== 'string') return 'task.contextId is not a string';
  if (!isObject(t.status) || !V03_STATES.has(t.status.state as string))
    return 'task.status.state is not a v0.3 state';
  if (t.history !== undefined) {
    if (!Array.isArray(t.history)) return 'task.history is not an array';
    if (historyLimit !== undefined && t.history.length > historyLimit)
      return `${t.history.length} history messages, historyLength ${historyLimit}`;
    for (const m of t.history) {
      const p = isObject(m) ? v03MessageProblem(m) : 'a message is not an object';
      if (p) return `history: ${p}`;
    }
  }
  return undefined;
}

function v03MessageProblem(m: Record<string, unknown>): string | undefined {
  if (m.kind !== 'message') return 'a v0.3 message has kind "message"';
  if (m.role !== 'user' && m.role !== 'agent') return `message.role is ${show(m.role)}`;
  if (!Array.isArray(m.parts) || m.parts.length === 0) return 'message.parts is not a non-empty array';
  for (const p of m.parts) {
    if (!isObject(p) || !['text', 'file', 'data'].includes(p.kind as string))
      return 'a part without a v0.3 kind';
  }
  return undefined;
}
