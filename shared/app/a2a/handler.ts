/**
 * The transport-neutral A2A request handler: one method per operation, taking
 * the version-neutral command and the caller and returning domain results
 * (task views with how to show them, a reply message, a list page). The
 * JSON-RPC and HTTP+JSON bindings are thin layers over it: they own their
 * envelopes, content types, size limits and status codes, and a codec turns
 * these results into the requested version's shapes.
 */
import type { AgentDescription } from '../../agent/api.ts';
import type { Caller } from '../../domain/caller.ts';
import { GenerationMismatchError, TaskNotFoundError, ValidationError } from '../../domain/errors.ts';
import { authorize, type Principal } from '../../domain/principal.ts';
import {
  isInterrupted,
  isTerminal,
  type SynapseState,
  synapseStatesFor,
  toA2AState,
} from '../../domain/states.ts';
import type { Message, TaskView } from '../../domain/task.ts';
import type { PushConfigSummary } from '../../ports/push-config-store.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import type { AgentCard } from '../../protocol/a2a/agent-card.ts';
import type { A2AVersion } from '../../protocol/a2a/codec.ts';
import { A2AProtocolError } from '../../protocol/a2a/errors.ts';
import { activateExtensions } from '../../protocol/a2a/extensions.ts';
import { GENERATIONS_EXTENSION, GENERATIONS_EXTENSION_URI } from '../../protocol/a2a/generations.ts';
import type {
  CancelTaskCommand,
  CreatePushConfigCommand,
  GetTaskCommand,
  ListPushConfigsCommand,
  ListTasksCommand,
  ListTasksResult,
  PushConfigCommand,
  SendMessageCommand,
  SubscribeToTaskCommand,
  TaskEncodeOptions,
} from '../../protocol/a2a/operations.ts';
import type { PushConfigService } from '../push/push-configs.ts';
import { derivedTaskId } from '../tasks/task-engine.ts';
import type { TaskService } from '../tasks/task-service.ts';
import { hubCard } from './card.ts';
import { endsStream, finalStatusOf, snapshotOf } from './events.ts';
import {
  awaitVersion,
  type FollowOptions,
  firstWrite,
  follow,
  recordOf,
  STREAM_TIMING,
  type StreamClock,
  type StreamEnd,
  type StreamItem,
  type StreamTiming,
  storeReader,
  systemStreamClock,
  type TaskReader,
} from './stream.ts';

/** A task to answer with, and how much of it to show. */
export interface TaskResult {
  view: TaskView;
  show: TaskEncodeOptions;
}

/** What SendMessage got: a task, or the agent's reply and no task. */
export type SendResult = ({ kind: 'task' } & TaskResult) | { kind: 'message'; message: Message };

/** What a request activated (its `A2A-Extensions`): how its answer shows tasks. */
export interface RequestScope {
  /** The extensions the request activated (activateExtensions); generations are shown only when activated. */
  extensions?: readonly string[];
}

export interface SendContext extends RequestScope {
  /** How long a blocking send may wait for its task to settle (ms). */
  blockingBudgetMs: number;
  /** The A2A version of the request: an inline push config is delivered in its shapes. Default 1.0. */
  version?: A2AVersion;
}

export interface StreamContext extends RequestScope {
  /**
   * How long the stream may stay open (ms). It then ends at a resumable position; a streamed send's
   * inline run hands its task back to the executor HAND_BACK_MARGIN_MS before that.
   */
  budgetMs: number;
  /** Aborted when the consumer is gone: the stream stops reading (an inline run goes on). */
  signal?: AbortSignal;
  /** The A2A version of the request: an inline push config is delivered in its shapes. Default 1.0. */
  version?: A2AVersion;
}

/** GetTask's time: how long a long poll (`currentGeneration`) may wait; without it, none. */
export interface GetContext extends RequestScope {
  /** The blocking-wait budget a blocking send has (BLOCKING_WAIT_MS, within the function's time). */
  waitBudgetMs?: number;
  signal?: AbortSignal;
}

export interface SubscribeContext extends StreamContext {
  /**
   * Resume after this version (the SSE `Last-Event-ID` of the last event seen): every event after it,
   * and no new snapshot (the stream goes on where it stopped).
   */
  afterVersion?: number;
}

