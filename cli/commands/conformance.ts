/**
 * `synapse conformance` (a2a-cli SPEC §8.8, A2ACLI_CONFORM_001): a smoke test of a live agent, made of the
 * checks a client can make without the TCK's own agent (SPEC open question 5): the card is a card, every
 * binding it declares that this CLI speaks answers, speaks A2A's errors by their codes, and carries out a
 * message; what the card's capabilities promise (streaming, push configs) holds. One line per check; exit 0
 * when every check passes, 1 when one fails. It sends one message per binding (`--text`, "hello" by default),
 * so the agent does one small task each.
 */
import { randomUUID } from 'node:crypto';
import type { AgentCard, SendMessageRequest, Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2AError, isJsonRpcError, isRestError } from '@a2a-js/sdk/errors';
import {
  agentCardOf,
  baseFetch,
  connect,
  fetchCard,
  requireAgent,
  TRANSPORTS,
  type Transport,
} from '../agent.ts';
import { type CommandGroup, type Common, exitWith, print, run } from '../command.ts';
import { requestOf, textPart } from '../turns.ts';

type Outcome = 'pass' | 'fail' | 'skip';

export interface Check {
  /** What was checked: `card.fetch`, `JSONRPC.send` … */
  id: string;
  outcome: Outcome;
  detail: string;
}

/** The wire code a binding gives an A2A error: JSON-RPC's (-32001 …) or the HTTP status. */
const wireCode = (e: A2AError) => (isJsonRpcError(e) ? e.envelopeCode : isRestError(e) ? e.statusCode : null);

/** `TaskNotFoundError` with the code the binding must give it (A2A §5.4: -32001 or 404). */
const isTaskNotFound = (e: unknown, binding: Transport) =>
  e instanceof A2AError &&
  e.name === 'TaskNotFoundError' &&
  wireCode(e) === (binding === 'JSONRPC' ? -32001 : 404);

const message = (text: string): SendMessageRequest =>
  requestOf([textPart(text)], {}, { returnImmediately: false });

const describeError = (e: unknown) =>
  e instanceof A2AError
    ? `${e.name} (${wireCode(e)}): ${e.message}`
    : e instanceof Error
      ? e.message
      : String(e);

/** Runs `fn`, recording its outcome under `id`; a throw is a failure named by the error. */
async function checked(
  checks: Check[],
  id: string,
  fn: () => Promise<string | { skip: string }>,
): Promise<boolean> {
  try {
    const detail = await fn();
    checks.push(
      typeof detail === 'string'
        ? { id, outcome: 'pass', detail }
        : { id, outcome: 'skip', detail: detail.skip },
    );
    return true;
  } catch (e) {
    checks.push({ id, outcome: 'fail', detail: describeError(e) });
    return false;
  }
}

