/**
 * What `synapse` prints (a2a-cli SPEC §9.1–9.3, Appendix B): `text` (the default) is `Label: value` lines a
 * person reads and a script greps — no colour, no control sequences, the ids and state of every task; blocks
 * for multi-line content. `json` is one document, the protocol's own type as ProtoJSON (an AgentCard, a
 * Task, a SendMessageResponse), or the error envelope. Payload to stdout, diagnostics to stderr.
 */
import { AgentCard, type Message, type Part, SendMessageResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { ErrorEnvelope } from './errors.ts';

export type OutputFormat = 'text' | 'json';

/** How the person typed this program, for the commands hints print: the npm script in this repository. */
export const PROGRAM = process.env.npm_lifecycle_event === 'synapse' ? 'npm run synapse --' : 'synapse';

/** The state's name without its prefix: `TASK_STATE_COMPLETED` → `COMPLETED`. */
export const stateName = (state: TaskState): string =>
  (TaskState[state] ?? String(state)).replace(/^TASK_STATE_/, '');

/** States a task stays in (A2A §4.1.3); the interrupted ones wait for the caller. */
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);
export const isTerminal = (state: TaskState) => TERMINAL.has(state);
export const isInterrupted = (state: TaskState) => INTERRUPTED.has(state);

const partText = (part: Part): string => {
  const c = part.content;
  switch (c?.$case) {
    case 'text':
      return c.value;
    case 'data':
      return JSON.stringify(c.value, null, 2);
    case 'raw':
      return `file: ${part.filename || '(unnamed)'} (${part.mediaType || 'application/octet-stream'}, ${c.value.length} bytes)`;
    case 'url':
      return `file: ${part.filename || c.value} (${part.mediaType || 'unknown type'}, at ${c.value})`;
    default:
      return '(an empty part)';
  }
};

const block = (label: string, parts: readonly Part[]): string[] => [`${label}:`, ...parts.map(partText), ''];

/** A task as text: ids and state first, then its status message and its artifacts as blocks. */
export function taskText(task: Task, resume?: string): string {
  const lines = [
    `Task: ${task.id}`,
    `Context: ${task.contextId}`,
    `State: ${stateName(task.status?.state ?? 0)}`,
  ];
  const status = task.status?.message;
  if (status?.parts.length) lines.push('', ...block('Status message', status.parts));
  for (const artifact of task.artifacts) {
    lines.push(
      ...(lines.at(-1) === '' ? [] : ['']),
      ...block(`Artifact ${artifact.name || artifact.artifactId}`, artifact.parts),
    );
  }
  if (resume && task.status && isInterrupted(task.status.state)) {
    if (lines.at(-1) !== '') lines.push('');
    lines.push(`Resume: ${resume}`);
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** A message reply as text. */
export function messageText(message: Message): string {
  const lines = [`Context: ${message.contextId}`, ...(message.taskId ? [`Task: ${message.taskId}`] : [])];
  lines.push('', ...block('Message', message.parts));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/** The card as text: who the agent is, where to call it, what it does. */
export function cardText(card: AgentCard): string {
  const lines = [
    `Name: ${card.name}`,
    `Description: ${card.description}`,
    `Version: ${card.version}`,
    ...(card.provider ? [`Provider: ${card.provider.organization}`] : []),
    `Streaming: ${card.capabilities?.streaming ? 'yes' : 'no'}`,
    `Push notifications: ${card.capabilities?.pushNotifications ? 'yes' : 'no'}`,
    ...card.supportedInterfaces.map((i) => `Interface: ${i.protocolBinding} ${i.protocolVersion} ${i.url}`),
    ...Object.keys(card.securitySchemes ?? {}).map((name) => `Security scheme: ${name}`),
    ...card.skills.map((s) => `Skill: ${s.id} — ${s.name}${s.tags.length ? ` [${s.tags.join(', ')}]` : ''}`),
  ];
  return `${lines.join('\n')}\n`;
}

export const cardJson = (card: AgentCard): unknown => AgentCard.toJSON(card);

/** `send`'s reply as the protocol's SendMessageResponse. */
export const sendResponseJson = (reply: Task | Message): unknown =>
  SendMessageResponse.toJSON({
    payload: 'messageId' in reply ? { $case: 'message', value: reply } : { $case: 'task', value: reply },
  });

/** An error as the format prints it: the envelope (stdout, json) or a line (stderr, text). */
export function printError(envelope: ErrorEnvelope, format: OutputFormat): void {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(envelope)}\n`);
    return;
  }
  const { code, message, hint } = envelope.error;
  process.stderr.write(`error: ${code}: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
}