/**
 * A stream of a task's events (first the snapshot, or a Message alone). Iterating it does the work;
 * an error before the first item is the request's error (answer it as such), one after it ends the
 * stream. `settled` settles once what the stream started (a streamed send's inline run of the
 * agent) has ended: the invocation serving the stream must not end before it.
 */
export interface TaskStream extends AsyncIterable<StreamItem> {
  readonly settled: Promise<void>;
}

export interface A2AHandlerOptions {
  /**
   * The agent's description: the extensions requests must activate, and the extended card. Without
   * one no extension is declared and there is no extended card.
   */
  agent?: AgentDescription;
  /** Where streams read tasks; without one (or a reader) the streaming operations are refused. */
  store?: TaskStore;
  reader?: TaskReader;
  clock?: StreamClock;
  timing?: Partial<StreamTiming>;
  /** Called with how each stream ended and what it sent (logs). */
  onStreamEnd?: (summary: StreamSummary) => void;
  /**
   * Push-notification configs; without them (no delivery pipeline configured) the card declares no push
   * notifications and every push operation, an inline config included, is PushNotificationNotSupported.
   */
  pushConfigs?: PushConfigService;
  /**
   * Task generations (A2A dev-1.1, docs/generations.md; A2A_GENERATIONS=on): tasks and stream updates show
   * `generation`, sends honour `ifGenerationMatch`, GetTask long-polls on `currentGeneration`. Default off.
   */
  generations?: boolean;
}

export interface StreamSummary {
  operation: 'SendStreamingMessage' | 'SubscribeToTask';
  taskId?: string;
  contextId?: string;
  end: StreamEnd | 'message' | 'error';
  events: number;
  heartbeats: number;
  /** Version of the last event sent: where to resume. */
  lastVersion?: number;
}

/** A streamed send's inline run hands the task back this long before the stream's budget ends. */
export const HAND_BACK_MARGIN_MS = 2_000;

const noop = () => {};

/**
 * Without historyLength a task carries its most recent DEFAULT_HISTORY_LENGTH messages (the spec lets the
 * server choose): a long task's full history could outgrow a Lambda response.
 */
export const DEFAULT_HISTORY_LENGTH = 100;
/** A read returns at most this many messages of a task's history, whatever historyLength asks (the newest). */
export const MAX_HISTORY_LENGTH = 1_000;
const capped = (historyLength: number | undefined) =>
  historyLength === undefined ? undefined : Math.min(historyLength, MAX_HISTORY_LENGTH);
const historyOption = (historyLength: number | undefined) => ({
  historyLength: capped(historyLength) ?? DEFAULT_HISTORY_LENGTH,
});
const showWhole = (historyLength: number | undefined): TaskEncodeOptions => ({
  includeArtifacts: true,
  ...(historyLength !== undefined ? { historyLength: capped(historyLength)! } : {}),
});

const assertUserMessage = (message: Message) => {
  if (message.role !== 'user') {
    // the agent's messages come from the agent; a client sending ROLE_AGENT would speak for it
    throw new ValidationError('message.role must be ROLE_USER: clients send user messages', 'message.role');
  }
};

export class A2AHandler {
  private readonly reader: TaskReader | undefined;
  private readonly clock: StreamClock;
  private readonly timing: StreamTiming;

  constructor(
    private readonly tasks: TaskService,
    private readonly options: A2AHandlerOptions = {},
  ) {
    this.reader = options.reader ?? (options.store ? storeReader(options.store) : undefined);
    this.clock = options.clock ?? systemStreamClock;
    this.timing = { ...STREAM_TIMING, ...options.timing };
  }

  /** Whether push notifications are offered (capabilities.pushNotifications). */
  get pushNotifications(): boolean {
    return this.options.pushConfigs !== undefined;
  }

  /** Whether generations are on: the bindings parse their request fields only then. */
  get generations(): boolean {
    return this.options.generations === true;
  }

  /**
   * Whether an answer shows generations: when they are on and the request activated their extension
   * (`A2A-Extensions`), so a strict A2A 1.0 client, which knows no `generation` field, never sees one.
   */
  private showsGenerations(scope: RequestScope | undefined): boolean {
    return this.generations && (scope?.extensions ?? []).includes(GENERATIONS_EXTENSION_URI);
  }

