/**
 * Example payloads of the 17 p2p:* types. The nine the protocol gives (*given* in
 * docs/synapse-protocol.md#messages) are transcribed as written (Chinese strings included); the other eight follow docs/synapse-protocol.md.
 */
import type { SynapseMessageType } from '../../../../shared/protocol/synapse/index.ts';

/** The protocol's own examples of the nine payloads it gives, verbatim. */
export const GIVEN_EXAMPLES = {
  'p2p:task_request': {
    task: {
      id: 'task-xxx',
      type: 'text_generation',
      priority: 'normal',
      deadline: '2026-01-01T00:00:00Z',
      payload: { prompt: '写一首诗', style: '古典' },
    },
    context: {
      session_id: 'sess-xxx',
      parent_task_id: 'parent-xxx',
      correlation_id: 'corr-xxx',
      metadata: {},
    },
  },
  'p2p:task_confirm': {
    task_id: 'task-xxx',
    confirmed: true,
    estimated_duration: 120,
    expected_completion: '2026-01-01T00:02:00Z',
    capabilities_used: ['text_generation'],
    constraints: { max_retries: 3, fallback_enabled: true },
  },
  'p2p:task_reject': {
    task_id: 'task-xxx',
    reason: { code: 'capability_lacking', message: '不支持该任务类型', details: null },
    alternatives: { suggested_agent_id: 'other-agent', retry_after: 300, partial_support: false },
  },
  'p2p:task_status_update': {
    task_id: 'task-xxx',
    status: 'executing',
    progress: 50,
    message: '正在生成内容',
    intermediate_result: null,
  },
  'p2p:task_complete': {
    task_id: 'task-xxx',
    result: { output_type: 'text', output: '生成的文本内容...', metadata: { tokens: 1024, model: 'gpt-4' } },
    summary: '任务已完成',
  },
  'p2p:task_failed': {
    task_id: 'task-xxx',
    error: { code: 'execution_error', message: '模型调用超时', recoverable: true, details: null },
    partial_result: null,
  },
  'p2p:task_need_info': {
    task_id: 'task-xxx',
    missing_fields: [
      { field: 'style', reason: '未指定生成风格', suggested_value: '古典', alternatives: ['现代', '浪漫'] },
    ],
    question: '请选择生成风格',
    required_by: '2026-01-01T00:01:00Z',
  },
  'p2p:task_need_human': {
    task_id: 'task-xxx',
    reason: { code: 'ethical_decision', message: '涉及伦理决策需要人工审核' },
    context: {
      task_summary: '生成一张人物肖像',
      current_progress: 30,
      blocked_reason: '需要确认肖像使用授权',
    },
    options: [{ field: 'authorized', value: true, pros_cons: '继续生成,假设已授权', confidence: 70 }],
    escalation_level: 1,
    deadline: '2026-01-01T00:05:00Z',
  },
  'p2p:human_decision': {
    task_id: 'task-xxx',
    decision_id: 'dec-xxx',
    reply_to: 'msg-xxx',
    decided_by: { user_id: 'user-123', user_name: '张三', role: 'reviewer' },
    decision: { action: 'approve', approved_fields: { authorized: true }, rejection_reason: '' },
    notes: '已确认授权',
    timestamp: '2026-01-01T00:03:00Z',
  },
} as const;

/** The eight payloads the protocol does not give, as docs/synapse-protocol.md defines them. */
export const PROJECT_EXAMPLES = {
  'p2p:task_info_provided': {
    task_id: 'task-xxx',
    reply_to: 'msg-need-info',
    provided_fields: { style: '古典' },
    message: '古典风格',
  },
  'p2p:task_cancel': {
    task_id: 'task-xxx',
    reason: { code: 'user_cancelled', message: 'the user no longer needs it' },
  },
  'p2p:task_ack': { task_id: 'task-xxx', acked_type: 'p2p:task_complete', status: 'completed' },
  'p2p:ack': { duplicate: false, status: 'confirmed' },
  'p2p:nack': {
    code: 'invalid_params',
    message: 'the p2p:task_request payload is not valid: payload.task.type is required (a string)',
    details: {
      field: 'payload.task.type',
      violations: [{ field: 'payload.task.type', description: 'is required (a string)' }],
    },
  },
  'p2p:heartbeat': { task_id: 'task-xxx', status: 'executing', progress: 40, interval: 30 },
  'p2p:capability_query': { task_types: ['text_generation'] },
  'p2p:capability_response': {
    task_types: ['text_generation', 'translation'],
    capabilities: [
      { task_type: 'text_generation', description: 'poems and short texts', tags: ['text'] },
      { task_type: 'translation' },
    ],
    description: 'A demo writing agent',
  },
} as const;

export const EXAMPLES: Readonly<Record<SynapseMessageType, Record<string, unknown>>> = {
  ...GIVEN_EXAMPLES,
  ...PROJECT_EXAMPLES,
};

export const SENDER = { agent_id: 'agent-a', endpoint: 'https://a.example/synapse/callback' } as const;
export const RECIPIENT = { agent_id: 'agent-b' } as const;

/** The task id a message of `type` carries in its envelope (undefined for the four that need none). */
export const taskIdOf = (type: SynapseMessageType): string | undefined =>
  ['p2p:ack', 'p2p:nack', 'p2p:capability_query', 'p2p:capability_response'].includes(type)
    ? undefined
    : 'task-xxx';

/** A whole message of `type` around `payload`, as a peer would send it. */
export const envelopeOf = (
  type: SynapseMessageType,
  payload: unknown = EXAMPLES[type],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => {
  const taskId = taskIdOf(type);
  return {
    protocol_version: '1.0',
    type,
    message_id: 'msg-0001',
    ...(taskId ? { task_id: taskId } : {}),
    sender: SENDER,
    recipient: RECIPIENT,
    timestamp: '2026-01-01T00:00:00Z',
    correlation_id: 'corr-xxx',
    payload,
    ...overrides,
  };
};