/** The checks of one binding, on a client that speaks only it. */
async function checkBinding(
  checks: Check[],
  binding: Transport,
  client: Client,
  card: AgentCard,
  text: string,
) {
  const at = (name: string) => `${binding}.${name}`;
  await checked(checks, at('errors'), async () => {
    try {
      await client.getTask({ tenant: '', id: `conformance-${randomUUID()}`, historyLength: undefined });
    } catch (e) {
      if (isTaskNotFound(e, binding))
        return `an unknown task is TaskNotFoundError (${wireCode(e as A2AError)})`;
      throw e;
    }
    throw new Error('an unknown task was answered as found');
  });
  let task: Task | undefined;
  const sent = await checked(checks, at('send'), async () => {
    const reply = await client.sendMessage(message(text));
    if ('messageId' in reply) return `answered with a message (${reply.parts.length} parts)`;
    task = reply;
    if (!reply.id || !reply.contextId) throw new Error('the task has no id or no context id');
    return `task ${reply.id}`;
  });
  if (sent && task) {
    const id = task.id;
    await checked(checks, at('get'), async () => {
      const again = await client.getTask({ tenant: '', id, historyLength: undefined });
      if (again.id !== id) throw new Error(`asked for ${id}, got ${again.id}`);
      return `task ${id} read back`;
    });
    await checked(checks, at('list'), async () => {
      const page = await client.listTasks({
        tenant: '',
        contextId: task?.contextId ?? '',
        status: 0,
        pageSize: undefined,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      } as Parameters<Client['listTasks']>[0]);
      if (!page.tasks.some((t) => t.id === id)) throw new Error(`task ${id} is not listed in its context`);
      return `task ${id} listed in its context`;
    });
    await checked(checks, at('push'), async () => {
      if (!card.capabilities?.pushNotifications) return { skip: 'the card says the agent does not push' };
      const page = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: id,
        pageSize: 0,
        pageToken: '',
      });
      return `push configs listed (${page.configs.length})`;
    });
  }
  await checked(checks, at('stream'), async () => {
    if (!card.capabilities?.streaming) return { skip: 'the card says the agent does not stream' };
    let events = 0;
    for await (const _ of client.sendMessageStream(message(text))) events++;
    if (events === 0) throw new Error('the stream ended without an event');
    return `${events} events, then the stream ended`;
  });
}

export async function conformance(args: Common & { text: string }): Promise<Check[]> {
  const checks: Check[] = [];
  const ref = requireAgent(args.agentCard);
  let card: AgentCard | undefined;
  await checked(checks, 'card', async () => {
    card = agentCardOf(await fetchCard(ref, baseFetch(args)));
    return `${card.name} ${card.version}: ${card.supportedInterfaces.length} interfaces, ${card.skills.length} skills`;
  });
  if (!card) return checks;
  const declared = card.supportedInterfaces.map((i) => i.protocolBinding);
  const spoken = TRANSPORTS.filter((t) => declared.includes(t));
  await checked(checks, 'card.bindings', async () => {
    if (spoken.length === 0) throw new Error(`no binding this CLI speaks (${declared.join(', ')})`);
    const unknown = declared.filter((b) => !(TRANSPORTS as readonly string[]).includes(b));
    return `${spoken.join(', ')}${unknown.length ? `; not checked: ${unknown.join(', ')}` : ''}`;
  });
  await checked(checks, 'card.skills', async () => {
    if (!card?.skills.length) throw new Error('the card lists no skill');
    const nameless = card.skills.filter((s) => !s.id || !s.name);
    if (nameless.length) throw new Error(`${nameless.length} skills without an id or a name`);
    return `${card.skills.length} skills, each with an id and a name`;
  });
  for (const binding of spoken) {
    const { client } = await connect({ ...args, transport: [binding] });
    await checkBinding(checks, binding, client, card, args.text);
  }
  return checks;
}

const checkLine = (c: Check) => `${c.outcome.toUpperCase()} ${c.id}: ${c.detail}`;

export const conformanceCommands: CommandGroup = (y) =>
  y.command(
    'conformance',
    'smoke-test an agent: its card, each binding it declares, its capabilities (sends one message per binding)',
    (c) =>
      c.option('text', { type: 'string', default: 'hello', describe: 'the message each binding is sent' }),
    run<{ text: string }>(async (args) => {
      const checks = await conformance(args);
      const failed = checks.filter((c) => c.outcome === 'fail');
      const summary = {
        passed: checks.filter((c) => c.outcome === 'pass').length,
        failed: failed.length,
        skipped: checks.filter((c) => c.outcome === 'skip').length,
      };
      print(
        args.output,
        { agent: args.agentCard, checks, summary },
        `${checks.map(checkLine).join('\n')}\nResult: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`,
      );
      // the report is the payload either way; a failed check fails the run (SPEC §9.6)
      if (failed.length) {
        process.stderr.write(`note: ${failed.length} checks failed: ${failed.map((c) => c.id).join(', ')}\n`);
        exitWith(1);
      }
    }),
  );
