/** The time and the ids the use cases take: ports so tests can fix them. */

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdGenerator {
  taskId(): string;
  contextId(): string;
  messageId(): string;
}
