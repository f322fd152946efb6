/**
 * What a person watching sees (docs/cli.md#live-progress; a2a-cli SPEC §4.1, §6.2): the task's state as it
 * changes, the agent's progress as a bar (cli-progress), status texts, artifacts as they stream (chunks
 * appended), then the task's summary; a question asked at a prompt (@clack/prompts) and its answer sent on
 * the task, until the task ends. The progress and the kind of question come from the status update's
 * metadata (`synapse.progress`, `synapse.question`: docs/streaming.md#progress-and-questions); an agent
 * that sends neither gets no bar and a free-text prompt.
 *
 * `send -i` and `chat` import this module only when a person is watching (cli/tty.ts), so no other command
 * parses these libraries; off a terminal `chat` reads its turns line by line (cli/chat-lines.ts).
 */
import {
  type AgentCard,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { isCancel, select, text } from '@clack/prompts';
import cliProgress from 'cli-progress';
import { type Common, resumeCommand, warnOutcome } from './command.ts';
import { deadlineOf, endsStream, follow, pollUntilSettled, settled, type WaitOptions } from './follow.ts';
import { isInterrupted, isTerminal, messageText, stateName, taskText } from './output.ts';
import { CHAT_QUIT, type ChatOptions, dataPart, requestOf, textPart } from './turns.ts';

/** The metadata keys of docs/streaming.md#progress-and-questions. */
const PROGRESS_KEY = 'synapse.progress';
const QUESTION_KEY = 'synapse.question';

/** What an interrupted task asks for, as its last status update said (an agent that does not say: info). */
export type Question =
  | {
      kind: 'info';
      text: string;
      missingFields: { field: string; reason?: string; suggestedValue?: unknown }[];
    }
  | { kind: 'human_decision'; text: string; options: { value: string }[] };

const partsText = (parts: readonly Part[] | undefined): string =>
  (parts ?? [])
    .map((part) =>
      part.content?.$case === 'text' ? part.content.value : JSON.stringify(part.content?.value ?? null),
    )
    .join('');

const objectsOf = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === 'object' && v !== null) : [];

/** The question of the status update that paused the task (or of the task's status, when none said more). */
export function questionOf(last: TaskStatusUpdateEvent | undefined, task: Task): Question {
  // an earlier update (progress, say) asks nothing
  const update = last?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? last : undefined;
  const status = update?.status ?? task.status;
  const questionText = partsText(status?.message?.parts) || 'The agent asks for input';
  const asked = update?.metadata?.[QUESTION_KEY] as
    | { kind?: unknown; options?: unknown; missingFields?: unknown }
    | undefined;
  if (asked?.kind === 'human_decision') {
    const options = objectsOf(asked.options)
      .map((o) => ({ value: String(o.value ?? '') }))
      .filter((o) => o.value);
    return {
      kind: 'human_decision',
      text: questionText,
      options: options.length ? options : [{ value: 'approve' }, { value: 'reject' }],
    };
  }
  const missingFields = objectsOf(asked?.missingFields).map((f) => ({
    field: String(f.field ?? ''),
    ...(typeof f.reason === 'string' ? { reason: f.reason } : {}),
    ...(f.suggestedValue !== undefined ? { suggestedValue: f.suggestedValue } : {}),
  }));
  return { kind: 'info', text: questionText, missingFields };
}

/** A task's events as a person watches them: lines above a progress bar that appears with the first percentage. */
class LiveView {
  #bars: cliProgress.MultiBar | undefined;
  #bar: cliProgress.SingleBar | undefined;
  #state: string | undefined;
  #artifact: string | undefined;
  /** The last status update, for the question it may ask. */
  lastStatus: TaskStatusUpdateEvent | undefined;

  /** `header`: name the task and its context first (the first send of a turn; an answer's stream needs not). */
  constructor(private readonly header: boolean) {}

  #line(line: string) {
    if (this.#bars) this.#bars.log(line);
    else process.stdout.write(line);
  }

  #stateLine(state: number | undefined) {
    const name = stateName(state ?? 0);
    if (name === this.#state) return;
    this.#state = name;
    this.#artifact = undefined;
    this.#line(`State: ${name}\n`);
  }

