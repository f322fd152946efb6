/**
 * `synapse p2p delegate | show | answer | cancel`: the hub's Synapse requester API
 * (docs/synapse-protocol.md#the-requester-role) — a task delegated to a peer agent (named, or found by
 * skill), read with its messages, its question answered or its human decision given, canceled. json
 * prints the API's own document, `{task, synapse: {state, peer}}` (`task` in A2A v1.0's shape).
 */
import { Role, Task } from '@a2a-js/sdk';
import { type CommandGroup, type Common, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { HubClient, type HubOptions, hubOption } from '../hub/client.ts';
import { type OutputFormat, PROGRAM, taskText } from '../output.ts';

const TASKS = '/synapse/tasks';

/** A usage error of a check (yargs hands a thrown error to cli/main.ts's fail handler as is). */
const usage = (message: string) => new CliError('A2ACLI_ERR_USAGE', message, `${PROGRAM} p2p --help`);

interface Shown {
  task: unknown;
  synapse?: { state?: string; peer?: string };
  messages?: unknown;
}

/** A JSON object given on the command line. */
const jsonObject = (flag: string, text: string): Record<string, unknown> => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError('A2ACLI_ERR_USAGE', `${flag} is not JSON: ${text}`, `${flag} '{"key": "value"}'`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError('A2ACLI_ERR_USAGE', `${flag} must be a JSON object`, `${flag} '{"key": "value"}'`);
  return value as Record<string, unknown>;
};

/** `--field name=value` pairs (a value that parses as JSON is taken as such: `seconds=3` is a number). */
const fieldsOf = (pairs: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1)
        throw new CliError('A2ACLI_ERR_USAGE', `--field ${pair}: give name=value`, '--field seconds=3');
      const raw = pair.slice(at + 1);
      let value: unknown = raw;
      try {
        value = JSON.parse(raw);
      } catch {
        // a plain string
      }
      return [pair.slice(0, at), value];
    }),
  );

/** The next command for a task that waits for its owner. */
const resumeOf = (hub: string, id: string, state: string | undefined): string | undefined => {
  if (state === 'info_needed') return `${PROGRAM} p2p answer ${id} --hub ${hub} --field <name>=<value>`;
  if (state === 'need_human')
    return `${PROGRAM} p2p answer ${id} --hub ${hub} --approve (or --reject) [--notes '…']`;
  return undefined;
};

const shownOut = (format: OutputFormat, hub: string, shown: Shown) => {
  const task = Task.fromJSON(shown.task);
  const text = taskText(task, resumeOf(hub, task.id, shown.synapse?.state)).replace(
    /^(State: .*)$/m,
    `$1\nSynapse state: ${shown.synapse?.state ?? '?'}\nPeer: ${shown.synapse?.peer ?? '?'}`,
  );
  const history = task.history.map(
    (m) =>
      `  ${m.role === Role.ROLE_AGENT ? 'agent' : 'user'}: ${m.parts
        .map((p) =>
          p.content?.$case === 'text'
            ? p.content.value
            : p.content?.$case === 'data'
              ? JSON.stringify(p.content.value)
              : '…',
        )
        .join(' ')}`,
  );
  print(format, shown, history.length ? `${text}\nMessages:\n${history.join('\n')}\n` : text);
};

