/**
 * The hub client: same origin, the bearer token (an API key or a JWT) kept in sessionStorage only, never
 * in a URL nor in localStorage. Every failure is an ApiError carrying the hub's own message.
 */
import type {
  PeerMessages,
  TaskDeliveries,
  TaskEventsPage,
  TaskFactsList,
  WhoAmI,
} from '../../shared/app/inspector/read-model.ts';
import type { Part, StreamResponse, Task } from './a2a.ts';

const TOKEN_KEY = 'synapse.inspector.token';

export const getToken = (): string | null => {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
};
export const setToken = (token: string | null): void => {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // storage refused (private mode): the token lives for this page only
  }
  memoryToken = token;
};
let memoryToken: string | null = getToken();

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string | number,
  ) {
    super(message);
  }
}

/** Called on a 401 from any request: the app shows the sign-in view. */
let onUnauthorized: (() => void) | undefined;
export const setUnauthorizedHandler = (fn: () => void): void => {
  onUnauthorized = fn;
};

export function headers(extra?: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json', ...extra };
  const token = memoryToken ?? getToken();
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

/** The message of an error body, whichever of the hub's shapes it has. */
function errorOf(body: unknown, status: number): { message: string; code?: string | number } {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const e = b.error;
    if (e && typeof e === 'object') {
      const err = e as { message?: unknown; code?: unknown };
      if (typeof err.message === 'string')
        return { message: err.message, code: err.code as string | number | undefined };
    }
    if (typeof b.message === 'string') return { message: b.message, code: b.errorCode as string | undefined };
  }
  return { message: `The hub answered HTTP ${status}` };
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      ...init,
      headers: headers(init.headers as Record<string, string> | undefined),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(`The hub cannot be reached (${(e as Error).message})`, 0);
  }
  const body = await readJson(res);
  if (!res.ok) {
    const { message, code } = errorOf(body, res.status);
    if (res.status === 401) onUnauthorized?.();
    throw new ApiError(message, res.status, code);
  }
  return body as T;
}

const postJson = <T>(path: string, body: unknown): Promise<T> =>
  request<T>(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

export const A2A_ENDPOINT = '/a2a/jsonrpc';
let rpcId = 0;

export const rpcBody = (method: string, params: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params });

/** One A2A JSON-RPC call; a JSON-RPC error is thrown with its message. */
export async function rpc<T>(method: string, params: unknown): Promise<T> {
  const body = await request<{ result?: T; error?: { code: number; message: string } }>(A2A_ENDPOINT, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: rpcBody(method, params),
  });
  if (body?.error) throw new ApiError(body.error.message, 200, body.error.code);
  return body?.result as T;
}

export interface ListTasksParams {
  status?: string;
  contextId?: string;
  pageToken?: string;
  statusTimestampAfter?: string;
}
export interface ListTasksResult {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export const PAGE_SIZE = 50;

export const api = {
  whoami: () => request<WhoAmI>('/hub/me'),
  listTasks: (p: ListTasksParams) =>
    rpc<ListTasksResult>('ListTasks', {
      ...(p.status ? { status: p.status } : {}),
      ...(p.contextId ? { contextId: p.contextId } : {}),
      ...(p.pageToken ? { pageToken: p.pageToken } : {}),
      ...(p.statusTimestampAfter ? { statusTimestampAfter: p.statusTimestampAfter } : {}),
      pageSize: PAGE_SIZE,
      historyLength: 0,
    }),
  getTask: (id: string) => rpc<Task>('GetTask', { id, historyLength: 0 }),
  cancelTask: (id: string) => rpc<Task>('CancelTask', { id }),
  sendMessage: (parts: Part[], ids: { taskId?: string; contextId?: string } = {}) =>
    rpc<StreamResponse | Task>('SendMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...ids },
      configuration: { returnImmediately: true },
    }),
  facts: (ids: readonly string[]) =>
    request<TaskFactsList>(`/hub/tasks?ids=${ids.map(encodeURIComponent).join(',')}`),
  events: (id: string, after: number, limit = 1000) =>
    request<TaskEventsPage>(`/hub/tasks/${encodeURIComponent(id)}/events?after=${after}&limit=${limit}`),
  deliveries: (id: string) => request<TaskDeliveries>(`/hub/tasks/${encodeURIComponent(id)}/deliveries`),
  peerMessages: (id: string) => request<PeerMessages>(`/hub/tasks/${encodeURIComponent(id)}/peer-messages`),
  synapseAnswer: (id: string, body: unknown) =>
    postJson<unknown>(`/synapse/tasks/${encodeURIComponent(id)}/answer`, body),
  synapseCancel: (id: string) => postJson<unknown>(`/synapse/tasks/${encodeURIComponent(id)}/cancel`, {}),
  card: (v03: boolean) =>
    request<Record<string, unknown>>(`/.well-known/agent-card.json${v03 ? '?A2A-Version=0.3' : ''}`),
  jwks: () => request<{ keys: Record<string, unknown>[] }>('/.well-known/jwks.json'),
  registry: () =>
    request<{ items: Record<string, unknown>[]; total: number; pageToken?: string }>(
      '/registry/agents?pageSize=50',
    ),
};