  /** How a task is shown: with its generation when the request asked for generations. */
  private shown(show: TaskEncodeOptions, scope: RequestScope | undefined): TaskEncodeOptions {
    return this.showsGenerations(scope) ? { ...show, generation: true } : show;
  }

  /**
   * A send's `ifGenerationMatch`, when generations are on. A message without a taskId makes a new task,
   * which has no generation yet: only 0 matches it (docs/generations.md), refused before anything is written.
   */
  private generationMatch(cmd: SendMessageCommand): { ifGenerationMatch?: number } {
    const expected = this.generations ? cmd.ifGenerationMatch : undefined;
    if (expected === undefined) return {};
    if (!cmd.taskId && expected !== 0) throw new GenerationMismatchError(undefined, expected, 0);
    return cmd.taskId ? { ifGenerationMatch: expected } : {};
  }

  async sendMessage(
    principal: Principal,
    cmd: SendMessageCommand,
    context: SendContext,
  ): Promise<SendResult> {
    const caller = authorize(principal, 'write', cmd.tenant);
    assertUserMessage(cmd.message);
    const started = Date.now();
    // a blocking send runs the agent right here, within the request's time budget
    const options = {
      ...(cmd.returnImmediately ? {} : { runInlineUntil: started + context.blockingBudgetMs }),
      ...this.inlinePush(cmd, context.version),
      ...this.generationMatch(cmd),
    };
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
    return { kind: 'task', view, show: this.shown(showWhole(cmd.historyLength), context) };
  }

  /**
   * SendStreamingMessage: the agent runs inline, in this invocation, while the stream reads the store
   * (as a blocking send does, until the stream's budget less HAND_BACK_MARGIN_MS; a run that needs
   * longer is handed back to the executor and the stream goes on following it). The first event is the
   * Task snapshot once the message's write is in the store, or the Message of a message-only reply
   * (then the only event).
   */
  sendStreamingMessage(principal: Principal, cmd: SendMessageCommand, context: StreamContext): TaskStream {
    const work: { sending?: Promise<unknown> } = {};
    const items = this.streamSend(principal, cmd, context, work);
    return {
      [Symbol.asyncIterator]: () => items,
      get settled() {
        return work.sending ? work.sending.then(noop, noop) : Promise.resolve();
      },
    };
  }

  /**
   * SubscribeToTask: the Task snapshot, then every event after it until the task is terminal (an
   * interrupted task is followed on: its answer and what comes after; the budget still bounds the
   * stream, at a resumable position). A terminal task is refused (UnsupportedOperationError, as A2A's
   * SubscribeToTask says), an unknown one is TaskNotFoundError. With `afterVersion` (Last-Event-ID) the
   * stream resumes after that event instead, without a snapshot; a terminal task whose events were all
   * seen is refused the same way.
   */
  subscribeToTask(principal: Principal, cmd: SubscribeToTaskCommand, context: SubscribeContext): TaskStream {
    const items = this.streamSubscribe(principal, cmd, context);
    return { [Symbol.asyncIterator]: () => items, settled: Promise.resolve() };
  }

  private requireReader(): TaskReader {
    if (!this.reader) {
      throw A2AProtocolError.unsupportedOperation(
        'streaming is not configured on this server (no task store)',
      );
    }
    return this.reader;
  }

