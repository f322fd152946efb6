/**
 * The local runtime's fault layer (docs/reliability.md#the-fault-layer): decides, from a seed, which AWS
 * calls fail and how, which queue messages come twice or late, which stream batches come again and which
 * consumer invocations die mid-way; counts what it injected. The real adapters run underneath on
 * DynamoDB Local and the local SQS: the faults are what AWS can do to them, nothing is mocked.
 *
 * Replay: each place that can fault (a service's operation, a function) draws from its own generator,
 * seeded from the seed and the place's name, so the same seed gives the same faults to the same
 * sequence of calls there. A concurrent workload interleaves its calls differently from run to run; it
 * gets the same rates and kinds, not the very same calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { FAULT_KINDS, type FaultKind, type FaultSpec } from '../../shared/config/faults.ts';

/** What a consumer's invocation that died throws (a crashed or timed-out Lambda invocation). */
export class FunctionDiedError extends Error {
  constructor(readonly functionName: string) {
    super(`${functionName} died mid-way (injected: function-dies)`);
    this.name = 'FunctionDied';
  }
}

interface Invocation {
  functionName: string;
  /** Calls made so far. */
  calls: number;
  /** The call at which it dies (after the ones before succeeded); past its last call: at its end. */
  dieAt?: number;
  dead: boolean;
}

/** FNV-1a: a place's name to a 32-bit seed. */
const hash = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};

/** mulberry32: small, fast and good enough to spread faults and a workload's choices (not for secrets). */
export const seededGenerator = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export type FaultCounts = Record<FaultKind, number>;

export class FaultLayer {
  private readonly generators = new Map<string, () => number>();
  protected readonly injected = Object.fromEntries(
    Object.keys(FAULT_KINDS).map((k) => [k, 0]),
  ) as FaultCounts;
  private readonly invocations = new AsyncLocalStorage<Invocation>();
  private on = true;

  constructor(readonly spec: FaultSpec) {}

  /** Stops injecting (a chaos run's drain); what was counted stays. */
  disable(): void {
    this.on = false;
  }

  get enabled(): boolean {
    return this.on;
  }

  counts(): FaultCounts {
    return { ...this.injected };
  }

  /** A number in [0, 1) from the place's own generator. */
  draw(place: string): number {
    let next = this.generators.get(place);
    if (!next) {
      next = seededGenerator(hash(`${this.spec.seed}:${place}`));
      this.generators.set(place, next);
    }
    return next();
  }

  /**
   * The fault this place gets now, if any, among the `candidates` that are on: each at its own rate,
   * or an even share of the run's rate.
   */
  pick(place: string, candidates: readonly FaultKind[]): FaultKind | undefined {
    if (!this.on) return undefined;
    const on = candidates.filter((k) => this.spec.kinds.has(k));
    if (on.length === 0) return undefined;
    const u = this.draw(place);
    let bound = 0;
    for (const kind of on) {
      bound += this.spec.kinds.get(kind) ?? this.spec.rate / on.length;
      if (u < bound) {
        this.injected[kind]++;
        return kind;
      }
    }
    return undefined;
  }

  // ---- consumer invocations ----

  /**
   * Runs one invocation of a consumer. It may die (function-dies): at one of its first few AWS calls,
   * which then and after fail, or at its end when it made fewer; either way it throws FunctionDiedError,
   * as the event source sees a crashed or timed-out invocation, whatever the handler made of it.
   */
  async invoke<T>(functionName: string, run: () => Promise<T>): Promise<T> {
    const dies = this.pick(`invoke:${functionName}`, ['function-dies']) !== undefined;
    const invocation: Invocation = {
      functionName,
      calls: 0,
      dead: false,
      ...(dies ? { dieAt: 1 + Math.floor(this.draw(`die-at:${functionName}`) * 6) } : {}),
    };
    let result: T;
    try {
      result = await this.invocations.run(invocation, run);
    } catch (e) {
      if (invocation.dieAt !== undefined) throw new FunctionDiedError(functionName);
      throw e;
    }
    if (invocation.dieAt !== undefined) {
      invocation.dead = true;
      throw new FunctionDiedError(functionName);
    }
    return result;
  }

  /** Called by each AWS call: throws when the invocation it belongs to has died or dies now. */
  checkAlive(): void {
    const invocation = this.invocations.getStore();
    if (!invocation || invocation.dieAt === undefined) return;
    invocation.calls++;
    if (invocation.dead || invocation.calls >= invocation.dieAt) {
      invocation.dead = true;
      throw new FunctionDiedError(invocation.functionName);
    }
  }

  // ---- queue and stream deliveries ----

  /**
   * What SQS does with a batch it hands to `functionName`: one record twice in it, the batch late, or one
   * record handed over again once the batch was handled.
   */
  sqsDelivery<R>(functionName: string, records: readonly R[]): { records: R[]; lateMs: number; again: R[] } {
    const kind = this.pick(`sqs:${functionName}`, ['sqs-duplicate', 'sqs-duplicate-in-batch', 'sqs-late']);
    const one = records[Math.floor(this.draw(`sqs-which:${functionName}`) * records.length)];
    if (kind === 'sqs-duplicate-in-batch' && one !== undefined)
      return { records: [...records, one], lateMs: 0, again: [] };
    if (kind === 'sqs-duplicate' && one !== undefined)
      return { records: [...records], lateMs: 0, again: [one] };
    if (kind === 'sqs-late')
      return {
        records: [...records],
        lateMs: 200 + Math.floor(this.draw(`late:${functionName}`) * 2800),
        again: [],
      };
    return { records: [...records], lateMs: 0, again: [] };
  }

  /** Whether the stream hands the batch the relay just handled to it again. */
  streamAgain(functionName: string): boolean {
    return this.pick(`stream:${functionName}`, ['stream-redelivered']) !== undefined;
  }
}

/** `seed 7, 5% (throttle, ambiguous at 10%)`, for logs. */
export const describeFaults = (spec: FaultSpec): string => {
  const kinds = [...spec.kinds].map(([kind, rate]) =>
    rate === undefined ? kind : `${kind} at ${rate * 100}%`,
  );
  const all =
    kinds.length === Object.keys(FAULT_KINDS).length &&
    [...spec.kinds.values()].every((r) => r === undefined);
  return `seed ${spec.seed}, ${spec.rate * 100}%${all ? ', every kind' : ` (${kinds.join(', ')})`}`;
};
