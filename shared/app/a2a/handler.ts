/**
 * The transport-neutral A2A request handler: one method per operation, taking
 * the version-neutral command and the caller and returning domain results
 * (task views with how to show them, a reply message, a list page). The
 * JSON-RPC and HTTP+JSON bindings are thin layers over it: they own their
 * envelopes, content types, size limits and status codes, and a codec turns
 * these results into the requested version's shapes.
 */
import { ValidationError } from '../../domain/errors.ts';
import { isInterrupted, isTerminal, type SynapseState, synapseStatesFor } from '../../domain/states.ts';
import type { Message, TaskView } from '../../domain/task.ts';
import type {
  CancelTaskCommand,
  GetTaskCommand,
  ListTasksCommand,
  ListTasksResult,
  SendMessageCommand,
  TaskEncodeOptions,
} from '../../protocol/a2a/index.ts';
import type { Caller, TaskService } from '../task-service.ts';

/** A task to answer with, and how much of it to show. */
export interface TaskResult {
  view: TaskView;
  show: TaskEncodeOptions;
}

/** What SendMessage got: a task, or the agent's reply and no task. */
export type SendResult = ({ kind: 'task' } & TaskResult) | { kind: 'message'; message: Message };

export interface SendContext {
  /** How long a blocking send may wait for its task to settle (ms). */
  blockingBudgetMs: number;
}

/**
 * Without historyLength a task carries its most recent DEFAULT_HISTORY_LENGTH messages (the spec lets the
 * server choose): a long task's full history could outgrow a Lambda response.
 */
export const DEFAULT_HISTORY_LENGTH = 100;
const historyOption = (historyLength: number | undefined) => ({
  historyLength: historyLength ?? DEFAULT_HISTORY_LENGTH,
});
const showWhole = (historyLength: number | undefined): TaskEncodeOptions => ({
  includeArtifacts: true,
  ...(historyLength !== undefined ? { historyLength } : {}),
});

export class A2AHandler {
  constructor(private readonly tasks: TaskService) {}

  async sendMessage(caller: Caller, cmd: SendMessageCommand, context: SendContext): Promise<SendResult> {
    if (cmd.message.role !== 'user') {
      // the agent's messages come from the agent; a client sending ROLE_AGENT would speak for it
      throw new ValidationError('message.role must be ROLE_USER: clients send user messages', 'message.role');
    }
    const started = Date.now();
    // a blocking send runs the agent right here, within the request's time budget
    const options = cmd.returnImmediately ? {} : { runInlineUntil: started + context.blockingBudgetMs };
    const submitted = cmd.taskId
      ? await this.tasks.continueTask(caller, cmd.taskId, cmd.message, cmd.contextId, options)
      : await this.tasks.send(caller, cmd.message, cmd.contextId, options);
    if ('reply' in submitted) return { kind: 'message', message: submitted.reply };
    let record = submitted.record;
    const { state } = record.head;
    if (!cmd.returnImmediately && !isTerminal(state) && !isInterrupted(state)) {
      // run elsewhere (a retried message, or handed back to the executor): wait for it to settle
      const left = Math.max(0, started + context.blockingBudgetMs - Date.now());
      record = await this.tasks.waitUntilSettled(caller, record.head.taskId, left);
    }
    const view = await this.tasks.view(record, {
      includeArtifacts: true,
      ...historyOption(cmd.historyLength),
    });
    return { kind: 'task', view, show: showWhole(cmd.historyLength) };
  }

  async getTask(caller: Caller, cmd: GetTaskCommand): Promise<TaskResult> {
    const view = await this.tasks.read(caller, cmd.id, {
      includeArtifacts: true,
      ...historyOption(cmd.historyLength),
    });
    return { view, show: showWhole(cmd.historyLength) };
  }

  async cancelTask(caller: Caller, cmd: CancelTaskCommand): Promise<TaskResult> {
    return { view: await this.tasks.cancel(caller, cmd.id), show: { includeArtifacts: true } };
  }

  async listTasks(
    caller: Caller,
    cmd: ListTasksCommand,
  ): Promise<{ page: ListTasksResult; show: TaskEncodeOptions }> {
    // history in a listing only when asked for: it costs a query per task
    const historyLength = cmd.historyLength ?? 0;
    const show = { includeArtifacts: cmd.includeArtifacts, historyLength };
    const states: SynapseState[] | undefined = cmd.status ? synapseStatesFor(cmd.status) : undefined;
    if (states && states.length === 0) {
      return { page: { tasks: [], nextPageToken: '', pageSize: cmd.pageSize, totalSize: 0 }, show };
    }
    const page = await this.tasks.list(caller, {
      pageSize: cmd.pageSize,
      ...(cmd.contextId ? { contextId: cmd.contextId } : {}),
      ...(states ? { states } : {}),
      ...(cmd.statusTimestampAfter ? { statusAfter: cmd.statusTimestampAfter } : {}),
      ...(cmd.pageToken ? { pageToken: cmd.pageToken } : {}),
    });
    const needDetails = cmd.includeArtifacts || historyLength > 0;
    const tasks: TaskView[] = needDetails
      ? await Promise.all(
          page.tasks.map((t) =>
            this.tasks.read(caller, t.taskId, { includeArtifacts: cmd.includeArtifacts, historyLength }),
          ),
        )
      : page.tasks.map((head) => ({ head, history: [], artifacts: [] }));
    return {
      page: { tasks, nextPageToken: page.nextPageToken, pageSize: cmd.pageSize, totalSize: page.totalSize },
      show,
    };
  }
}