  private async *streamSend(
    principal: Principal,
    cmd: SendMessageCommand,
    context: StreamContext,
    work: { sending?: Promise<unknown> },
  ): AsyncGenerator<StreamItem, void> {
    // checked at the stream's first read: refused before any event, as a plain error answer
    const caller = authorize(principal, 'write', cmd.tenant);
    const summary: StreamSummary = {
      operation: 'SendStreamingMessage',
      end: 'error',
      events: 0,
      heartbeats: 0,
    };
    try {
      const reader = this.requireReader();
      assertUserMessage(cmd.message);
      const started = this.clock.now();
      const deadline = started + context.budgetMs;
      const options = {
        runInlineUntil: Math.max(started, deadline - HAND_BACK_MARGIN_MS),
        ...this.inlinePush(cmd, context.version),
        ...this.generationMatch(cmd),
      };
      let before = 0;
      // the task a new message makes has the id the engine derives from it (the message is the key)
      let taskId = cmd.taskId ?? derivedTaskId(caller.tenant, caller.owner, cmd.message);
      if (cmd.taskId) before = (await recordOf(reader, caller, cmd.taskId)).head.version;
      const sending = cmd.taskId
        ? this.tasks.continueTask(caller, cmd.taskId, cmd.message, cmd.contextId, options)
        : this.tasks.send(caller, cmd.message, cmd.contextId, options);
      work.sending = sending;
      let failure: { error: unknown } | undefined;
      sending.catch((error: unknown) => {
        failure = { error };
      });
      const timing = {
        clock: this.clock,
        timing: this.timing,
        ...(context.signal ? { signal: context.signal } : {}),
      };
      let record = await firstWrite(reader, caller, taskId, before, sending, timing);
      if (!record) {
        if (context.signal?.aborted) {
          summary.end = 'aborted';
          return;
        }
        // the send settled before its write was seen: its error is the request's, or its result opens the stream
        const result = await sending;
        if ('reply' in result) {
          summary.contextId = result.reply.contextId;
          summary.events = 1;
          summary.end = 'message';
          yield { type: 'event', event: { kind: 'message', message: result.reply } };
          return;
        }
        taskId = result.record.head.taskId;
        record = await recordOf(reader, caller, taskId);
      }
      summary.taskId = record.head.taskId;
      summary.contextId = record.head.contextId;
      summary.end = yield* this.counted(
        this.fromSnapshot(reader, caller, record, cmd.historyLength, {
          ...timing,
          deadline,
          lastWrite: this.clock.now(),
          // the inline run failed (the store refused it, say): the stream ends with its error
          check: () => {
            if (failure) throw failure.error;
          },
        }),
        summary,
        context,
      );
    } finally {
      this.options.onStreamEnd?.(summary);
    }
  }

  private async *streamSubscribe(
    principal: Principal,
    cmd: SubscribeToTaskCommand,
    context: SubscribeContext,
  ): AsyncGenerator<StreamItem, void> {
    const caller = authorize(principal, 'read', cmd.tenant);
    const summary: StreamSummary = { operation: 'SubscribeToTask', end: 'error', events: 0, heartbeats: 0 };
    try {
      const reader = this.requireReader();
      const started = this.clock.now();
      const record = await recordOf(reader, caller, cmd.id);
      const { head } = record;
      summary.taskId = head.taskId;
      summary.contextId = head.contextId;
      const options: FollowOptions = {
        clock: this.clock,
        timing: this.timing,
        deadline: started + context.budgetMs,
        lastWrite: started,
        ...(context.signal ? { signal: context.signal } : {}),
        // a subscriber watches until the task is done: through its questions and their answers
        endsAt: isTerminal,
      };
      const after = context.afterVersion;
      const finished = (): A2AProtocolError =>
        A2AProtocolError.unsupportedOperation(
          `Task ${head.taskId} is in state ${toA2AState(head.state)}: a finished task cannot be subscribed to; ` +
            'read it with GetTask',
          { taskId: head.taskId, state: toA2AState(head.state) },
        );
      if (after === undefined) {
        if (isTerminal(head.state)) throw finished();
        summary.end = yield* this.counted(
          this.fromSnapshot(reader, caller, record, undefined, options),
          summary,
          context,
        );
        return;
      }
      if (after > head.version) {
        throw new ValidationError(
          `Last-Event-ID ${after} is no event of task ${head.taskId}: its last event is ${head.version}`,
          'Last-Event-ID',
        );
      }
      if (isTerminal(head.state) && after >= head.version) throw finished();
      summary.lastVersion = after;
      // a resumed stream opens at once (its next event may be a while): a comment starts it
      yield { type: 'heartbeat' };
      summary.end = yield* this.counted(follow(reader, caller, record, after, options), summary, context);
    } finally {
      this.options.onStreamEnd?.(summary);
    }
  }

