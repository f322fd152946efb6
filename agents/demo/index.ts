/**
 * The demo agent: one command per path of the agent handler API.
 *   <any text>   echo it back as an artifact, completed
 *   slow N       progress every second for N seconds, then completed (honours cancel);
 *                `slow` without N asks how long first (validation asks for a missing field)
 *   ask          asks a question (input required); completes with the answer
 *   approve      waits for a human decision; approved → completed, rejected → rejected
 *   fail         failed
 *   reject       rejected at validation
 *   ping         answered with a message, "pong": no task is made
 *   chunks N     an artifact in N chunks (1-100), one every 500 ms from the start: the first makes it, each next one is
 *                appended (`append: true`), the last one has `lastChunk: true`; then completed (honours
 *                cancel). Streamed, each chunk arrives as an artifact update when it is recorded
 *   parts        a status update without text, then completed with a data part in its message and an
 *                artifact of text, file (inline bytes and URL) and data parts, with metadata on the
 *                artifact, the message and the task
 */
import {
  type AgentHandler,
  askForInput,
  askHuman,
  complete,
  dataPart,
  type ExecutionContext,
  fail,
  filePart,
  fileUrlPart,
  type IncomingMessage,
  type Outcome,
  type Reply,
  reject,
  sleep,
  type TaskInput,
  textPart,
  type Validation,
} from 'synapse-a2a-hub/agent';

const MAX_SLOW_SECONDS = 600;
const MAX_CHUNKS = 100;
const CHUNK_INTERVAL_MS = 500;

const command = (text: string): { name: string; arg: string } => {
  const [name = '', ...rest] = text.trim().split(/\s+/);
  return { name: name.toLowerCase(), arg: rest.join(' ') };
};

const seconds = (arg: string): number | undefined => {
  const n = Number(arg);
  return Number.isInteger(n) && n >= 1 && n <= MAX_SLOW_SECONDS ? n : undefined;
};

const slow = async (ctx: ExecutionContext, total: number): Promise<Outcome> => {
  for (let s = 1; s <= total; s++) {
    await sleep(1000, ctx.signal);
    // progress() throws once the task is canceled, which ends the run
    await ctx.progress(Math.round((s / total) * 100), `${s}/${total} s`);
  }
  return complete(`Done after ${total} s`);
};

const chunkCount = (arg: string): number | undefined => {
  const n = Number(arg);
  return Number.isInteger(n) && n >= 1 && n <= MAX_CHUNKS ? n : undefined;
};

const chunks = async (ctx: ExecutionContext, total: number): Promise<Outcome> => {
  let artifactId: string | undefined;
  for (let i = 1; i <= total; i++) {
    await sleep(CHUNK_INTERVAL_MS, ctx.signal);
    // artifact() throws once the task is canceled, which ends the run
    artifactId = await ctx.artifact({
      ...(artifactId ? { artifactId } : { name: 'chunks' }),
      parts: [textPart(`chunk ${i}/${total}\n`)],
      append: i > 1,
      lastChunk: i === total,
    });
  }
  return complete(`Sent ${total} chunk${total === 1 ? '' : 's'}`);
};

