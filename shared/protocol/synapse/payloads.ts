import * as z from '../../validation/zod.ts';
import { MESSAGE_ID_PATTERN } from './bounds.ts';
import {
  codeSchema,
  endpointSchema,
  freeObject,
  freeValue,
  idSchema,
  list,
  messageIdSchema,
  NO_CONTROL,
  nameSchema,
  object,
  opt,
  optionalIdSchema,
  optionalNameSchema,
  percentSchema,
  reasonSchema,
  secondsSchema,
  stateSchema,
  textSchema,
  timestampSchema,
} from './scalars.ts';

export {
  codeSchema,
  endpointSchema,
  freeObject,
  idSchema,
  MESSAGE_ID_PATTERN,
  messageIdSchema,
  NO_CONTROL,
  object,
  opt,
  stateSchema,
  timestampSchema,
};

// ---- the message types -----------------------------------------------------------------------

export const SYNAPSE_MESSAGE_TYPES = [
  'p2p:task_request',
  'p2p:task_confirm',
  'p2p:task_reject',
  'p2p:task_need_info',
  'p2p:task_info_provided',
  'p2p:task_status_update',
  'p2p:task_complete',
  'p2p:task_failed',
  'p2p:task_cancel',
  'p2p:task_ack',
  'p2p:ack',
  'p2p:nack',
  'p2p:heartbeat',
  'p2p:capability_query',
  'p2p:capability_response',
  'p2p:task_need_human',
  'p2p:human_decision',
] as const;

export type SynapseMessageType = (typeof SYNAPSE_MESSAGE_TYPES)[number];

export const isSynapseMessageType = (t: unknown): t is SynapseMessageType =>
  typeof t === 'string' && (SYNAPSE_MESSAGE_TYPES as readonly string[]).includes(t);

export type Direction = 'requester_to_executor' | 'executor_to_requester' | 'both';

export interface MessageTypeInfo {
  /** Who sends it to whom, as the protocol says (docs/synapse-protocol.md#messages). */
  direction: Direction;
  /** The envelope must carry `task_id` (and it must equal the payload's). */
  taskScoped: boolean;
  /** Where the payload names its task: `task.id` for a request, `task_id` otherwise. */
  payloadTaskId: readonly ['task', 'id'] | readonly ['task_id'] | undefined;
  /**
   * Whether the protocol gives the payload, field for field (*given* in docs/synapse-protocol.md#messages);
   * otherwise it is this project's design.
   */
  payloadGiven: boolean;
  description: string;
}

const TASK_ID = ['task_id'] as const;

export const MESSAGE_TYPES: Readonly<Record<SynapseMessageType, MessageTypeInfo>> = {
  'p2p:task_request': {
    direction: 'requester_to_executor',
    taskScoped: true,
    payloadTaskId: ['task', 'id'],
    payloadGiven: true,
    description: 'submit a task',
  },
  'p2p:task_confirm': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'the task is accepted',
  },
  'p2p:task_reject': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'the task is refused (terminal), with alternatives',
  },
  'p2p:task_need_info': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'fields are missing',
  },
  'p2p:task_info_provided': {
    direction: 'requester_to_executor',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: false,
    description: 'the missing fields',
  },
  'p2p:task_status_update': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'progress (0–100) and a message',
  },
  'p2p:task_complete': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'the result (terminal)',
  },
  'p2p:task_failed': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'the error (terminal)',
  },
  'p2p:task_cancel': {
    direction: 'requester_to_executor',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: false,
    description: 'cancel the task',
  },
  'p2p:task_ack': {
    direction: 'both',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: false,
    description: 'task-level acknowledgement (of a completion, of a cancel, …)',
  },
  'p2p:ack': {
    direction: 'both',
    taskScoped: false,
    payloadTaskId: undefined,
    payloadGiven: false,
    description: 'generic acknowledgement (the synchronous answer to a message)',
  },
  'p2p:nack': {
    direction: 'both',
    taskScoped: false,
    payloadTaskId: undefined,
    payloadGiven: false,
    description: 'generic negative acknowledgement carrying an error code',
  },
  'p2p:heartbeat': {
    direction: 'both',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: false,
    description: 'keep-alive of a task',
  },
  'p2p:capability_query': {
    direction: 'both',
    taskScoped: false,
    payloadTaskId: undefined,
    payloadGiven: false,
    description: "ask for the peer's capabilities",
  },
  'p2p:capability_response': {
    direction: 'both',
    taskScoped: false,
    payloadTaskId: undefined,
    payloadGiven: false,
    description: 'the capabilities (task types)',
  },
  'p2p:task_need_human': {
    direction: 'executor_to_requester',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: 'a human must decide',
  },
  'p2p:human_decision': {
    direction: 'requester_to_executor',
    taskScoped: true,
    payloadTaskId: TASK_ID,
    payloadGiven: true,
    description: "the human's decision",
  },
};

