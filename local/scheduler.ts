/**
 * A local EventBridge rate schedule: invokes a handler with a `ScheduledEvent`
 * every `intervalMs` (the first time one interval after start, as a rate rule
 * does). Unlike EventBridge it never overlaps invocations: a tick that comes
 * while the previous run is still going is skipped, which is what the sweeper
 * wants anyway.
 */
import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { type FaultLayer, FunctionDiedError } from './faults/layer.ts';
import {
  consoleLog,
  createLambdaContext,
  LOCAL_ACCOUNT,
  LOCAL_REGION,
  type LocalLog,
} from './lambda-context.ts';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface ScheduleOptions {
  handler: ScheduledHandler;
  intervalMs: number;
  functionName: string;
  ruleName?: string;
  /** Function timeout reported by the context. */
  timeoutMs?: number;
  /** The fault layer (FAULTS): invocations that die. */
  faults?: Pick<FaultLayer, 'invoke'>;
  log?: LocalLog;
}

export interface Schedule {
  /** Invokes the handler now (waits for a run in progress first); resolves when it is done. */
  fire(): Promise<void>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export const scheduledEvent = (ruleName: string, at = new Date()): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: LOCAL_ACCOUNT,
  // EventBridge sends whole seconds
  time: `${at.toISOString().slice(0, 19)}Z`,
  region: LOCAL_REGION,
  resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT}:rule/${ruleName}`],
  detail: {},
});

export const startSchedule = (options: ScheduleOptions): Schedule => {
  const ruleName = options.ruleName ?? `${options.functionName}-schedule`;
  const log = options.log ?? consoleLog;
  let running: Promise<void> | undefined;

  const run = (): Promise<void> => {
    const context = createLambdaContext({
      functionName: options.functionName,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    const current: Promise<void> = (async () => {
      try {
        const call = () => options.handler(scheduledEvent(ruleName), context);
        await (options.faults ? options.faults.invoke(options.functionName, call) : call());
      } catch (e) {
        if (e instanceof FunctionDiedError)
          log(`${e.message}: the next run does its work`, undefined, 'info');
        else log(`${options.functionName} (scheduled) threw`, e);
      }
    })().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };

  const timer = setInterval(() => {
    if (!running) void run();
  }, options.intervalMs);

  return {
    fire: async () => {
      while (running) await running;
      await run();
    },
    stop: async () => {
      clearInterval(timer);
      while (running) await running;
    },
  };
};
