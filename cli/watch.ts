/**
 * A followed task as it is printed (a2a-cli SPEC §9.2, §9.3): in `json`, one `StreamResponse` per line, the
 * last one its end; in `text`, what a person watching wants to see — the state when it changes, status
 * texts, artifact chunks — and the end restated.
 */
import {
  type Message,
  StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskState,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { type Common, resumeCommand } from './command.ts';
import { endsStream, follow, type WaitOptions } from './follow.ts';
import { isVerbose, messageText, partText, stateName, taskText } from './output.ts';

/** Follows a stream, printing each event (json: a line each; text: what changed), then the end. */
export async function followOut(
  args: Common & WaitOptions,
  client: Client,
  events: AsyncIterable<StreamResponse>,
  deadline: number,
): Promise<Task | Message> {
  let lastLine: StreamResponse | undefined;
  const watch = new StateWatch();
  const end = await follow(
    client,
    events,
    {
      event: (event) => {
        if (args.output === 'json') {
          lastLine = event;
          process.stdout.write(`${JSON.stringify(StreamResponse.toJSON(event))}\n`);
        } else process.stdout.write(watch.text(event));
      },
    },
    args,
    deadline,
  );
  if (args.output === 'json') {
    // the last line is the end: a stream that broke, or ended on a status, gets the task polled to its end
    const endLine: StreamResponse = {
      payload: 'messageId' in end ? { $case: 'message', value: end } : { $case: 'task', value: end },
    };
    if (lastLine === undefined || !endsStream(lastLine))
      process.stdout.write(`${JSON.stringify(StreamResponse.toJSON(endLine))}\n`);
  } else
    process.stdout.write(
      `\n${'messageId' in end ? messageText(end) : taskText(end, resumeCommand(args.agentCard, end))}`,
    );
  return end;
}

/** Events as the text a person watches: the state when it changes, status texts, artifact chunks. */
export class StateWatch {
  #state: string | undefined;

  #stateLine(state: TaskState | undefined): string {
    const name = stateName(state ?? 0);
    if (name === this.#state) return '';
    this.#state = name;
    return `State: ${name}\n`;
  }

  text(event: StreamResponse): string {
    const p = event.payload;
    if (p?.$case === 'task')
      return `Task: ${p.value.id}\nContext: ${p.value.contextId}\n${this.#stateLine(p.value.status?.state)}`;
    if (p?.$case === 'statusUpdate') {
      const text = (p.value.status?.message?.parts ?? [])
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      return `${this.#stateLine(p.value.status?.state)}${text ? `Status: ${text}\n` : ''}`;
    }
    return p?.$case === 'artifactUpdate' ? artifactText(p.value) : '';
  }
}

const artifactText = (update: TaskArtifactUpdateEvent): string => {
  const a = update.artifact;
  // text chunks join as they were cut; a file or data part is rendered whole (named, never dumped as bytes)
  const text = (a?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' && !isVerbose() ? part.content.value : partText(part)))
    .join('');
  return `Artifact ${a?.name || a?.artifactId || ''}: ${text}\n`;
};
