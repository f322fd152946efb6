/** The A2A endpoints (functions/jsonrpc.ts, functions/rest.ts): how long blocking sends and streams last. */
import { STREAM_TIMING } from '../app/a2a/stream.ts';
import { STREAMING } from '../contracts/routes.ts';
import { decimal, type Setting, section, wholeNumber } from './settings.ts';

export const BLOCKING_WAIT_MS = {
  name: 'BLOCKING_WAIT_MS',
  doc: 'How long a blocking send waits for its task before answering with it as it is (API Gateway gives up at 29 s).',
  format: () => wholeNumber(0, undefined, 'milliseconds'),
  default: 25_000,
  readBy: ['jsonrpc', 'rest'],
} satisfies Setting<number>;

export const STREAM_BUDGET_MS = {
  name: 'STREAM_BUDGET_MS',
  doc: 'The longest a stream stays open (docs/streaming.md).',
  format: () => decimal(0, { unit: 'milliseconds', above: true }),
  get defaultText() {
    return `the function's remaining time less ${STREAMING.closeMarginMs / 1000} s`;
  },
  readBy: ['jsonrpc', 'rest'],
} satisfies Setting<number>;

export const STREAM_HEARTBEAT_MS = {
  name: 'STREAM_HEARTBEAT_MS',
  doc: 'An SSE comment is written after this long without a write, so proxies keep the stream.',
  format: () => decimal(0, { unit: 'milliseconds', above: true }),
  get default() {
    return STREAM_TIMING.heartbeatMs;
  },
  readBy: ['jsonrpc', 'rest'],
} satisfies Setting<number>;

/** What the A2A endpoints read per request (checked together when the handler is built). */
export const a2aConfig = /* @__PURE__ */ section({
  blockingWaitMs: BLOCKING_WAIT_MS,
  streamBudgetMs: STREAM_BUDGET_MS,
  streamHeartbeatMs: STREAM_HEARTBEAT_MS,
});
