/**
 * A fault layer whose faults a test chooses (local/faults/): the same middlewares and invocation
 * scopes as FAULTS's seeded one, with `script` deciding what each place gets, so that one test shows one
 * rule against one fault.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { FaultLayer } from '../../local/faults/layer.ts';
import { installSdkFaults } from '../../local/faults/sdk.ts';
import { awsClient, SDK_RETRY } from '../../shared/adapters/aws/clients.ts';
import { FAULT_KINDS, type FaultKind } from '../../shared/config/faults.ts';

export type FaultScript = (place: string, candidates: readonly FaultKind[]) => FaultKind | undefined;

export class ScriptedFaults extends FaultLayer {
  /** Every fault given, in order, with its place. */
  readonly given: { place: string; kind: FaultKind }[] = [];

  constructor(public script: FaultScript = () => undefined) {
    super({
      seed: 1,
      rate: 0,
      kinds: new Map((Object.keys(FAULT_KINDS) as FaultKind[]).map((k) => [k, undefined])),
    });
  }

  /** Runs `work` with `script` choosing the faults (what was given before forgotten), then none. */
  async during<T>(script: FaultScript, work: () => Promise<T>): Promise<T> {
    this.script = script;
    this.given.length = 0;
    try {
      return await work();
    } finally {
      this.script = () => undefined;
    }
  }

  /** The call at which an invocation the script kills dies (1: its first AWS call). */
  dieAt = 1;

  override draw(place: string): number {
    // FaultLayer.invoke: 1 + floor(draw × 6)
    if (place.startsWith('die-at:')) return (this.dieAt - 1 + 0.5) / 6;
    return super.draw(place);
  }

  override pick(place: string, candidates: readonly FaultKind[]): FaultKind | undefined {
    if (!this.enabled) return undefined;
    const kind = this.script(place, candidates);
    if (kind === undefined || !candidates.includes(kind)) return undefined;
    this.injected[kind]++;
    this.given.push({ place, kind });
    return kind;
  }
}

/** The first `n` times `place` (a prefix) asks, `kind`; never after. */
export const firstTimes = (n: number, place: string, kind: FaultKind): FaultScript => {
  let left = n;
  return (asked, candidates) => {
    if (left <= 0 || !asked.startsWith(place) || !candidates.includes(kind)) return undefined;
    left--;
    return kind;
  };
};

/** The kinds `place` (a prefix) gets the times it asks, in order; none after. */
export const inOrder = (place: string, kinds: readonly FaultKind[]): FaultScript => {
  const left = [...kinds];
  return (asked, candidates) => {
    if (!asked.startsWith(place)) return undefined;
    const kind = left[0];
    if (kind === undefined || !candidates.includes(kind)) return undefined;
    left.shift();
    return kind;
  };
};

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

/** A DynamoDB client as the handlers build theirs (shared/adapters/aws/clients.ts), with `faults` on it. */
export const faultyDynamo = (endpoint: string, faults: FaultLayer): DynamoDBClient => {
  const client = awsClient(new DynamoDBClient({ endpoint, ...LOCAL, ...SDK_RETRY }));
  installSdkFaults(faults, client);
  return client;
};

export const faultyEventBridge = (endpoint: string, faults: FaultLayer): EventBridgeClient => {
  const client = awsClient(new EventBridgeClient({ endpoint, ...LOCAL, ...SDK_RETRY }));
  installSdkFaults(faults, client);
  return client;
};
