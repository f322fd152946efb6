/**
 * A Secrets Manager stand-in for the rotation steps (SecretVersionStore), with
 * the service's staging-label rules: one version per ClientRequestToken, a
 * label on one version at a time, AWSPREVIOUS given to the version AWSCURRENT
 * leaves. `rotate()` drives a rotation as RotateSecret does: the token is
 * staged AWSPENDING (with no value yet) before the first step, then the four
 * steps are invoked in order.
 */
import { randomUUID } from 'node:crypto';
import {
  AWSCURRENT,
  AWSPENDING,
  type RotationEvent,
  type RotationStep,
  type SecretDescription,
  type SecretVersionStore,
} from '../../../../shared/adapters/keys/rotation.ts';

export const SECRET_ID = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:push-keys-AbCdEf';

export const ROTATION_STEPS: readonly RotationStep[] = [
  'createSecret',
  'setSecret',
  'testSecret',
  'finishSecret',
];

interface Version {
  value?: string;
  stages: Set<string>;
}

export class FakeSecret implements SecretVersionStore {
  readonly versions = new Map<string, Version>();
  rotationEnabled = true;
  /** Every call, in order (values left out). */
  readonly calls: string[] = [];

  constructor(initial = '{"keys":[]}') {
    this.versions.set('v0', { value: initial, stages: new Set([AWSCURRENT]) });
  }

  private check(secretId: string) {
    if (secretId !== SECRET_ID) throw new Error(`ResourceNotFoundException: ${secretId}`);
  }

  private takeStage(stage: string, versionId: string) {
    for (const [id, v] of this.versions) if (id !== versionId) v.stages.delete(stage);
    this.versions.get(versionId)?.stages.add(stage);
  }

  async describe(secretId: string): Promise<SecretDescription> {
    this.check(secretId);
    this.calls.push('describe');
    return {
      rotationEnabled: this.rotationEnabled,
      versions: Object.fromEntries([...this.versions].map(([id, v]) => [id, [...v.stages]])),
    };
  }

  async getValue(secretId: string, select: { stage: string; versionId?: string }) {
    this.check(secretId);
    this.calls.push(`get ${select.stage}${select.versionId ? ` ${select.versionId}` : ''}`);
    for (const [id, v] of this.versions) {
      if (select.versionId && id !== select.versionId) continue;
      if (v.stages.has(select.stage) && v.value !== undefined) return v.value;
    }
    return undefined;
  }

  async putValue(secretId: string, versionId: string, value: string, stages: readonly string[]) {
    this.check(secretId);
    this.calls.push(`put ${versionId} ${stages.join(',')}`);
    const existing = this.versions.get(versionId);
    if (existing?.value !== undefined && existing.value !== value) {
      throw new Error('ResourceExistsException: the version exists with another value');
    }
    if (existing) existing.value = value;
    else this.versions.set(versionId, { value, stages: new Set() });
    for (const stage of stages) this.takeStage(stage, versionId);
  }

  async moveStage(secretId: string, stage: string, toVersionId: string, fromVersionId: string | undefined) {
    this.check(secretId);
    this.calls.push(`move ${stage} ${fromVersionId} -> ${toVersionId}`);
    const holder = [...this.versions].find(([, v]) => v.stages.has(stage))?.[0];
    if (holder && holder !== toVersionId && holder !== fromVersionId) {
      throw new Error(`InvalidParameterException: ${stage} is on ${holder}, not on ${fromVersionId}`);
    }
    if (stage === AWSCURRENT && holder && holder !== toVersionId) this.takeStage('AWSPREVIOUS', holder);
    this.takeStage(stage, toVersionId);
  }

  /** The value staged AWSCURRENT. */
  current(): string {
    return [...this.versions.values()].find((v) => v.stages.has(AWSCURRENT))!.value!;
  }

  /** RotateSecret: stages a new token AWSPENDING (no value yet), then invokes each step. */
  startRotation(token: string = randomUUID()): string {
    for (const v of this.versions.values()) v.stages.delete(AWSPENDING);
    this.versions.set(token, { stages: new Set([AWSPENDING]) });
    return token;
  }

  async rotate(invoke: (event: RotationEvent) => Promise<void>, token?: string): Promise<string> {
    const id = this.startRotation(token);
    for (const step of ROTATION_STEPS)
      await invoke({ Step: step, SecretId: SECRET_ID, ClientRequestToken: id });
    return id;
  }
}
