/**
 * The registry's health probe of one agent (docs/registry.md#health): its card, fetched again and
 * compared with the live version's, and each declared interface asked GetTask of an id that cannot
 * exist. TaskNotFound in the binding's form (A2A: GetTask, error handling) proves an A2A server
 * answers there, which a card URL answering 200 does not. Every request goes through the HttpClient
 * port (the SSRF guard, a bounded answer) and all of them run at once, so a probe takes about one
 * timeout at most.
 */
import { randomUUID } from 'node:crypto';
import {
  type CardCheck,
  cardDigest,
  healthOf,
  type InterfaceCheck,
  type ProbeReport,
} from '../../domain/registry/health.ts';
import type { CatalogEntry } from '../../domain/registry/record.ts';
import type { HttpClient, HttpClientResult } from '../../ports/http-client.ts';
import { ERROR_CODES, ERROR_INFO_TYPE } from '../../protocol/a2a/errors.ts';

/** The probe's own version: it changes when what a probe sends changes, so an operator can tell. */
export const PROBE_VERSION = '1';
export const PROBE_USER_AGENT = `synapse-registry-probe/${PROBE_VERSION}`;

/** The well-known card path (A2A: agent discovery; RFC 8615). */
export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

/** The largest card read; a longer answer fails the card check. */
export const MAX_CARD_BYTES = 512 * 1024;
/** The largest answer of an interface read: a TaskNotFound is a few hundred bytes. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** The v0.3 HTTP+JSON TaskNotFound problem type (RFC 9457; A2A 0.3's HTTP+JSON errors). */
export const V03_TASK_NOT_FOUND_TYPE = 'https://a2a-protocol.org/errors/task-not-found';

export interface ProbeInput {
  entry: CatalogEntry;
  /** The ETag of the card as last fetched, sent as `If-None-Match`. */
  cardEtag?: string;
  /** cardDigest() of the live version's card as published. */
  liveCardDigest: string;
  http: HttpClient;
  now: () => Date;
  /** Of each request. */
  timeoutMs: number;
  /** The id asked for; a random UUID by default (an id no agent has). */
  unknownTaskId?: () => string;
}

type Interface = CatalogEntry['card']['supportedInterfaces'][number];

/**
 * Where the card is fetched: the URL it was published from when it was fetched by URL (that is the
 * document the live version holds); otherwise the well-known card of the first interface's origin,
 * where a client that knows only the agent's address looks (A2A: agent discovery).
 */
export const cardUrlOf = (entry: CatalogEntry): string | undefined => {
  if (entry.cardUrl) return entry.cardUrl;
  const first = entry.card.supportedInterfaces[0];
  if (!first) return undefined;
  try {
    return new URL(WELL_KNOWN_CARD_PATH, new URL(first.url).origin).href;
  } catch {
    return undefined;
  }
};

/** Probes the agent: its card and every interface, at once. */
export const probeAgent = async (input: ProbeInput): Promise<ProbeReport> => {
  const checkedAt = input.now().toISOString();
  const newId = input.unknownTaskId ?? randomUUID;
  const [card, interfaces] = await Promise.all([
    checkCard(input),
    Promise.all(input.entry.card.supportedInterfaces.map((i) => checkInterface(i, newId(), input))),
  ]);
  return { status: healthOf(card.status, interfaces), checkedAt, card, interfaces };
};

const baseHeaders = { 'user-agent': PROBE_USER_AGENT };

const failure = (result: Extract<HttpClientResult, { ok: false }>): string =>
  result.kind === 'refused' ? `refused: ${result.error}` : result.error;

