/**
 * The requester's HTTP API, transport-neutral (docs/synapse-protocol.md#the-requester-role):
 *
 * | request | what |
 * |---|---|
 * | `POST /synapse/tasks` `{peer, type, payload?, text?, deadlineSeconds?, contextId?, priority?, messageId?}` | delegates a task to a configured peer: 201 and the task (200 for a retried `messageId`) |
 * | `POST /synapse/tasks` `{skill, type?, …}` | the same, to the peer that carries out `skill` (SYNAPSE_REMOTE_SKILLS, then the agent registry: ./remote-skills.ts); 404 when none does |
 * | `GET /synapse/tasks/{id}` | the task |
 * | `POST /synapse/tasks/{id}/answer` `{fields?, text?}` or `{decision: "approve" \| "reject", notes?, decidedBy?}` | answers the peer's question, or gives the human decision it asked for |
 * | `POST /synapse/tasks/{id}/cancel` | cancels it (the peer is told) |
 *
 * A task is shown as `{task}` (A2A v1.0's Task shape: the same task is readable over A2A) with
 * `synapse: {state, peer}` beside it. Errors are `{error: {code, message}}` with 400 (invalid input),
 * 404 (no such task of the caller's), 409 (the task cannot take that now), 413 (a body over 1 MiB).
 */

import { textPart } from '../../agent/api.ts';
import type { Caller } from '../../domain/caller.ts';
import {
  AuthError,
  InvalidTransitionError,
  PayloadTooLargeError,
  TaskNotFoundError,
  UnavailableError,
  ValidationError,
} from '../../domain/errors.ts';
import { authorize, type Principal } from '../../domain/principal.ts';
import { isTerminal } from '../../domain/states.ts';
import type { Message, TaskView } from '../../domain/task.ts';
import { errorHeaders, toProtocolError } from '../../protocol/a2a/errors.ts';
import * as v1Wire from '../../protocol/a2a/v1-wire.ts';
import * as z from '../../validation/zod.ts';
import type { TaskService } from '../tasks/task-service.ts';
import { PEER_KEY, type SynapseRequester } from './requester.ts';

export interface TasksApiRequest {
  method: string;
  /** Below `/synapse/tasks`: `''`, `/{id}`, `/{id}/answer`, `/{id}/cancel`. */
  path: string;
  body: string | undefined;
  /** Who is calling (shared/adapters/lambda/auth-context.ts), or why they may not: answered before anything else. */
  principal: Principal | AuthError;
}

/** A request whose principal may do what it asks: the caller every read and write is scoped to. */
interface ScopedRequest extends Omit<TasksApiRequest, 'principal'> {
  caller: Caller;
}

export interface TasksApiAnswer {
  statusCode: number;
  body: unknown;
  meta: { taskId?: string; code?: string };
  /** `WWW-Authenticate` of a 401. */
  headers?: Record<string, string>;
}

const MAX_BODY_BYTES = 1_048_576;
const id = z.string().check(z.minLength(1), z.maxLength(256));
const short = z.string().check(z.minLength(1), z.maxLength(128));
const plain = z.record(z.string(), z.unknown());

const delegateSchema = z.strictObject({
  peer: z.optional(id),
  skill: z.optional(short),
  type: z.optional(short),
  payload: z.optional(plain),
  text: z.optional(z.string().check(z.maxLength(65_536))),
  deadlineSeconds: z.optional(z.int().check(z.gte(1), z.lte(86_400))),
  contextId: z.optional(id),
  priority: z.optional(short),
  messageId: z.optional(id),
});

const answerSchema = z.union([
  z.strictObject({
    decision: z.enum(['approve', 'reject']),
    notes: z.optional(z.string().check(z.maxLength(8_192))),
    decidedBy: z.optional(
      z.strictObject({ userId: id, userName: z.optional(z.string()), role: z.optional(z.string()) }),
    ),
    messageId: z.optional(id),
  }),
  z.strictObject({
    fields: z.optional(plain),
    text: z.optional(z.string().check(z.maxLength(65_536))),
    messageId: z.optional(id),
  }),
]);

const problem = (statusCode: number, code: string, message: string): TasksApiAnswer => ({
  statusCode,
  body: { error: { code, message } },
  meta: { code },
});