  /** The snapshot, then the events after it; a snapshot of a settled task is followed by its status alone. */
  private async *fromSnapshot(
    reader: TaskReader,
    caller: Caller,
    record: TaskRecord,
    historyLength: number | undefined,
    options: FollowOptions,
  ): AsyncGenerator<StreamItem, StreamEnd> {
    const view = await reader.view(record, { includeArtifacts: true, ...historyOption(historyLength) });
    const id = record.head.version;
    yield { type: 'event', id, event: snapshotOf(view, showWhole(historyLength)) };
    if ((options.endsAt ?? endsStream)(record.head.state)) {
      // already where this stream ends: its status closes the stream (it never ends on a snapshot alone)
      yield { type: 'event', id, event: finalStatusOf(view) };
      return 'final';
    }
    return yield* follow(reader, caller, record, id, { ...options, lastWrite: this.clock.now() });
  }

  /** Passes items through, counting them into the summary (and showing generations when asked). */
  private async *counted(
    items: AsyncGenerator<StreamItem, StreamEnd>,
    summary: StreamSummary,
    scope: RequestScope,
  ): AsyncGenerator<StreamItem, StreamEnd> {
    let done = false;
    try {
      for (;;) {
        const next = await items.next();
        if (next.done) {
          done = true;
          return next.value;
        }
        if (next.value.type === 'heartbeat') summary.heartbeats++;
        else {
          summary.events++;
          if (next.value.id !== undefined) summary.lastVersion = next.value.id;
        }
        yield this.withGeneration(next.value, scope);
      }
    } finally {
      // the consumer left early: close what it was reading too
      if (!done) await items.return('aborted');
    }
  }

  /**
   * When the request asked for generations (showsGenerations), a stream's snapshot shows the task's, and
   * an update the task's generation after it (its event's version, the SSE id), as dev-1.1's
   * TaskStatusUpdateEvent and TaskArtifactUpdateEvent do: a gap tells a missed event.
   */
  private withGeneration(item: StreamItem, scope: RequestScope): StreamItem {
    if (!this.showsGenerations(scope) || item.type !== 'event' || item.id === undefined) return item;
    const { event } = item;
    if (event.kind === 'task')
      return { ...item, event: { ...event, show: { ...event.show, generation: true } } };
    if (event.kind !== 'status-update' && event.kind !== 'artifact-update') return item;
    return { ...item, event: { ...event, generation: item.id } };
  }

  /**
   * The extensions a request activates with its `A2A-Extensions` header (lower-cased headers), for the
   * binding to echo; -32008 (ExtensionSupportRequiredError) when it leaves out one the agent requires.
   */
  activateExtensions(headers: Record<string, string | undefined>): string[] {
    const declared = this.options.agent?.extensions ?? [];
    return activateExtensions(this.generations ? [...declared, GENERATIONS_EXTENSION] : declared, headers);
  }

  /**
   * GetExtendedAgentCard: the card with the agent's `extendedCard` additions. An agent
   * without one declares no extended card: UnsupportedOperationError. It needs an authenticated
   * principal with the read right (every route but the public card's is authenticated).
   */
  getExtendedAgentCard(
    principal: Principal,
    where: { publicUrl: string; version: A2AVersion; tenant?: string },
  ): AgentCard {
    authorize(principal, 'read', where.tenant);
    const agent = this.options.agent;
    if (!agent?.extendedCard) {
      throw A2AProtocolError.unsupportedOperation(
        'this agent has no extended agent card (capabilities.extendedAgentCard is false)',
      );
    }
    return hubCard({
      agent,
      publicUrl: where.publicUrl,
      version: where.version,
      extended: true,
      pushNotifications: this.pushNotifications,
      generations: this.generations,
    });
  }

  /** CreateTaskPushNotificationConfig: the config as stored (its secrets not shown). */
  async createPushConfig(
    principal: Principal,
    cmd: CreatePushConfigCommand,
    version: A2AVersion,
  ): Promise<PushConfigSummary> {
    const caller = authorize(principal, 'write', cmd.tenant);
    return this.requirePush().create(caller, cmd.taskId, cmd.config, version);
  }

  async getPushConfig(principal: Principal, cmd: PushConfigCommand): Promise<PushConfigSummary> {
    return this.requirePush().get(authorize(principal, 'read', cmd.tenant), cmd.taskId, cmd.id);
  }

