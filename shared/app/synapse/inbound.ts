/**
 * `POST /synapse/callback`, transport-neutral: one Synapse message in, its synchronous answer out
 * (docs/synapse-protocol.md#the-endpoint). In order:
 * 1. the body: present, at most MAX_MESSAGE_BYTES, JSON;
 * 2. the message: the envelope and its type's payload schema (message_format_invalid / invalid_params);
 * 3. the signature of its sender, a configured peer (permission_denied, 403), and its recipient, when
 *    named: this hub (invalid_params);
 * 4. what it asks, through the same task service and conditional writes as A2A, for the peer's tenant
 *    and as the peer (owner `synapse:<peer id>`): a task of another peer is not found.
 *
 * This hub is the executor here: a p2p:task_request makes a task whose Synapse requester is told of its
 * events by signed callbacks through the delivery pipeline (./callbacks.ts); answers (info provided, a
 * human decision) continue it, a cancel cancels it (answered with p2p:task_ack), a capability query is
 * answered from the agent's description. Every other message is acknowledged: a message received
 * before (the same message id: the task keeps the ids of the messages it applied, and a request's task
 * id is derived from the peer and its own id) is acknowledged again with `duplicate: true`, no effect.
 * Reports of an executor (confirm, status, need_info, …) about a task this hub delegated go to the
 * requester role (./requester.ts); a completion is answered with p2p:task_ack.
 */

import { createHash } from 'node:crypto';
import { type AgentDescription, dataPart, textPart } from '../../agent/api.ts';
import type { Caller } from '../../domain/caller.ts';
import {
  ConflictError,
  DomainError,
  InvalidTransitionError,
  PayloadTooLargeError,
  TaskNotFoundError,
  UnavailableError,
  ValidationError,
} from '../../domain/errors.ts';
import { isTerminal, type SynapseState } from '../../domain/states.ts';
import type { Message } from '../../domain/task.ts';
import type { PushUrlGuard } from '../../ports/push-url-guard.ts';
import type { SeenSignatures } from '../../ports/seen-signatures.ts';
import {
  ack,
  createMessage,
  MAX_MESSAGE_BYTES,
  nack,
  nackOf,
  type PeerDirectory,
  parseSynapseMessage,
  type RequestHeaders,
  replyOptions,
  type SynapseErrorCode,
  type SynapseMessage,
  type SynapseMessageType,
  type SynapsePeer,
  type SynapseSender,
  verifySynapseRequest,
} from '../../protocol/synapse/index.ts';
import {
  DEFAULT_MAX_REQUEST_DEADLINE_SECONDS,
  REQUEST_DEADLINE_KEY,
  REQUEST_SKILL_KEY,
} from '../tasks/deadlines.ts';
import type { TaskService } from '../tasks/task-service.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from './callbacks.ts';
import { ReportRefusedError, type SynapseRequester } from './requester.ts';

export interface SynapseRequest {
  /** The raw body, exactly as received (the signature covers these bytes). */
  body: string | undefined;
  headers: RequestHeaders;
}

export interface SynapseAnswer {
  statusCode: number;
  /** The p2p:ack, p2p:nack, p2p:task_ack or p2p:capability_response answering the request. */
  body: SynapseMessage;
  /** For the log line: never a secret. */
  meta: { type?: string; peer?: string; taskId?: string; code?: string; duplicate?: boolean };
}

export interface SynapseEndpointOptions {
  agent: AgentDescription;
  peers: PeerDirectory;
  seen: SeenSignatures;
  /** This hub as a Synapse agent: its id and its `/synapse/callback` URL. */
  self: SynapseSender;
  /** Checks a requester's callback endpoint before callbacks go there (the sender checks again). */
  urls: PushUrlGuard;
  /** Whether callbacks can be delivered (the delivery queue is configured); without, requests are refused. */
  callbacksEnabled: boolean;
  /** The requester role: reports about tasks this hub delegated (without it they find no task). */
  requester?: SynapseRequester;
  windowSeconds?: number;
  /** The longest deadline a request may ask for (TASK_MAX_DEADLINE_SECONDS); a later one is kept within it. */
  maxDeadlineSeconds?: number;
  /** Epoch milliseconds. */
  now?: () => number;
}