  #progress(percent: number, status: string) {
    if (!this.#bars) {
      this.#bars = new cliProgress.MultiBar({
        format: 'Progress [{bar}] {percentage}% {status}',
        barCompleteChar: '#',
        barIncompleteChar: '-',
        // a cursor hidden by the bar would stay hidden after a Ctrl-C mid-task
        hideCursor: false,
        clearOnComplete: false,
        // lines logged above the bar are written over its line: a bar unchanged since its last frame must
        // be drawn again, or it stays blank (seen when a timed frame came between the last percentage and
        // the state line that ends the task)
        forceRedraw: true,
        stream: process.stdout,
      });
      this.#bar = this.#bars.create(100, 0, { status: '' });
    }
    this.#bar?.update(Math.max(0, Math.min(100, percent)), { status: status ? `| ${status}` : '' });
  }

  /** The follow ends on a status update (or a message), not on a settled snapshot: the update says more. */
  ends(event: StreamResponse): boolean {
    const p = event.payload;
    return p?.$case === 'message' || (p?.$case === 'statusUpdate' && endsStream(event));
  }

  event(event: StreamResponse) {
    const p = event.payload;
    if (p?.$case === 'task') {
      if (this.header && this.#state === undefined)
        this.#line(`Task: ${p.value.id}\nContext: ${p.value.contextId}\n`);
      this.#stateLine(p.value.status?.state);
    } else if (p?.$case === 'statusUpdate') {
      this.lastStatus = p.value;
      const state = p.value.status?.state ?? 0;
      this.#stateLine(state);
      const status = partsText(p.value.status?.message?.parts);
      const percent = p.value.metadata?.[PROGRESS_KEY];
      if (typeof percent === 'number') this.#progress(percent, status);
      // a question is asked at the prompt, an outcome's text is in the summary
      else if (status && !isTerminal(state) && !isInterrupted(state)) this.#line(`Status: ${status}\n`);
    } else if (p?.$case === 'artifactUpdate') {
      const artifact = p.value.artifact;
      const id = artifact?.artifactId ?? '';
      // an appended chunk continues its artifact's block
      if (!(p.value.append && this.#artifact === id)) this.#line(`Artifact ${artifact?.name || id}:\n`);
      this.#artifact = id;
      const chunk = partsText(artifact?.parts);
      this.#line(chunk.endsWith('\n') ? chunk : `${chunk}\n`);
    }
  }

  /** Ends the bar (its last state stays on screen) so that a prompt or the summary can follow. */
  stop() {
    if (!this.#bars) return;
    // the lines logged since the last redraw are written by a redraw
    this.#bars.update();
    this.#bars.stop();
    this.#bars = undefined;
    this.#bar = undefined;
  }
}

/** The answer to a question, asked at a prompt; undefined when the person cancels it (Ctrl-C). */
async function answerAt(question: Question): Promise<Part[] | undefined> {
  if (question.kind === 'human_decision') {
    const decision = await select({
      message: question.text,
      options: question.options.map((o) => ({ value: o.value, label: o.value })),
    });
    if (isCancel(decision)) return undefined;
    const notes = await text({ message: 'Notes (optional)', placeholder: 'Enter to leave none' });
    if (isCancel(notes)) return undefined;
    const note = notes.trim();
    // the hub reads a decision from a data part {decision, notes} (docs/agent-api.md)
    if (decision === 'approve' || decision === 'reject')
      return [dataPart({ decision, ...(note ? { notes: note } : {}) })];
    return [textPart(note ? `${decision} ${note}` : decision)];
  }
  const fields = question.missingFields
    .map(
      (f) =>
        `${f.field}${f.suggestedValue !== undefined ? ` (e.g. ${JSON.stringify(f.suggestedValue)})` : ''}`,
    )
    .join(', ');
  const answer = await text({
    message: question.text,
    ...(fields ? { placeholder: fields } : {}),
    validate: (value) =>
      value.trim() ? undefined : 'an answer is needed (Ctrl-C to leave the task waiting)',
  });
  return isCancel(answer) ? undefined : [textPart(answer)];
}

/**
 * One turn followed to its end: sent, watched live, every question asked at a prompt and answered on the
 * task, until the task ends (or a prompt is left: the task stays interrupted). Its summary is printed.
 */
async function converse(
  args: Common & WaitOptions,
  client: Client,
  card: AgentCard,
  first: SendMessageRequest,
): Promise<Task | Message> {
  let request = first;
  for (let answers = 0; ; answers++) {
    // --timeout bounds each wait for the agent, not the time a person takes at a prompt
    const deadline = deadlineOf(args);
    const view = new LiveView(answers === 0);
    let end: Task | Message;
    try {
      if (card.capabilities?.streaming) {
        end = await follow(client, client.sendMessageStream(request), view, args, deadline);
      } else {
        const reply = await client.sendMessage(request);
        if (!('messageId' in reply)) view.event({ payload: { $case: 'task', value: reply } });
        end =
          'messageId' in reply || settled(reply)
            ? reply
            : await pollUntilSettled(client, reply, args, deadline);
      }
    } finally {
      view.stop();
    }
    if ('messageId' in end) {
      process.stdout.write(`\n${messageText(end)}`);
      return end;
    }
    const state = end.status?.state ?? 0;
    if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const answer = await answerAt(questionOf(view.lastStatus, end));
      if (answer) {
        request = requestOf(answer, { contextId: end.contextId, taskId: end.id });
        continue;
      }
    }
    process.stdout.write(`\n${taskText(end, resumeCommand(args.agentCard, end))}`);
    warnOutcome(end);
    return end;
  }
}

/** `send -i`: the message sent, and its task followed live with questions asked at prompts. */
export async function sendInteractive(
  args: Common & WaitOptions,
  client: Client,
  card: AgentCard,
  request: SendMessageRequest,
): Promise<void> {
  await converse(args, client, card, {
    ...request,
    ...(request.configuration
      ? { configuration: { ...request.configuration, returnImmediately: true } }
      : {}),
  });
  process.stdin.unref?.();
}

/**
 * `chat` (a2a-cli SPEC §6.2, A2ACLI_CHAT_001): turns read at a prompt, each a new task in the context the
 * previous one gave (its questions answered on the task within the turn; a question left unanswered is
 * answered by the next turn, on that task), until `/quit` or Ctrl-C.
 */
export async function chatInteractive(args: ChatOptions, client: Client, card: AgentCard): Promise<void> {
  let contextId = args.contextId;
  /** A task left waiting (its prompt left with Ctrl-C): the next turn answers it. */
  let taskId: string | undefined;
  process.stdout.write(`Chat with ${card.name} — /quit or Ctrl-C to leave\n`);
  for (;;) {
    const said = await text({ message: 'You', placeholder: 'a message to the agent' });
    if (isCancel(said) || CHAT_QUIT.has(said.trim())) break;
    if (!said.trim()) continue;
    const end = await converse(args, client, card, requestOf([textPart(said)], { contextId, taskId }));
    contextId = end.contextId || contextId;
    taskId = !('messageId' in end) && isInterrupted(end.status?.state ?? 0) ? end.id : undefined;
  }
  if (contextId) process.stdout.write(`Context: ${contextId}\n`);
  process.stdin.unref?.();
}
