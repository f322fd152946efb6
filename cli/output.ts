/**
 * What `synapse` prints (a2a-cli SPEC §9.1–9.3, Appendix B): `text` (the default) is `Label: value` lines a
 * person reads and a script greps — no colour, no control sequences, the ids and state of every task; blocks
 * for multi-line content. `json` is one document, the protocol's own type as ProtoJSON (an AgentCard, a
 * Task, a SendMessageResponse), or the error envelope. Payload to stdout, diagnostics to stderr.
 */
import {
  AgentCard,
  type Message,
  type Part,
  Role,
  SendMessageResponse,
  type Task,
  TaskState,
} from '@a2a-js/sdk';
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

/** The detail level of this run: concise (the default), or verbose (a2a-cli SPEC §4.5, §5.2). */
let verboseOutput = false;
export const useVerbose = (verbose: boolean) => {
  verboseOutput = verbose;
};
export const isVerbose = () => verboseOutput;

/** A part as text; verbose: after a line naming its kind, media type, file name and metadata. */
export const partText = (part: Part): string =>
  verboseOutput ? `${partHeader(part)}\n${partContent(part)}` : partContent(part);

const partHeader = (part: Part): string => {
  const facts = [
    part.content?.$case === 'raw' ? 'file' : part.content?.$case === 'url' ? 'file url' : part.content?.$case,
    part.mediaType,
    part.filename,
    part.metadata ? `metadata ${JSON.stringify(part.metadata)}` : '',
  ];
  return `[${facts.filter(Boolean).join(', ') || 'empty'}]`;
};

const partContent = (part: Part): string => {
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

const roleName = (role: Role): string => (Role[role] ?? String(role)).replace(/^ROLE_/, '');

/**
 * A task as text: ids and state first, then its status message and its artifacts as blocks. Verbose adds the
 * status time and the task's metadata (fields), the history (a block per message), and each artifact's id,
 * description and metadata.
 */
export function taskText(task: Task, resume?: string): string {
  const lines = [
    `Task: ${task.id}`,
    `Context: ${task.contextId}`,
    `State: ${stateName(task.status?.state ?? 0)}`,
  ];
  if (verboseOutput) {
    if (task.status?.timestamp) lines.push(`Updated: ${task.status.timestamp}`);
    if (task.metadata) lines.push(`Metadata: ${JSON.stringify(task.metadata)}`);
    task.history.forEach((m, i) => {
      lines.push(
        ...(lines.at(-1) === '' ? [] : ['']),
        ...block(`History ${i + 1} (${roleName(m.role)}, ${m.messageId})`, m.parts),
      );
      if (m.metadata) lines.splice(-1, 0, `[message metadata ${JSON.stringify(m.metadata)}]`);
    });
  }
  const status = task.status?.message;
  if (status?.parts.length) {
    lines.push(...(lines.at(-1) === '' ? [] : ['']), ...block('Status message', status.parts));
    if (verboseOutput && status.metadata)
      lines.splice(-1, 0, `[message metadata ${JSON.stringify(status.metadata)}]`);
  }
  for (const artifact of task.artifacts) {
    const label = verboseOutput
      ? `Artifact ${artifact.name || artifact.artifactId} (${artifact.artifactId})`
      : `Artifact ${artifact.name || artifact.artifactId}`;
    lines.push(...(lines.at(-1) === '' ? [] : ['']), ...block(label, artifact.parts));
    if (verboseOutput) {
      const about = [
        ...(artifact.description ? [`[description ${artifact.description}]`] : []),
        ...(artifact.metadata ? [`[artifact metadata ${JSON.stringify(artifact.metadata)}]`] : []),
      ];
      lines.splice(-1, 0, ...about);
    }
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
  if (verboseOutput) {
    lines.push(`Message id: ${message.messageId}`);
    if (message.metadata) lines.push(`Metadata: ${JSON.stringify(message.metadata)}`);
  }
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