/** The owner of a peer's tasks: the peer, as the principal the hub knows it by. */
export const peerOwner = (peerId: string): string => `synapse:${peerId}`;

/**
 * The hub's id of the task a peer calls `remoteTaskId`: derived (a UUID-shaped digest), so every later
 * message about it finds it, and two peers' ids never meet.
 */
export const synapseTaskId = (tenant: string, peerId: string, remoteTaskId: string): string => {
  const h = createHash('sha256')
    .update(JSON.stringify(['synapse-task', tenant, peerId, remoteTaskId]))
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** A payload's text for an agent that reads text: `text` or `input` when a string. */
const requestText = (payload: Record<string, unknown> | undefined): string | undefined => {
  for (const key of ['text', 'input'] as const) {
    const v = payload?.[key];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return undefined;
};

/** What provided fields say as text: the message, else each value (strings as they are), one per line. */
const providedText = (fields: Record<string, unknown>, message: string | undefined): string =>
  message ??
  Object.values(fields)
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    .join('\n');

/** Who sent a verified message: the peer, as the caller its tasks are owned by, and the log keys. */
interface Sender {
  peer: SynapsePeer;
  caller: Caller;
  meta: SynapseAnswer['meta'];
}

/** How a message of one type is answered. */
type Handler<T extends SynapseMessageType> = (
  message: SynapseMessage<T>,
  on: Sender,
) => Promise<SynapseAnswer>;

type Handlers = { readonly [T in SynapseMessageType]: Handler<T> };

export class SynapseEndpoint {
  private readonly now: () => number;

  constructor(
    private readonly tasks: TaskService,
    private readonly options: SynapseEndpointOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  async handle(request: SynapseRequest): Promise<SynapseAnswer> {
    const sender = this.options.self;
    const body = request.body ?? '';
    if (body.length === 0) return this.refuse('message_format_invalid', 'The request has no body');
    if (Buffer.byteLength(body, 'utf8') > MAX_MESSAGE_BYTES)
      return this.refuse('message_format_invalid', `The message is larger than ${MAX_MESSAGE_BYTES} bytes`);
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return this.refuse('message_format_invalid', 'The body is not JSON');
    }
    const parsed = parseSynapseMessage(raw);
    if (!parsed.ok) {
      const n = nackOf(parsed.error, { sender, ...(parsed.replyTo ? { inReplyTo: parsed.replyTo } : {}) });
      return { statusCode: n.status, body: n.message, meta: { code: parsed.error.code } };
    }
    const message = parsed.message;
    try {
      return await this.verifiedAndHandled(message, body, request.headers);
    } catch (e) {
      const [code, text] = errorOf(e);
      const n = nack(code, text, { sender, inReplyTo: message });
      return {
        statusCode: n.status,
        body: n.message,
        meta: { type: message.type, peer: message.sender.agent_id, code },
      };
    }
  }

  private async verifiedAndHandled(
    message: SynapseMessage,
    body: string,
    headers: RequestHeaders,
  ): Promise<SynapseAnswer> {
    const sender = this.options.self;
    const request = { headers };
    const verified = await verifySynapseRequest(
      {
        rawBody: body,
        headers: request.headers,
        peerId: message.sender.agent_id,
        messageId: message.message_id,
      },
      {
        peers: this.options.peers,
        seen: this.options.seen,
        now: this.now,
        ...(this.options.windowSeconds !== undefined ? { windowSeconds: this.options.windowSeconds } : {}),
      },
    );
    const meta = {
      type: message.type,
      peer: message.sender.agent_id,
      ...(message.task_id ? { taskId: message.task_id } : {}),
    };
    if (!verified.ok) {
      const n = nackOf(verified.error, { sender, inReplyTo: message });
      return { statusCode: n.status, body: n.message, meta: { ...meta, code: verified.reason } };
    }
    const recipient = message.recipient?.agent_id;
    if (recipient !== undefined && recipient !== sender.agent_id) {
      const n = nack('invalid_params', `This message is for ${recipient}; this agent is ${sender.agent_id}`, {
        sender,
        inReplyTo: message,
      });
      return { statusCode: n.status, body: n.message, meta: { ...meta, code: 'invalid_params' } };
    }
    try {
      return await this.dispatch(message, verified.peer, meta);
    } catch (e) {
      const [code, text] = errorOf(e);
      const n = nack(code, text, { sender, inReplyTo: message });
      return { statusCode: n.status, body: n.message, meta: { ...meta, code } };
    }
  }

  private refuse(code: SynapseErrorCode, text: string): SynapseAnswer {
    const n = nack(code, text, { sender: this.options.self });
    return { statusCode: n.status, body: n.message, meta: { code } };
  }

  private acked(
    message: SynapseMessage,
    meta: SynapseAnswer['meta'],
    outcome: { state?: SynapseState; duplicate?: boolean } = {},
  ): SynapseAnswer {
    return {
      statusCode: 200,
      body: ack(message, {
        sender: this.options.self,
        ...(outcome.duplicate ? { duplicate: true } : {}),
        ...(outcome.state ? { status: outcome.state } : {}),
      }),
      meta: { ...meta, ...(outcome.duplicate ? { duplicate: true } : {}) },
    };
  }

  /**
   * What each message type is answered with: an executor's reports go to the requester role, a
   * message that only answers one is acknowledged. A type without an entry is a type error here.
   */
  private readonly handlers: Handlers = {
    'p2p:task_request': (message, on) => this.request(message, on),
    'p2p:task_info_provided': (message, on) => this.infoProvided(message, on),
    'p2p:human_decision': (message, on) => this.humanDecision(message, on),
    'p2p:task_cancel': (message, on) => this.cancel(message, on),
    'p2p:capability_query': async (message, on) => ({
      statusCode: 200,
      body: this.capabilities(message),
      meta: on.meta,
    }),
    'p2p:heartbeat': (message, on) => this.heartbeat(message, on),
    'p2p:task_confirm': (message, on) => this.report(message, on),
    'p2p:task_reject': (message, on) => this.report(message, on),
    'p2p:task_need_info': (message, on) => this.report(message, on),
    'p2p:task_status_update': (message, on) => this.report(message, on),
    'p2p:task_need_human': (message, on) => this.report(message, on),
    'p2p:task_complete': (message, on) => this.report(message, on),
    'p2p:task_failed': (message, on) => this.report(message, on),
    'p2p:ack': async (message, on) => this.acked(message, on.meta),
    'p2p:nack': async (message, on) => this.acked(message, on.meta),
    'p2p:task_ack': async (message, on) => this.acked(message, on.meta),
    'p2p:capability_response': async (message, on) => this.acked(message, on.meta),
  };

  private dispatch(
    message: SynapseMessage,
    peer: SynapsePeer,
    meta: SynapseAnswer['meta'],
  ): Promise<SynapseAnswer> {
    const caller: Caller = { tenant: peer.tenant, owner: peerOwner(peer.peerId) };
    // the entry of the message's own type (the compiler cannot pair a union message with it)
    const handle = this.handlers[message.type] as Handler<SynapseMessageType>;
    return handle(message, { peer, caller, meta });
  }

  /** The hub's id of the task the peer calls `remote`. */
  private hubTaskId(peer: SynapsePeer, remote: string): string {
    return synapseTaskId(peer.tenant, peer.peerId, remote);
  }

  private async infoProvided(
    message: SynapseMessage<'p2p:task_info_provided'>,
    { peer, caller, meta }: Sender,
  ): Promise<SynapseAnswer> {
    const p = message.payload;
    const text = providedText(p.provided_fields, p.message);
    const answer: Message = {
      messageId: message.message_id,
      role: 'user',
      parts: [...(text ? [textPart(text)] : []), dataPart({ provided_fields: p.provided_fields })],
      metadata: { 'synapse.messageType': message.type },
    };
    const done = await this.tasks.continueTask(caller, this.hubTaskId(peer, p.task_id), answer, undefined, {
      answers: 'information',
    });
    return this.acked(message, meta, { state: done.head.state, duplicate: done.duplicate });
  }

  private async humanDecision(
    message: SynapseMessage<'p2p:human_decision'>,
    { peer, caller, meta }: Sender,
  ): Promise<SynapseAnswer> {
    const p = message.payload;
    const decision: Message = {
      messageId: message.message_id,
      role: 'user',
      parts: [
        ...(p.notes ? [textPart(`${p.decision.action} ${p.notes}`)] : []),
        dataPart({
          decision: p.decision.action,
          ...(p.notes ? { notes: p.notes } : {}),
          decision_id: p.decision_id,
          decided_by: p.decided_by,
          ...(p.decision.approved_fields ? { approved_fields: p.decision.approved_fields } : {}),
          ...(p.decision.rejection_reason ? { rejection_reason: p.decision.rejection_reason } : {}),
        }),
      ],
      // kept for audit: the history shows who decided, and when
      metadata: {
        'synapse.messageType': message.type,
        'synapse.decidedBy': p.decided_by,
        'synapse.decisionId': p.decision_id,
        ...(p.timestamp ? { 'synapse.decidedAt': p.timestamp } : {}),
      },
    };
    const done = await this.tasks.continueTask(caller, this.hubTaskId(peer, p.task_id), decision, undefined, {
      answers: 'decision',
    });
    return this.acked(message, meta, { state: done.head.state, duplicate: done.duplicate });
  }

  private async cancel(
    message: SynapseMessage<'p2p:task_cancel'>,
    { peer, caller, meta }: Sender,
  ): Promise<SynapseAnswer> {
    const view = await this.tasks.cancel(caller, this.hubTaskId(peer, message.payload.task_id), {
      includeArtifacts: false,
      historyLength: 0,
    });
    return {
      statusCode: 200,
      body: createMessage(
        'p2p:task_ack',
        { task_id: message.payload.task_id, acked_type: 'p2p:task_cancel', status: view.head.state },
        replyOptions(message, this.options.self),
      ),
      meta,
    };
  }

  /** About a task this hub delegated to the peer (its watch counts it), or one the peer delegated here. */
  private async heartbeat(
    message: SynapseMessage<'p2p:heartbeat'>,
    { peer, caller, meta }: Sender,
  ): Promise<SynapseAnswer> {
    const delegated = await this.options.requester?.taskOf(peer.tenant, peer.peerId, message.payload.task_id);
    const record = delegated
      ? await this.options.requester!.heartbeat(delegated, message)
      : await this.tasks.owned(caller, this.hubTaskId(peer, message.payload.task_id));
    return this.acked(message, meta, { state: record.head.state });
  }

  /** An executor's report about a task this hub delegated to it (./requester.ts). */
  private async report(message: SynapseMessage, { peer, meta }: Sender): Promise<SynapseAnswer> {
    const requester = this.options.requester;
    const taskId = message.task_id ?? '';
    const record = requester && (await requester.taskOf(peer.tenant, peer.peerId, taskId));
    if (!requester || !record) throw new TaskNotFoundError(taskId);
    const received = await requester.receive(record, message);
    const outcome = { state: received.record.head.state, duplicate: received.duplicate };
    if (message.type !== 'p2p:task_complete') return this.acked(message, meta, outcome);
    // a completion is answered with a task-level acknowledgement (docs/synapse-protocol.md#the-endpoint)
    return {
      statusCode: 200,
      body: createMessage(
        'p2p:task_ack',
        { task_id: taskId, acked_type: 'p2p:task_complete', status: outcome.state },
        replyOptions(message, this.options.self),
      ),
      meta: { ...meta, ...(received.duplicate ? { duplicate: true } : {}) },
    };
  }

  private async request(
    message: SynapseMessage<'p2p:task_request'>,
    { peer, caller, meta }: Sender,
  ): Promise<SynapseAnswer> {
    const { task, context } = message.payload;
    if (!this.options.callbacksEnabled)
      throw new SynapseRefusal(
        'agent_not_ready',
        'This hub cannot send callbacks: its delivery queue is not configured',
      );
    const skills = this.options.agent.skills;
    if (skills.length > 0 && !skills.some((s) => s.id === task.type)) {
      throw new SynapseRefusal(
        'capability_lacking',
        `This agent has no task type "${task.type}" (p2p:capability_query lists them: ${skills.map((s) => s.id).join(', ')})`,
      );
    }
    // callbacks go to the peer's configured endpoint (the envelope's sender.endpoint is not trusted for it)
    const endpoint = this.options.urls.check(peer.endpoint);
    if (!endpoint.ok)
      throw new ValidationError(`the peer's endpoint is refused: ${endpoint.reason}`, 'peer.endpoint');
    const metadata: Record<string, unknown> = {
      [REQUEST_SKILL_KEY]: task.type,
      'synapse.messageType': message.type,
      ...(task.priority ? { 'synapse.priority': task.priority } : {}),
      ...(context?.parent_task_id ? { 'synapse.parentTaskId': context.parent_task_id } : {}),
      ...(context?.correlation_id ? { 'synapse.correlationId': context.correlation_id } : {}),
    };
    if (task.deadline) {
      const seconds = Math.ceil((Date.parse(task.deadline) - this.now()) / 1000);
      if (seconds < 1) throw new ValidationError('task.deadline has passed', 'payload.task.deadline');
      // a deadline beyond what this hub allows is kept within it
      metadata[REQUEST_DEADLINE_KEY] = Math.min(
        seconds,
        this.options.maxDeadlineSeconds ?? DEFAULT_MAX_REQUEST_DEADLINE_SECONDS,
      );
    }
    const text = requestText(task.payload);
    const first: Message = {
      messageId: message.message_id,
      role: 'user',
      parts: [...(text ? [textPart(text)] : []), dataPart({ type: task.type, payload: task.payload ?? {} })],
      metadata,
    };
    const taskId = synapseTaskId(peer.tenant, peer.peerId, task.id);
    const submitted = await this.tasks.submit(caller, first, context?.session_id || undefined, {
      taskId,
      protocol: 'synapse',
      pushConfig: {
        config: { id: SYNAPSE_CALLBACK_CONFIG_ID, url: endpoint.url },
        version: 'synapse',
        synapse: { peerId: peer.peerId, remoteTaskId: task.id },
      },
    });
    return this.acked(
      message,
      { ...meta, taskId: task.id },
      {
        state: submitted.head.state,
        duplicate: submitted.duplicate,
      },
    );
  }

  private capabilities(message: SynapseMessage<'p2p:capability_query'>): SynapseMessage {
    const { agent } = this.options;
    const asked = message.payload.task_types;
    const skills = asked ? agent.skills.filter((s) => asked.includes(s.id)) : agent.skills;
    return createMessage(
      'p2p:capability_response',
      {
        task_types: skills.map((s) => s.id),
        capabilities: skills.map((s) => ({
          task_type: s.id,
          description: s.description.slice(0, 8_192),
          tags: s.tags.slice(0, 100),
        })),
        description: agent.description.slice(0, 8_192),
      },
      replyOptions(message, this.options.self),
    );
  }
}

/** A refusal in the protocol's own terms. */
class SynapseRefusal extends Error {
  constructor(
    readonly code: SynapseErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The Synapse error code (docs/synapse-protocol.md#error-codes) and a message for what was thrown. */
const errorOf = (e: unknown): [SynapseErrorCode, string] => {
  if (e instanceof SynapseRefusal) return [e.code, e.message];
  if (e instanceof ReportRefusedError)
    return [isTerminal(e.state) ? 'task_already_completed' : 'invalid_params', e.message];
  if (e instanceof TaskNotFoundError) return ['task_not_found', 'No such task (of this peer)'];
  if (e instanceof InvalidTransitionError) {
    return isTerminal(e.state)
      ? ['task_already_completed', `The task is ${e.state}`]
      : ['invalid_params', e.message];
  }
  if (e instanceof ValidationError || e instanceof PayloadTooLargeError) return ['invalid_params', e.message];
  // a write lost to concurrent ones, DynamoDB or a secret unavailable, anything unforeseen: the sender
  // may try again (503), and the message is not lost
  if (e instanceof ConflictError) return ['agent_not_ready', 'The task is busy: try again'];
  if (e instanceof UnavailableError) return ['agent_not_ready', e.message];
  if (e instanceof DomainError) return ['invalid_params', e.message];
  console.error('synapse message failed', e);
  return ['agent_not_ready', 'The hub could not handle the message now: try again'];
};
