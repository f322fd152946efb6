/**
 * The agent the official A2A TCK (branch 1.0-dev) expects behind the server under test: it acts on the
 * prefix of a message's id, as the TCK's `scenarios/*.feature` describe (docs/development.md, "The A2A
 * TCK"). Any other message completes its task, as the TCK's default scenario does; an answer to a
 * question is acted on by its own id.
 */
import {
  type AgentHandler,
  askForInput,
  complete,
  dataPart,
  type ExecutionContext,
  filePart,
  fileUrlPart,
  type IncomingMessage,
  type Outcome,
  type Reply,
  reject,
  sleep,
  textPart,
} from 'synapse-a2a-hub/agent';

/**
 * The extension the TCK's CORE-CAP-004 checks a server refuses to serve without: declared required only
 * when TCK_REQUIRE_EXTENSION is set (every other TCK request would be refused then), for a run of those
 * tests alone (docs/development.md).
 */
const TCK_REQUIRED_EXTENSION = 'urn:a2a:tck:required-extension';

/** The TCK's streaming base timeout (TCK_STREAMING_TIMEOUT, seconds); the resubscribe scenario waits twice it. */
const STREAMING_TIMEOUT_MS = 2000;

/** A working status, an artifact of one text part, then completed: the streaming scenarios' shape. */
const streamedText = async (ctx: ExecutionContext, text: string): Promise<Outcome> => {
  await ctx.status();
  await ctx.artifact({ parts: [textPart(text)] });
  return complete();
};

/** Longest prefix first: `tck-artifact-file-url` also starts with `tck-artifact-file`. */
const SCENARIOS: [prefix: string, run: (ctx: ExecutionContext) => Promise<Outcome>][] = [
  [
    'tck-artifact-file-url',
    async () =>
      complete(undefined, [
        { parts: [fileUrlPart('https://example.com/output.txt', 'text/plain', 'output.txt')] },
      ]),
  ],
  [
    'tck-artifact-file',
    async () =>
      complete(undefined, [{ parts: [filePart('Generated file content', 'text/plain', 'output.txt')] }]),
  ],
  ['tck-artifact-text', async () => complete(undefined, [{ parts: [textPart('Generated text content')] }])],
  [
    'tck-artifact-data',
    async () => complete(undefined, [{ parts: [dataPart({ key: 'value', count: 42 })] }]),
  ],
  ['tck-input-required', async () => askForInput('Input required by TCK')],
  ['tck-reject-task', async () => reject('rejected')],
  [
    'tck-stream-artifact-chunked',
    async (ctx) => {
      await ctx.status();
      // the stream's snapshot is taken as the task starts: chunks written after it are streamed as updates
      await sleep(250, ctx.signal);
      const artifactId = await ctx.artifact({ parts: [textPart('chunk-1 ')] });
      await ctx.artifact({ artifactId, parts: [textPart('chunk-2')], append: true, lastChunk: true });
      return complete();
    },
  ],
  [
    'tck-stream-artifact-file',
    async (ctx) => {
      await ctx.status();
      await ctx.artifact({ parts: [filePart('Streamed file content', 'text/plain', 'output.txt')] });
      return complete();
    },
  ],
  ['tck-stream-artifact-text', (ctx) => streamedText(ctx, 'Streamed text content')],
  ['tck-stream-ordering-001', (ctx) => streamedText(ctx, 'Ordered output')],
  ['tck-stream-001', (ctx) => streamedText(ctx, 'Stream hello from TCK')],
  ['tck-stream-002', async () => complete()],
  ['tck-stream-003', (ctx) => streamedText(ctx, 'Stream task lifecycle')],
  [
    'test-resubscribe-message-id',
    async (ctx) => {
      await ctx.status();
      await sleep(2 * STREAMING_TIMEOUT_MS, ctx.signal);
      return complete();
    },
  ],
];

const tckAgent: AgentHandler = {
  describe: () => ({
    name: 'TCK agent',
    description: 'Answers the official A2A TCK scenarios by message id prefix',
    version: '1.0.0',
    skills: [
      {
        id: 'tck',
        name: 'TCK scenarios',
        description: 'The A2A TCK scenarios',
        tags: ['tck', 'conformance'],
      },
    ],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    extendedCard: { description: 'The TCK agent, as an authenticated caller sees it' },
    ...(process.env.TCK_REQUIRE_EXTENSION
      ? {
          extensions: [
            {
              uri: TCK_REQUIRED_EXTENSION,
              description: 'Required by the TCK run of CORE-CAP-004',
              required: true,
            },
          ],
        }
      : {}),
  }),
  respond: (message: IncomingMessage): Reply | undefined =>
    message.request.messageId.startsWith('tck-message-response') ? 'Direct message response' : undefined,
  execute: async (ctx) => {
    // a follow-up (an answer to input-required) is acted on by its own id, as a new message would be
    const { messageId } = ctx.resumption?.message ?? ctx.task.request;
    const scenario = SCENARIOS.find(([prefix]) => messageId.startsWith(prefix));
    return scenario ? scenario[1](ctx) : complete('Hello from TCK');
  },
};

export default tckAgent;
