/**
 * The codec contract: one implementation per A2A wire version, translating
 * shapes only (params to the neutral commands, neutral results and events to
 * wire objects, a protocol error to the version's error details). Bindings
 * (JSON-RPC, HTTP+JSON) own their envelopes, method names and statuses;
 * shared/protocol/a2a/versions.ts picks a codec.
 */
import type { Message, TaskView } from '../../domain/task.ts';
import type { A2AProtocolError } from './errors.ts';
import type {
  CancelTaskCommand,
  CreatePushConfigCommand,
  GetExtendedAgentCardCommand,
  GetTaskCommand,
  ListPushConfigsCommand,
  ListTasksCommand,
  ListTasksResult,
  ParseOptions,
  PushConfigCommand,
  PushConfigView,
  SendMessageCommand,
  StreamEvent,
  SubscribeToTaskCommand,
  TaskEncodeOptions,
} from './operations.ts';

export type A2AVersion = '1.0' | '0.3';

/** A JSON object ready for JSON.stringify (each codec exports its precise wire types). */
export type WireObject = object;

export interface A2ACodec {
  readonly version: A2AVersion;

  /** Each parser throws A2AProtocolError (-32602 with field violations, or a capability error). */
  parseSendMessage(params: unknown, options?: ParseOptions): SendMessageCommand;
  /** `options.generations`: read `currentGeneration` (otherwise an unknown field, ignored). */
  parseGetTask(params: unknown, options?: ParseOptions): GetTaskCommand;
  parseListTasks(params: unknown): ListTasksCommand;
  parseCancelTask(params: unknown): CancelTaskCommand;
  /** SubscribeToTask (v0.3 `tasks/resubscribe`). SendStreamingMessage takes parseSendMessage's params. */
  parseSubscribeToTask(params: unknown): SubscribeToTaskCommand;
  /** GetExtendedAgentCard (v0.3 `agent/getAuthenticatedExtendedCard`): params may be omitted. */
  parseGetExtendedAgentCard(params: unknown): GetExtendedAgentCardCommand;

  /** CreateTaskPushNotificationConfig (v0.3 `tasks/pushNotificationConfig/set`). */
  parseCreatePushConfig(params: unknown): CreatePushConfigCommand;
  /** Get/DeleteTaskPushNotificationConfig; a v0.3 get may omit the config id (the task's first config). */
  parsePushConfigRef(params: unknown, purpose: 'get' | 'delete'): PushConfigCommand;
  parseListPushConfigs(params: unknown): ListPushConfigsCommand;
  /** A stored config as reads show it: v1.0 flat, v0.3 `{taskId, pushNotificationConfig}`. */
  encodePushConfig(config: PushConfigView): WireObject;
  /** v1.0 `{configs, nextPageToken}`; v0.3 a bare array (it has no paging). */
  encodePushConfigList(configs: readonly PushConfigView[], nextPageToken: string): WireObject;

  encodeTask(view: TaskView, opts: TaskEncodeOptions): WireObject;
  /** v1.0 `{task}` wrapper; v0.3 bare Task. */
  encodeSendResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  /**
   * SendMessage answered with a message and no task (A2A lets an agent reply so): v1.0 `{message}` wrapper,
   * v0.3 bare Message (`kind: "message"`). `message` is the agent's reply as the task service
   * made it: role 'agent', contextId set, no taskId.
   */
  encodeSendReply(message: Message): WireObject;
  encodeGetResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  encodeCancelResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  encodeListResult(result: ListTasksResult, opts: TaskEncodeOptions): WireObject;
  /**
   * One event of a stream (the `result` of one SSE event over JSON-RPC): v1.0 a StreamResponse
   * (`{task}` | `{message}` | `{statusUpdate}` | `{artifactUpdate}`), v0.3 the bare object with its
   * `kind` (`task`, `message`, `status-update` with `final`, `artifact-update`).
   */
  encodeStreamEvent(event: StreamEvent): WireObject;
  /** The version's error details: v1.0 an array of typed objects (`@type`), v0.3 a free-form object. */
  errorData(err: A2AProtocolError): unknown;
}