// ---- payloads (docs/synapse-protocol.md#messages) ---------------------------------------------

const TaskRequestPayloadSchema = () =>
  object({
    task: object({
      id: idSchema,
      type: codeSchema,
      /** Free string; the protocol's example is `normal`. */
      priority: opt(codeSchema),
      deadline: opt(timestampSchema),
      payload: opt(freeObject),
    }),
    context: opt(
      object({
        session_id: opt(optionalIdSchema),
        parent_task_id: opt(optionalIdSchema),
        correlation_id: opt(optionalIdSchema),
        metadata: opt(freeObject),
      }),
    ),
  });

/** `confirmed` is always true: a refusal is a p2p:task_reject. */
const TaskConfirmPayloadSchema = () =>
  object({
    task_id: idSchema,
    confirmed: z.literal(true, 'must be true (a refusal is a p2p:task_reject)'),
    /** Seconds. */
    estimated_duration: opt(secondsSchema),
    expected_completion: opt(timestampSchema),
    capabilities_used: opt(list(codeSchema)),
    constraints: opt(
      object({
        max_retries: opt(z.int().check(z.gte(0), z.lte(100))),
        fallback_enabled: opt(z.boolean()),
      }),
    ),
  });

const TaskRejectPayloadSchema = () =>
  object({
    task_id: idSchema,
    reason: reasonSchema,
    alternatives: opt(
      object({
        suggested_agent_id: opt(optionalIdSchema),
        /** Seconds. */
        retry_after: opt(secondsSchema),
        partial_support: opt(z.boolean()),
      }),
    ),
  });

const TaskNeedInfoPayloadSchema = () =>
  object({
    task_id: idSchema,
    missing_fields: list(
      object({
        field: nameSchema,
        reason: opt(textSchema),
        suggested_value: freeValue(),
        alternatives: opt(list(z.unknown())),
      }),
      { min: 1 },
    ),
    question: opt(textSchema),
    required_by: opt(timestampSchema),
  });

/** This project's: the requester's answer to a p2p:task_need_info (`provided_fields`: field → value). */
const TaskInfoProvidedPayloadSchema = () =>
  object({
    task_id: idSchema,
    /** The message id of the p2p:task_need_info answered (as human_decision's `reply_to`). */
    reply_to: opt(messageIdSchema),
    provided_fields: freeObject,
    message: opt(textSchema),
  });

const TaskStatusUpdatePayloadSchema = () =>
  object({
    task_id: idSchema,
    /** One of the 14 states (docs/state-machine.md). */
    status: stateSchema,
    progress: opt(percentSchema),
    message: opt(textSchema),
    intermediate_result: freeValue(),
  });

const TaskCompletePayloadSchema = () =>
  object({
    task_id: idSchema,
    result: object({
      output_type: opt(codeSchema),
      output: freeValue(),
      metadata: opt(freeObject),
    }),
    summary: opt(textSchema),
  });

const TaskFailedPayloadSchema = () =>
  object({
    task_id: idSchema,
    error: object({
      code: codeSchema,
      message: textSchema,
      recoverable: opt(z.boolean()),
      details: freeValue(),
    }),
    partial_result: freeValue(),
  });

/** This project's. */
const TaskCancelPayloadSchema = () =>
  object({
    task_id: idSchema,
    reason: opt(reasonSchema),
  });

/** This project's: acknowledges a task-level message (`acked_type`), e.g. a completion or a cancel. */
const TaskAckPayloadSchema = () =>
  object({
    task_id: idSchema,
    acked_type: z.enum(SYNAPSE_MESSAGE_TYPES),
    /** The task's state as the sender of the ack sees it (e.g. `cancelled`). */
    status: opt(stateSchema),
    message: opt(textSchema),
  });

/** This project's: the generic synchronous acknowledgement. The envelope's `reply_to` names the message. */
const AckPayloadSchema = () =>
  object({
    /** True when the message was received before (acknowledged again, with no effect). */
    duplicate: opt(z.boolean()),
    /** The task's state after the message, when it concerned a task. */
    status: opt(stateSchema),
    message: opt(textSchema),
  });

/**
 * This project's: the generic refusal. `code` is one of the protocol's error codes when this hub sends it
 * (./errors.ts); any code is read, so a peer's own codes get through.
 */
const NackPayloadSchema = () =>
  object({
    code: codeSchema,
    message: textSchema,
    /** For format errors: `{ field, violations: [{ field, description }], total_violations? }`. */
    details: freeValue(),
  });

