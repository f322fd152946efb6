/** Shared builders for the protocol unit tests. */
import assert from 'node:assert/strict';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { Artifact, Message, TaskHead, TaskView } from '../../../../shared/domain/task.ts';
import { A2AProtocolError } from '../../../../shared/protocol/a2a/index.ts';

export const T0 = '2025-01-01T00:00:00.000Z';
export const T1 = '2025-01-01T00:00:01.000Z';

export function head(overrides: Partial<TaskHead> = {}): TaskHead {
  return {
    taskId: 't1',
    tenant: 'tenant-a',
    owner: 'owner-a',
    contextId: 'c1',
    state: 'executing',
    version: 2,
    role: 'executor',
    protocol: 'a2a',
    createdAt: T0,
    statusAt: T1,
    deadlineAt: T1,
    ...overrides,
  };
}

export const userMessage = (overrides: Partial<Message> = {}): Message => ({
  messageId: 'm1',
  role: 'user',
  parts: [{ text: 'hello' }],
  taskId: 't1',
  contextId: 'c1',
  ...overrides,
});

export const agentMessage = (overrides: Partial<Message> = {}): Message => ({
  messageId: 'a1',
  role: 'agent',
  parts: [{ text: 'which city?' }],
  taskId: 't1',
  contextId: 'c1',
  ...overrides,
});

export const artifact = (overrides: Partial<Artifact> = {}): Artifact => ({
  artifactId: 'r1',
  name: 'result',
  parts: [{ text: 'done' }],
  ...overrides,
});

export function view(
  opts: { state?: SynapseState; history?: Message[]; artifacts?: Artifact[]; head?: Partial<TaskHead> } = {},
): TaskView {
  return {
    head: head({ ...(opts.state ? { state: opts.state } : {}), ...opts.head }),
    history: opts.history ?? [userMessage()],
    artifacts: opts.artifacts ?? [],
  };
}

/** Run `fn`, assert it throws an A2AProtocolError with `code`, and return the error. */
export function expectProtocolError(fn: () => unknown, code: number): A2AProtocolError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof A2AProtocolError, `expected A2AProtocolError, got ${String(e)}`);
    assert.equal(e.code, code, `expected code ${code}, got ${e.code}: ${e.message}`);
    return e;
  }
  assert.fail(`expected an A2AProtocolError with code ${code}, nothing was thrown`);
}

/** Assert a -32602 whose violations include one for `field` (description matching `description` if given). */
export function expectViolation(fn: () => unknown, field: string, description?: RegExp): A2AProtocolError {
  const err = expectProtocolError(fn, -32602);
  const fields = (err.fieldViolations ?? []).map((v) => `${v.field}: ${v.description}`);
  const hit = err.fieldViolations?.find((v) => v.field === field);
  assert.ok(hit, `no violation for ${field}; got ${JSON.stringify(fields)}`);
  if (description) assert.match(hit.description, description);
  return err;
}

/** Every key anywhere in a JSON value (for "never emit X" checks). */
export function allKeys(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) allKeys(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      allKeys(v, out);
    }
  }
  return out;
}