  /**
   * Every config of the task: at most MAX_PUSH_CONFIGS_PER_TASK, so always one page whatever pageSize
   * asks (the spec lets a server not paginate; cutting the page without a token would hide configs).
   */
  async listPushConfigs(principal: Principal, cmd: ListPushConfigsCommand): Promise<PushConfigSummary[]> {
    return this.requirePush().list(authorize(principal, 'read', cmd.tenant), cmd.taskId);
  }

  async deletePushConfig(principal: Principal, cmd: PushConfigCommand): Promise<void> {
    const caller = authorize(principal, 'write', cmd.tenant);
    if (cmd.id === undefined) throw new ValidationError('the config id is required to delete one', 'id');
    await this.requirePush().delete(caller, cmd.taskId, cmd.id);
  }

  private requirePush(): PushConfigService {
    if (!this.options.pushConfigs) {
      throw A2AProtocolError.pushNotificationNotSupported('this hub has no push notifications configured');
    }
    return this.options.pushConfigs;
  }

  /** A message's inline push config, checked, for the write that creates or continues its task. */
  private inlinePush(cmd: SendMessageCommand, version: A2AVersion = '1.0') {
    if (!cmd.pushNotificationConfig) return {};
    return { pushConfig: this.requirePush().inline(cmd.pushNotificationConfig, version) };
  }

  /**
   * GetTask. With `currentGeneration` (generations on) it is a long poll: the task at once when its
   * generation is above it (or it is finished), else once it moves past it, within `waitBudgetMs`, then the
   * task as it is (docs/generations.md). It reads as an idle stream does (awaitVersion).
   */
  async getTask(principal: Principal, cmd: GetTaskCommand, context: GetContext = {}): Promise<TaskResult> {
    const caller = authorize(principal, 'read', cmd.tenant);
    const options = { includeArtifacts: true, ...historyOption(cmd.historyLength) };
    const show = this.shown(showWhole(cmd.historyLength), context);
    const after = this.generations ? cmd.currentGeneration : undefined;
    if (after === undefined) return { view: await this.tasks.read(caller, cmd.id, options), show };
    const started = this.clock.now();
    // the reader streams use (the service's ownership rule without one): the same reads as a stream's
    const reader = this.reader ?? {
      find: (c: Caller, id: string) =>
        this.tasks.owned(c, id).catch((e: unknown) => {
          if (e instanceof TaskNotFoundError) return undefined;
          throw e;
        }),
    };
    const record = await awaitVersion(reader, caller, await this.tasks.owned(caller, cmd.id), after, {
      clock: this.clock,
      timing: this.timing,
      deadline: started + Math.max(0, context.waitBudgetMs ?? 0),
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return { view: await this.tasks.view(record, options), show };
  }

  async cancelTask(
    principal: Principal,
    cmd: CancelTaskCommand,
    scope: RequestScope = {},
  ): Promise<TaskResult> {
    const caller = authorize(principal, 'write', cmd.tenant);
    return {
      view: await this.tasks.cancel(caller, cmd.id),
      show: this.shown({ includeArtifacts: true }, scope),
    };
  }

  async listTasks(
    principal: Principal,
    cmd: ListTasksCommand,
    scope: RequestScope = {},
  ): Promise<{ page: ListTasksResult; show: TaskEncodeOptions }> {
    const caller = authorize(principal, 'read', cmd.tenant);
    // history in a listing only when asked for: it costs a query per task
    const historyLength = capped(cmd.historyLength) ?? 0;
    const show = this.shown({ includeArtifacts: cmd.includeArtifacts, historyLength }, scope);
    const states: SynapseState[] | undefined = cmd.status ? synapseStatesFor(cmd.status) : undefined;
    if (states && states.length === 0) {
      return { page: { tasks: [], nextPageToken: '', pageSize: cmd.pageSize, totalSize: 0 }, show };
    }
    const needDetails = cmd.includeArtifacts || historyLength > 0;
    const page = await this.tasks.list(caller, {
      pageSize: cmd.pageSize,
      // a details listing reads each task anyway (versions included)
      ...(show.generation && !needDetails ? { withVersions: true } : {}),
      ...(cmd.contextId ? { contextId: cmd.contextId } : {}),
      ...(states ? { states } : {}),
      ...(cmd.statusTimestampAfter ? { statusAfter: cmd.statusTimestampAfter } : {}),
      ...(cmd.pageToken ? { pageToken: cmd.pageToken } : {}),
    });
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