export const demoAgent: AgentHandler = {
  describe: () => ({
    name: 'Synapse demo agent',
    description: 'Echoes text and demonstrates progress, questions, human decisions, failure and rejection.',
    version: '1.0.0',
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Returns the text it was sent as an artifact.',
        tags: ['demo', 'echo'],
        examples: ['hello'],
      },
      {
        id: 'slow',
        name: 'Slow task',
        description: 'Reports progress every second for N seconds, then completes. Can be canceled.',
        tags: ['demo', 'progress', 'cancel'],
        examples: ['slow 5'],
      },
      {
        id: 'ask',
        name: 'Ask',
        description: 'Asks a question and completes with the answer.',
        tags: ['demo', 'input-required'],
        examples: ['ask'],
      },
      {
        id: 'approve',
        name: 'Approval',
        description: 'Waits for a human to approve or reject.',
        tags: ['demo', 'human-in-the-loop'],
        examples: ['approve'],
      },
      {
        id: 'chunks',
        name: 'Chunked artifact',
        description: 'Sends an artifact in N appended chunks, one every 500 ms, then completes.',
        tags: ['demo', 'artifact', 'streaming'],
        examples: ['chunks 5'],
      },
      {
        id: 'ping',
        name: 'Ping',
        description: 'Answers `ping` with the message `pong`, without making a task.',
        tags: ['demo', 'message'],
        examples: ['ping'],
      },
      {
        id: 'parts',
        name: 'Parts',
        description: 'Completes with file and data parts and metadata.',
        tags: ['demo', 'files', 'data'],
        examples: ['parts'],
      },
      {
        id: 'outcomes',
        name: 'Failure and rejection',
        description: '`fail` fails the task; `reject` is rejected at validation.',
        tags: ['demo'],
        examples: ['fail', 'reject'],
      },
    ],
    // the extended card (GetExtendedAgentCard, GET /a2a/rest/extendedAgentCard): what the public card
    // leaves out, for authenticated callers once authentication lands
    extendedCard: {
      description:
        'Echoes text and demonstrates progress, questions, human decisions, failure and rejection ' +
        '(extended card: with the operator notes).',
      skills: [
        {
          id: 'operator-notes',
          name: 'Operator notes',
          description:
            'Every command runs in the hub itself: nothing leaves the deployment. `slow` and `chunks` are ' +
            `bounded (${MAX_SLOW_SECONDS} s, ${MAX_CHUNKS} chunks).`,
          tags: ['demo', 'operator'],
        },
      ],
    },
  }),

  respond(message: IncomingMessage): Reply | undefined {
    return command(message.text).name === 'ping' ? 'pong' : undefined;
  },

  validate(task: TaskInput): Validation {
    const { name, arg } = command(task.text);
    if (name === 'reject')
      return { decision: 'reject', code: 'capability_lacking', message: 'Rejected on request' };
    if (name === 'chunks' && chunkCount(arg) === undefined) {
      return {
        decision: 'reject',
        code: 'invalid_request',
        message: `chunks needs a number of chunks (1-${MAX_CHUNKS}), e.g. "chunks 5"`,
      };
    }
    if (name === 'slow' && seconds(arg) === undefined) {
      return {
        decision: 'need_info',
        question: `How many seconds should I work (1-${MAX_SLOW_SECONDS})?`,
        missingFields: [{ field: 'seconds', reason: 'slow needs a duration', suggestedValue: 5 }],
      };
    }
    return { decision: 'accept' };
  },

  async execute(ctx: ExecutionContext): Promise<Outcome> {
    const { name, arg } = command(ctx.task.text);
    const resumption = ctx.resumption;
    switch (name) {
      case 'slow': {
        const total = seconds(arg) ?? (resumption?.kind === 'info' ? seconds(resumption.text) : undefined);
        if (total === undefined)
          return askForInput(`Please answer with a number of seconds (1-${MAX_SLOW_SECONDS}).`);
        return slow(ctx, total);
      }
      case 'chunks':
        return chunks(ctx, chunkCount(arg) ?? 1);
      case 'ask':
        if (resumption?.kind === 'info') return complete(`You answered: ${resumption.text}`);
        return askForInput('What is your answer?');
      case 'approve':
        if (resumption?.kind === 'human_decision') {
          return resumption.approved
            ? complete(`Approved${resumption.notes ? `: ${resumption.notes}` : ''}`)
            : reject(
                `A human rejected the request${resumption.notes ? `: ${resumption.notes}` : ''}`,
                'human_rejected',
              );
        }
        return askHuman('Approve this request? Reply "approve" or "reject".', [
          { value: 'approve', confidence: 0.5 },
          { value: 'reject', confidence: 0.5 },
        ]);
      case 'fail':
        return fail('Failed on request', 'execution_failed');
      case 'parts':
        await ctx.status();
        return {
          ...complete(
            { text: 'Here are the parts', parts: [dataPart({ parts: 4 })], metadata: { demo: 'parts' } },
            [
              {
                name: 'parts',
                parts: [
                  textPart('a text part'),
                  filePart('hello, file', 'text/plain', 'hello.txt'),
                  fileUrlPart('https://example.com/report.pdf', 'application/pdf', 'report.pdf'),
                  dataPart({ answer: 42, list: [1, 2, 3] }),
                ],
                metadata: { kind: 'demo' },
                lastChunk: true,
              },
            ],
          ),
          taskMetadata: { demo: 'parts' },
        };
      default:
        return complete('Echoed', [{ name: 'echo', parts: [textPart(ctx.task.text)], lastChunk: true }]);
    }
  },
};

export default demoAgent;