const checkCard = async (input: ProbeInput): Promise<CardCheck> => {
  const url = cardUrlOf(input.entry);
  if (!url) return { status: 'failed', latencyMs: 0, error: 'no card URL: no cardUrl and no interface URL' };
  const result = await input.http.request({
    method: 'GET',
    url,
    headers: {
      ...baseHeaders,
      accept: 'application/json',
      ...(input.cardEtag ? { 'if-none-match': input.cardEtag } : {}),
    },
    timeoutMs: input.timeoutMs,
    maxBytes: MAX_CARD_BYTES,
  });
  if (!result.ok) return { status: 'failed', url, latencyMs: result.latencyMs, error: failure(result) };
  const { status: httpStatus, latencyMs } = result;
  const etag = result.headers.etag;
  if (httpStatus === 304 && input.cardEtag)
    return { status: 'unchanged', url, httpStatus, etag: etag ?? input.cardEtag, latencyMs };
  if (httpStatus !== 200)
    return { status: 'failed', url, httpStatus, latencyMs, error: `HTTP ${httpStatus}, expected 200` };
  const card = parseJson(result.body);
  if (!isObject(card))
    return { status: 'failed', url, httpStatus, latencyMs, error: 'the card is not a JSON object' };
  const digest = cardDigest(card);
  return {
    status: digest === input.liveCardDigest ? 'same' : 'drifted',
    url,
    httpStatus,
    ...(etag ? { etag } : {}),
    digest,
    latencyMs,
  };
};

/** The wire form of GetTask for one binding and version, or why the probe does not speak it. */
type Form = { kind: 'jsonrpc'; method: string; version?: string } | { kind: 'rest'; version: '1.0' | '0.3' };

/** v1.0 (any 1.x) or v0.3 (any 0.x: GetTask was `tasks/get` from the start), by Major.Minor (A2A: versioning). */
const generationOf = (protocolVersion: string): '1.0' | '0.3' | undefined =>
  /^1(\.|$)/.test(protocolVersion) ? '1.0' : /^0(\.|$)/.test(protocolVersion) ? '0.3' : undefined;

const formOf = (i: Interface): Form | string => {
  const generation = generationOf(i.protocolVersion);
  if (!generation) return `protocol version ${i.protocolVersion} is not one the probe speaks`;
  const binding = i.protocolBinding.toUpperCase();
  if (binding === 'JSONRPC')
    // v0.3 clients sent no A2A-Version; a server takes its absence as 0.3 (A2A: versioning)
    return generation === '1.0'
      ? { kind: 'jsonrpc', method: 'GetTask', version: '1.0' }
      : { kind: 'jsonrpc', method: 'tasks/get' };
  if (binding === 'HTTP+JSON') return { kind: 'rest', version: generation };
  return `the ${i.protocolBinding} binding is not probed`;
};

const checkInterface = async (i: Interface, taskId: string, input: ProbeInput): Promise<InterfaceCheck> => {
  const about = { url: i.url, protocolBinding: i.protocolBinding, protocolVersion: i.protocolVersion };
  const form = formOf(i);
  if (typeof form === 'string') return { ...about, ok: false, outcome: 'skipped', latencyMs: 0, error: form };
  let request: Parameters<HttpClient['request']>[0];
  const rpcId = `probe-${taskId}`;
  try {
    request =
      form.kind === 'jsonrpc'
        ? {
            method: 'POST',
            url: i.url,
            headers: {
              ...baseHeaders,
              'content-type': 'application/json',
              accept: 'application/json',
              ...(form.version ? { 'a2a-version': form.version } : {}),
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: rpcId,
              method: form.method,
              params: { id: taskId, ...(i.tenant && form.version ? { tenant: i.tenant } : {}) },
            }),
          }
        : {
            method: 'GET',
            url: restTaskUrl(i, taskId, form.version),
            headers: {
              ...baseHeaders,
              accept: 'application/a2a+json, application/json',
              ...(form.version === '1.0' ? { 'a2a-version': '1.0' } : {}),
            },
          };
  } catch {
    return { ...about, ok: false, outcome: 'failed', latencyMs: 0, error: `the interface URL is not a URL` };
  }
  const result = await input.http.request({
    ...request,
    timeoutMs: input.timeoutMs,
    maxBytes: MAX_ANSWER_BYTES,
  });
  if (!result.ok)
    return { ...about, ok: false, outcome: 'failed', latencyMs: result.latencyMs, error: failure(result) };
  const answer = { ...about, latencyMs: result.latencyMs, httpStatus: result.status };
  // A2A authenticates at the transport (A2A: error handling): without credentials, a challenge is the A2A answer
  if (result.status === 401 && result.headers['www-authenticate'])
    return { ...answer, ok: true, outcome: 'auth-required' };
  const problem = form.kind === 'jsonrpc' ? jsonRpcProblem(result, rpcId) : restProblem(result, form.version);
  return problem
    ? { ...answer, ok: false, outcome: 'unexpected', error: problem }
    : { ...answer, ok: true, outcome: 'task-not-found' };
};

