/**
 * `chat` where no person watches (a pipe, a file, `-o json`: a2a-cli SPEC §4.1, A2ACLI_OUT_005): each line
 * of standard input is a turn, its reply printed as `send` prints it once the task ends or pauses (text, or
 * one SendMessageResponse per line). The context is carried from turn to turn, and the task while it is
 * interrupted: the next line answers its question (A2ACLI_CHAT_001).
 */
import { createInterface } from 'node:readline';
import type { Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { resumeCommand, warnOutcome } from './command.ts';
import { deadlineOf, pollUntilSettled, settled } from './follow.ts';
import { isInterrupted, messageText, sendResponseJson, taskText } from './output.ts';
import { CHAT_QUIT, type ChatOptions, requestOf, textPart } from './turns.ts';

export async function chatLines(args: ChatOptions, client: Client): Promise<void> {
  let contextId = args.contextId;
  let taskId: string | undefined;
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line.trim()) continue;
    if (CHAT_QUIT.has(line.trim())) break;
    const request = requestOf([textPart(line)], { contextId, taskId });
    let reply = await client.sendMessage(request);
    if (!('messageId' in reply) && !settled(reply))
      reply = await pollUntilSettled(client, reply, args, deadlineOf(args));
    contextId = reply.contextId || contextId;
    taskId =
      !('messageId' in reply) && isInterrupted(reply.status?.state ?? 0) ? (reply as Task).id : undefined;
    if (args.output === 'json') process.stdout.write(`${JSON.stringify(sendResponseJson(reply))}\n`);
    else
      process.stdout.write(
        `${'messageId' in reply ? messageText(reply) : taskText(reply, resumeCommand(args.agentCard, reply))}\n`,
      );
    if (!('messageId' in reply)) warnOutcome(reply);
  }
  lines.close();
}