/** This project's: a task's keep-alive. */
const HeartbeatPayloadSchema = () =>
  object({
    task_id: idSchema,
    status: opt(stateSchema),
    progress: opt(percentSchema),
    /** Seconds until the next heartbeat (30 by default). */
    interval: opt(z.int().check(z.gte(1), z.lte(3_600))),
  });

/** This project's: all capabilities, or only whether these task types are supported. */
const CapabilityQueryPayloadSchema = () =>
  object({
    task_types: opt(list(codeSchema)),
  });

/** This project's: what the protocol's GetCapabilities returns (task types), and a description of each. */
const CapabilityResponsePayloadSchema = () =>
  object({
    task_types: list(codeSchema),
    capabilities: opt(
      list(
        object({
          task_type: codeSchema,
          description: opt(textSchema),
          tags: opt(list(nameSchema)),
        }),
      ),
    ),
    /** The agent's own description. */
    description: opt(textSchema),
  });

const TaskNeedHumanPayloadSchema = () =>
  object({
    task_id: idSchema,
    reason: reasonSchema,
    context: opt(
      object({
        task_summary: opt(textSchema),
        current_progress: opt(percentSchema),
        blocked_reason: opt(textSchema),
      }),
    ),
    options: opt(
      list(
        object({
          field: nameSchema,
          value: freeValue(),
          pros_cons: opt(textSchema),
          confidence: opt(percentSchema),
        }),
      ),
    ),
    escalation_level: opt(z.int().check(z.gte(0), z.lte(100))),
    deadline: opt(timestampSchema),
  });

/** `action` is approve or reject: the two outcomes the state machine knows. */
const HumanDecisionPayloadSchema = () =>
  object({
    task_id: idSchema,
    decision_id: idSchema,
    /** The message id of the p2p:task_need_human answered. */
    reply_to: opt(messageIdSchema),
    decided_by: object({
      user_id: idSchema,
      user_name: opt(optionalNameSchema),
      role: opt(optionalNameSchema),
    }),
    decision: object({
      action: z.enum(['approve', 'reject']),
      approved_fields: opt(freeObject),
      rejection_reason: opt(textSchema),
    }),
    notes: opt(textSchema),
    timestamp: opt(timestampSchema),
  });

/** How each type's payload schema is built: on first use (a function serving one type builds one). */
const PAYLOAD_BUILDERS = {
  'p2p:task_request': TaskRequestPayloadSchema,
  'p2p:task_confirm': TaskConfirmPayloadSchema,
  'p2p:task_reject': TaskRejectPayloadSchema,
  'p2p:task_need_info': TaskNeedInfoPayloadSchema,
  'p2p:task_info_provided': TaskInfoProvidedPayloadSchema,
  'p2p:task_status_update': TaskStatusUpdatePayloadSchema,
  'p2p:task_complete': TaskCompletePayloadSchema,
  'p2p:task_failed': TaskFailedPayloadSchema,
  'p2p:task_cancel': TaskCancelPayloadSchema,
  'p2p:task_ack': TaskAckPayloadSchema,
  'p2p:ack': AckPayloadSchema,
  'p2p:nack': NackPayloadSchema,
  'p2p:heartbeat': HeartbeatPayloadSchema,
  'p2p:capability_query': CapabilityQueryPayloadSchema,
  'p2p:capability_response': CapabilityResponsePayloadSchema,
  'p2p:task_need_human': TaskNeedHumanPayloadSchema,
  'p2p:human_decision': HumanDecisionPayloadSchema,
} as const satisfies Record<SynapseMessageType, () => z.ZodMiniType>;

type PayloadSchemas = { readonly [K in SynapseMessageType]: ReturnType<(typeof PAYLOAD_BUILDERS)[K]> };

const builtPayloads: Partial<Record<SynapseMessageType, z.ZodMiniType>> = {};

/**
 * The payload schema of each type, built when first read and kept: building all 17 at import would
 * cost every cold start of a function that reads one or two of them.
 */
export const PAYLOAD_SCHEMAS = {} as PayloadSchemas;
for (const type of SYNAPSE_MESSAGE_TYPES) {
  Object.defineProperty(PAYLOAD_SCHEMAS, type, {
    enumerable: true,
    get: () => (builtPayloads[type] ??= PAYLOAD_BUILDERS[type]()),
  });
}

/** The payload of a message of type `T`, as parsed (null fields read as absent). */
export type SynapsePayload<T extends SynapseMessageType = SynapseMessageType> = {
  [K in T]: z.output<(typeof PAYLOAD_SCHEMAS)[K]>;
}[T];

/** The payload of a message of type `T`, as it may be written (what the JSON Schema accepts). */
export type SynapsePayloadInput<T extends SynapseMessageType = SynapseMessageType> = {
  [K in T]: z.input<(typeof PAYLOAD_SCHEMAS)[K]>;
}[T];