/** `{url}/tasks/{id}` (v1.0), `{url}/v1/tasks/{id}` (v0.3), under `/{tenant}` when the interface has one (A2A: HTTP+JSON binding). */
const restTaskUrl = (i: Interface, taskId: string, version: '1.0' | '0.3'): string => {
  const url = new URL(i.url);
  const base = url.pathname.replace(/\/+$/, '');
  const tenant = i.tenant && version === '1.0' ? `/${encodeURIComponent(i.tenant)}` : '';
  url.pathname = `${base}${tenant}${version === '0.3' ? '/v1' : ''}/tasks/${encodeURIComponent(taskId)}`;
  return url.href;
};

type Answer = Extract<HttpClientResult, { ok: true }>;

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const clipText = (text: string, max = 200): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Undefined when the answer is TaskNotFound: a JSON-RPC 2.0 response to our id with error -32001 (A2A: error handling). */
const jsonRpcProblem = (answer: Answer, rpcId: string): string | undefined => {
  const body = parseJson(answer.body);
  if (!isObject(body) || body.jsonrpc !== '2.0')
    return `HTTP ${answer.status} without a JSON-RPC 2.0 response: ${clipText(answer.body)}`;
  if (body.id !== rpcId) return `the response's id ${JSON.stringify(body.id)} is not the request's`;
  if ('result' in body) return 'a task was returned for an id that cannot exist';
  const error = isObject(body.error) ? body.error : undefined;
  if (error?.code === ERROR_CODES.TASK_NOT_FOUND) return undefined;
  return `error ${JSON.stringify(error?.code)} (${clipText(String(error?.message ?? ''))}), expected ${ERROR_CODES.TASK_NOT_FOUND} TaskNotFound`;
};

/**
 * Undefined when the answer is TaskNotFound over HTTP+JSON: 404 and, in v1.0, `{"error": google.rpc.Status}`
 * whose details hold an ErrorInfo with reason TASK_NOT_FOUND (A2A error handling: the reason, not the status, tells
 * errors apart, and a bare 404 is any web server's); in v0.3, an RFC 9457 problem of the task-not-found
 * type, or the `{"code": -32001}` body @a2a-js/sdk's v0.3 REST binding answers (a v1.0 body is taken too).
 */
const restProblem = (answer: Answer, version: '1.0' | '0.3'): string | undefined => {
  if (answer.status === 200) return 'a task was returned for an id that cannot exist';
  if (answer.status !== 404)
    return `HTTP ${answer.status}, expected 404 TaskNotFound: ${clipText(answer.body)}`;
  const body = parseJson(answer.body);
  if (!isObject(body)) return `a 404 without a JSON body: ${clipText(answer.body)}`;
  if (isV1TaskNotFound(body)) return undefined;
  if (
    version === '0.3' &&
    (body.type === V03_TASK_NOT_FOUND_TYPE || body.code === ERROR_CODES.TASK_NOT_FOUND)
  )
    return undefined;
  return `a 404 that is not TaskNotFound: ${clipText(answer.body)}`;
};

const isV1TaskNotFound = (body: Record<string, unknown>): boolean => {
  const error = isObject(body.error) ? body.error : undefined;
  const details = Array.isArray(error?.details) ? error.details : [];
  return details.some((d) => isObject(d) && d['@type'] === ERROR_INFO_TYPE && d.reason === 'TASK_NOT_FOUND');
};
