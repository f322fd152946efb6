/**
 * The local runtime's fault layer (local/faults/, docs/reliability.md#the-fault-layer): off unless FAULTS
 * is set. Read by the local runtime only; a deployed stack injects faults with the FIS experiment
 * (docs/fault-injection.md), never with this.
 */
import type { Format, Setting } from './settings.ts';

/** Every kind of fault the layer injects, where it injects it. */
export const FAULT_KINDS = {
  /** An SDK call answered ProvisionedThroughputExceededException / ThrottlingException (not applied). */
  throttle: 'sdk',
  /** An SDK call answered InternalServerError (500; not applied). */
  'server-error': 'sdk',
  /** An SDK call that timed out before it was sent (not applied). */
  timeout: 'sdk',
  /** An SDK call applied whose answer was lost: the caller sees a timeout. */
  ambiguous: 'sdk',
  /** EventBridge PutEvents answering some entries failed (those not published). */
  'eventbridge-failed-entries': 'sdk',
  /** An SQS message handed to its consumer again after it was handled. */
  'sqs-duplicate': 'invoker',
  /** An SQS message twice in one batch. */
  'sqs-duplicate-in-batch': 'invoker',
  /** An SQS batch handed to its consumer late. */
  'sqs-late': 'invoker',
  /** A stream batch handed to the relay again after it was handled. */
  'stream-redelivered': 'invoker',
  /** A consumer's invocation that dies (crash or timeout) at one of its calls, after the ones before succeeded. */
  'function-dies': 'invoker',
} as const;

export type FaultKind = keyof typeof FAULT_KINDS;

export const isFaultKind = (name: string): name is FaultKind => Object.hasOwn(FAULT_KINDS, name);

export interface FaultSpec {
  seed: number;
  /** The chance that a place where faults can happen gets one (split evenly among the kinds that fit there). */
  rate: number;
  /** The kinds on, each with its own rate when one was given. */
  kinds: ReadonlyMap<FaultKind, number | undefined>;
}

/** `0.05` or `5%`, in [0, 1]. */
const fraction = (text: string): number | undefined => {
  const percent = text.endsWith('%');
  const n = Number(percent ? text.slice(0, -1) : text);
  if (text === '' || text === '%' || !Number.isFinite(n)) return undefined;
  const value = percent ? n / 100 : n;
  return value >= 0 && value <= 1 ? value : undefined;
};

/** `seed:rate[:kind[=rate],…]`, undefined when it is not one. */
export const parseFaultSpec = (text: string): FaultSpec | undefined => {
  const [seedText, rateText, kindsText, ...rest] = text.split(':');
  if (rest.length > 0 || seedText === undefined || rateText === undefined) return undefined;
  if (!/^\d{1,15}$/.test(seedText)) return undefined;
  const rate = fraction(rateText);
  if (rate === undefined) return undefined;
  const kinds = new Map<FaultKind, number | undefined>();
  if (kindsText === undefined || kindsText === '') {
    for (const kind of Object.keys(FAULT_KINDS) as FaultKind[]) kinds.set(kind, undefined);
  } else {
    for (const entry of kindsText.split(',')) {
      const [name = '', own, ...more] = entry.split('=');
      if (!isFaultKind(name) || more.length > 0) return undefined;
      const ownRate = own === undefined ? undefined : fraction(own);
      if (own !== undefined && ownRate === undefined) return undefined;
      kinds.set(name, ownRate);
    }
  }
  return { seed: Number(seedText), rate, kinds };
};

const faultSpec = (): Format<FaultSpec> => ({
  text: `seed:rate[:kinds], e.g. 7:5% or 7:0.2:throttle,ambiguous=0.1 (kinds: ${Object.keys(FAULT_KINDS).join(', ')})`,
  parse: parseFaultSpec,
});

export const FAULTS = {
  name: 'FAULTS',
  doc: 'Turns the local fault layer on: AWS calls throttled, failing, timing out or applied with their answer lost, queue messages duplicated or late, stream batches redelivered, consumers dying mid-way, each at its rate, from a seed (docs/reliability.md#the-fault-layer). Local runtime only.',
  format: faultSpec,
  defaultText: 'unset: no faults',
  readBy: ['npm start'],
} satisfies Setting<FaultSpec>;