const parseBody = <T>(schema: z.ZodMiniType<T>, body: string | undefined): T | TasksApiAnswer => {
  if (body && Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES)
    // 413 as the A2A bindings answer the same limit (docs/security.md#limits); nothing is parsed
    return problem(413, 'payload_too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = body ? JSON.parse(body) : {};
  } catch {
    return problem(400, 'invalid_request', 'the body is not JSON');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return problem(
      400,
      'invalid_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
};

const isAnswer = (v: unknown): v is TasksApiAnswer =>
  typeof v === 'object' && v !== null && 'statusCode' in v && 'meta' in v;

const SHOW = { includeArtifacts: true, historyLength: 20 } as const;

/** The peer that carries out a skill for a caller (RemoteSkillResolver.resolve), when one does. */
export type SkillResolver = (
  caller: Caller,
  skill: string,
) => Promise<{ peer: string; type: string } | undefined>;

export class SynapseTasksApi {
  constructor(
    private readonly tasks: TaskService,
    private readonly requester: SynapseRequester,
    private readonly resolveSkill?: SkillResolver,
  ) {}

  async handle(unscoped: TasksApiRequest): Promise<TasksApiAnswer> {
    const [, taskId, action, ...rest] = unscoped.path.split('/');
    let request: ScopedRequest;
    try {
      const { principal } = unscoped;
      if (principal instanceof AuthError) throw principal;
      // reading a task needs the read right; delegating, answering and canceling the write right
      request = { ...unscoped, caller: authorize(principal, unscoped.method === 'GET' ? 'read' : 'write') };
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      const error = toProtocolError(e);
      return { ...problem(error.code, e.code, e.message), headers: errorHeaders(error) };
    }
    try {
      if (!taskId) {
        if (request.method !== 'POST')
          return problem(405, 'method_not_allowed', 'POST /synapse/tasks delegates a task');
        return await this.delegate(request);
      }
      if (rest.length) return problem(404, 'not_found', `no route ${request.path}`);
      let decoded: string;
      try {
        decoded = decodeURIComponent(taskId);
      } catch {
        return problem(404, 'task_not_found', 'No such task');
      }
      if (!action) {
        if (request.method !== 'GET') return problem(405, 'method_not_allowed', 'GET reads a task');
        return this.shown(200, await this.owned(request.caller, decoded));
      }
      if (request.method !== 'POST') return problem(405, 'method_not_allowed', `POST …/${action}`);
      if (action === 'answer') return await this.answer(request, decoded);
      if (action === 'cancel') {
        await this.owned(request.caller, decoded);
        return this.shown(200, await this.tasks.cancel(request.caller, decoded, SHOW));
      }
      return problem(404, 'not_found', `no action ${action}: answer or cancel`);
    } catch (e) {
      if (e instanceof TaskNotFoundError) return problem(404, 'task_not_found', 'No such task');
      if (e instanceof InvalidTransitionError)
        return problem(409, isTerminal(e.state) ? 'task_already_completed' : 'invalid_state', e.message);
      if (e instanceof ValidationError || e instanceof PayloadTooLargeError)
        return problem(400, 'invalid_request', e.message);
      if (e instanceof UnavailableError)
        return {
          ...problem(503, 'unavailable', e.message),
          headers: { 'retry-after': String(e.retryAfterSeconds) },
        };
      throw e;
    }
  }

  private async delegate(request: ScopedRequest): Promise<TasksApiAnswer> {
    const input = parseBody(delegateSchema, request.body);
    if (isAnswer(input)) return input;
    if ((input.peer === undefined) === (input.skill === undefined))
      return problem(400, 'invalid_request', 'name either peer (and type) or skill');
    let peerId = input.peer;
    let type = input.type;
    if (input.skill !== undefined) {
      const route = await this.resolveSkill?.(request.caller, input.skill);
      if (!route)
        return problem(
          404,
          'skill_not_found',
          `No configured peer carries out skill "${input.skill}" (SYNAPSE_REMOTE_SKILLS, or an approved, reachable agent in the registry)`,
        );
      peerId = route.peer;
      type ??= route.type;
    }
    if (type === undefined) return problem(400, 'invalid_request', 'type: required with peer');
    const { record, duplicate } = await this.requester.delegate(request.caller, {
      peerId: peerId!,
      type,
      ...(input.payload ? { payload: input.payload } : {}),
      ...(input.text ? { text: input.text } : {}),
      ...(input.deadlineSeconds ? { deadlineSeconds: input.deadlineSeconds } : {}),
      ...(input.contextId ? { contextId: input.contextId } : {}),
      ...(input.priority ? { priority: input.priority } : {}),
      ...(input.messageId
        ? {
            message: {
              messageId: input.messageId,
              role: 'user',
              parts: input.text ? [textPart(input.text)] : [],
            },
          }
        : {}),
    });
    return this.shown(duplicate ? 200 : 201, await this.tasks.view(record, SHOW));
  }

  private async answer(request: ScopedRequest, taskId: string): Promise<TasksApiAnswer> {
    const input = parseBody(answerSchema, request.body);
    if (isAnswer(input)) return input;
    await this.owned(request.caller, taskId);
    const messageId = input.messageId ?? crypto.randomUUID();
    let message: Message;
    if ('decision' in input) {
      const decidedBy = input.decidedBy
        ? {
            user_id: input.decidedBy.userId,
            ...(input.decidedBy.userName ? { user_name: input.decidedBy.userName } : {}),
            ...(input.decidedBy.role ? { role: input.decidedBy.role } : {}),
          }
        : { user_id: request.caller.owner };
      message = {
        messageId,
        role: 'user',
        parts: [
          {
            data: {
              decision: input.decision,
              ...(input.notes ? { notes: input.notes } : {}),
              decided_by: decidedBy,
            },
            mediaType: 'application/json',
          },
        ],
        metadata: { 'synapse.decidedBy': decidedBy },
      };
    } else {
      if (!input.fields && !input.text)
        return problem(400, 'invalid_request', 'an answer needs fields or text');
      message = {
        messageId,
        role: 'user',
        parts: [
          ...(input.text ? [textPart(input.text)] : []),
          ...(input.fields
            ? [{ data: { provided_fields: input.fields }, mediaType: 'application/json' }]
            : []),
        ],
      };
    }
    // a decision for a task that waits for information (or the other way round) is refused (409)
    const continued = await this.tasks.continueTask(request.caller, taskId, message, undefined, {
      answers: 'decision' in input ? 'decision' : 'information',
    });
    return this.shown(200, await this.tasks.view(continued.record, SHOW));
  }

  /** The caller's requester task (another caller's, or a task not delegated, is not found). */
  private async owned(caller: Caller, taskId: string): Promise<TaskView> {
    const view = await this.tasks.read(caller, taskId, SHOW);
    if (!view.head.metadata?.[PEER_KEY]) throw new TaskNotFoundError(taskId);
    return view;
  }

  private shown(statusCode: number, view: TaskView): TasksApiAnswer {
    return {
      statusCode,
      body: {
        task: v1Wire.encodeTask(view, SHOW),
        synapse: { state: view.head.state, peer: view.head.metadata?.[PEER_KEY] },
      },
      meta: { taskId: view.head.taskId },
    };
  }
}