/** The hub's answer to a request on a delegated task, printed as the task it shows. */
const showAnswer = async (
  args: HubOptions & Common,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<void> => {
  const hub = new HubClient(args);
  shownOut(args.output, hub.base, (await hub.call(method, path, body)) as Shown);
};

export const p2pCommands: CommandGroup = (y) =>
  y.command('p2p', 'the hub’s Synapse requester API: delegate, show, answer, cancel', (p) =>
    hubOption(p)
      .command(
        'delegate',
        'delegate a task to a peer agent (--peer and --type), or to the one that has a skill (--skill)',
        (c) =>
          c
            .option('peer', { type: 'string', describe: 'the peer agent’s id (SYNAPSE_PEERS)' })
            .option('skill', {
              type: 'string',
              describe: 'a skill: its peer is found by the hub (configured, or in the registry)',
            })
            .option('type', {
              type: 'string',
              describe: 'the task type (with --skill: the skill by default)',
            })
            .option('text', { type: 'string', describe: 'the request as text' })
            .option('payload', { type: 'string', describe: 'the task’s payload, a JSON object' })
            .option('deadline', { type: 'number', describe: 'seconds the peer has (the hub’s default: 300)' })
            .option('context-id', { type: 'string' })
            .option('priority', { type: 'string' })
            .option('message-id', { type: 'string', describe: 'makes a retry deliver once' })
            .conflicts('peer', 'skill')
            .check((a) => {
              if (!a.peer && !a.skill) throw usage('name --peer (with --type) or --skill');
              if (a.peer && !a.type) throw usage('--peer needs --type');
              return true;
            }),
        run<
          HubOptions & {
            peer?: string;
            skill?: string;
            type?: string;
            text?: string;
            payload?: string;
            deadline?: number;
            contextId?: string;
            priority?: string;
            messageId?: string;
          }
        >(async (args) => {
          const body = {
            ...(args.peer ? { peer: args.peer } : {}),
            ...(args.skill ? { skill: args.skill } : {}),
            ...(args.type ? { type: args.type } : {}),
            ...(args.text ? { text: args.text } : {}),
            ...(args.payload ? { payload: jsonObject('--payload', args.payload) } : {}),
            ...(args.deadline ? { deadlineSeconds: args.deadline } : {}),
            ...(args.contextId ? { contextId: args.contextId } : {}),
            ...(args.priority ? { priority: args.priority } : {}),
            ...(args.messageId ? { messageId: args.messageId } : {}),
          };
          await showAnswer(args, 'POST', TASKS, body);
        }),
      )
      .command(
        'show <id>',
        'show a delegated task: its state, the peer, its messages and artifacts',
        (c) => c.positional('id', { type: 'string', demandOption: true }),
        run<HubOptions & { id: string }>(async (args) => {
          await showAnswer(args, 'GET', `${TASKS}/${encodeURIComponent(args.id)}`);
        }),
      )
      .command(
        'answer <id>',
        'answer the peer’s question (--field, --fields, --text), or decide (--approve or --reject)',
        (c) =>
          c
            .positional('id', { type: 'string', demandOption: true })
            .option('field', {
              type: 'array',
              string: true,
              describe: 'an asked field, name=value (again for more)',
            })
            .option('fields', { type: 'string', describe: 'the asked fields, a JSON object' })
            .option('text', { type: 'string', describe: 'an answer in words' })
            .option('approve', { type: 'boolean', describe: 'the human decision: approved' })
            .option('reject', { type: 'boolean', describe: 'the human decision: rejected' })
            .option('notes', { type: 'string', describe: 'the decision’s notes' })
            .option('decided-by', { type: 'string', describe: 'who decided (a user id; default: you)' })
            .conflicts('approve', ['reject', 'field', 'fields', 'text'])
            .conflicts('reject', ['field', 'fields', 'text'])
            .check((a) => {
              const decides = Boolean(a.approve || a.reject);
              if (!decides && !a.field?.length && !a.fields && a.text === undefined)
                throw usage(
                  'give the answer (--field, --fields, --text) or the decision (--approve, --reject)',
                );
              if (!decides && (a.notes !== undefined || a['decided-by'] !== undefined))
                throw usage('--notes and --decided-by go with --approve or --reject');
              return true;
            }),
        run<
          HubOptions & {
            id: string;
            field?: string[];
            fields?: string;
            text?: string;
            approve?: boolean;
            reject?: boolean;
            notes?: string;
            decidedBy?: string;
          }
        >(async (args) => {
          let body: Record<string, unknown>;
          if (args.approve || args.reject) {
            body = {
              decision: args.approve ? 'approve' : 'reject',
              ...(args.notes ? { notes: args.notes } : {}),
              ...(args.decidedBy ? { decidedBy: { userId: args.decidedBy } } : {}),
            };
          } else {
            const fields = {
              ...(args.fields ? jsonObject('--fields', args.fields) : {}),
              ...fieldsOf(args.field ?? []),
            };
            body = {
              ...(Object.keys(fields).length ? { fields } : {}),
              ...(args.text !== undefined ? { text: args.text } : {}),
            };
          }
          await showAnswer(args, 'POST', `${TASKS}/${encodeURIComponent(args.id)}/answer`, body);
        }),
      )
      .command(
        'cancel <id>',
        'cancel a delegated task (the peer is told)',
        (c) => c.positional('id', { type: 'string', demandOption: true }),
        run<HubOptions & { id: string }>(async (args) => {
          await showAnswer(args, 'POST', `${TASKS}/${encodeURIComponent(args.id)}/cancel`);
        }),
      )
      .demandCommand(1, 'name a p2p command: delegate, show, answer or cancel'),
  );
