/** A Clock and an IdGenerator tests move by hand (shared/ports/clock.ts). */
import type { Clock, IdGenerator } from '../../ports/clock.ts';

/** A clock that stands still until told: `advance` moves it on, `set` puts it anywhere. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string | number = '2026-01-01T00:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  /** Epoch milliseconds (what the queues' and the seen signatures' `now` option takes). */
  readonly epochMs = (): number => this.#ms;

  advance(ms: number): void {
    this.#ms += ms;
  }

  advanceSeconds(seconds: number): void {
    this.#ms += seconds * 1000;
  }

  set(at: Date | string | number): void {
    this.#ms = new Date(at).getTime();
  }
}

/** Ids `<prefix>task-1`, `<prefix>context-1`, `<prefix>message-1`, … each kind counted on its own. */
export const sequentialIds = (prefix = ''): IdGenerator => {
  const next = { task: 0, context: 0, message: 0 };
  return {
    taskId: () => `${prefix}task-${++next.task}`,
    contextId: () => `${prefix}context-${++next.context}`,
    messageId: () => `${prefix}message-${++next.message}`,
  };
};
