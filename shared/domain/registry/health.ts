/**
 * A registry health probe's report and the rule that turns it into a status (docs/registry.md#health).
 * A probe fetches the agent's card and asks each declared interface for a task that cannot exist: an
 * agent that answers TaskNotFound in its binding's form speaks A2A there, which a card URL answering
 * 200 does not show. The requests are made by shared/app/registry/probe.ts; this file holds the values
 * and the rules, no I/O.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json.ts';
import type { HealthStatus } from './record.ts';

/**
 * The card as fetched, against the live version's:
 * `unchanged`: 304 to our `If-None-Match`; `same`: fetched, same digest; `drifted`: fetched, another
 * digest (the agent serves a card the registry has not reviewed); `failed`: no card (no answer, not
 * 200/304, not a JSON object).
 */
export type CardCheckStatus = 'unchanged' | 'same' | 'drifted' | 'failed';

export interface CardCheck {
  status: CardCheckStatus;
  /** The URL fetched. */
  url?: string;
  httpStatus?: number;
  /** The answer's ETag (a 304 without one: the ETag sent), for the next probe's `If-None-Match`. */
  etag?: string;
  /** cardDigest() of the fetched card (absent on 304 and failures). */
  digest?: string;
  latencyMs: number;
  error?: string;
}

/**
 * What one interface answered to GetTask of an id that cannot exist:
 * `task-not-found`: TaskNotFound in the binding's form (ok);
 * `auth-required`: 401 with a `WWW-Authenticate` challenge (ok: alive and guarded, RFC 9110 §11.6.1;
 * A2A puts authentication at the transport (A2A: error handling), so an agent that demands credentials
 * before dispatch cannot answer TaskNotFound to the registry);
 * `unexpected`: an answer, but not TaskNotFound (a task for an id that cannot exist, another error,
 * a page that is not A2A);
 * `failed`: no answer (timeout, connection, refused by the SSRF guard);
 * `skipped`: a binding or version the probe does not speak (gRPC, a custom binding): not counted.
 */
export type InterfaceOutcome = 'task-not-found' | 'auth-required' | 'unexpected' | 'failed' | 'skipped';

export interface InterfaceCheck {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  /** task-not-found or auth-required. */
  ok: boolean;
  outcome: InterfaceOutcome;
  latencyMs: number;
  httpStatus?: number;
  error?: string;
}

export interface ProbeReport {
  status: HealthStatus;
  /** ISO time the probe started. */
  checkedAt: string;
  card: CardCheck;
  interfaces: InterfaceCheck[];
}

/**
 * The status of a probe (docs/registry.md#status):
 *
 * | interfaces probed (skipped ones aside) | card                  | status        |
 * |----------------------------------------|-----------------------|---------------|
 * | all ok                                 | unchanged or same     | `healthy`     |
 * | all ok                                 | drifted or failed     | `degraded`    |
 * | some ok                                | any                   | `degraded`    |
 * | none ok                                | any                   | `unreachable` |
 * | none probed (all skipped)              | unchanged or same     | `unknown`     |
 * | none probed                            | drifted               | `degraded`    |
 * | none probed                            | failed                | `unreachable` |
 */
export const healthOf = (card: CardCheckStatus, interfaces: readonly InterfaceCheck[]): HealthStatus => {
  const probed = interfaces.filter((i) => i.outcome !== 'skipped');
  const cardOk = card === 'unchanged' || card === 'same';
  if (probed.length === 0) return cardOk ? 'unknown' : card === 'drifted' ? 'degraded' : 'unreachable';
  const ok = probed.filter((i) => i.ok).length;
  if (ok === 0) return 'unreachable';
  return ok === probed.length && cardOk ? 'healthy' : 'degraded';
};

/**
 * A card's digest: `sha256:` and the base64url SHA-256 of its RFC 8785 canonical JSON, so equal cards
 * digest equally whatever their key order or whitespace. The registry stores this of a version's card
 * as published (the document fetched or posted, not its v1.0 normalization) for the probe to compare.
 */
export const cardDigest = (card: unknown): string =>
  `sha256:${createHash('sha256').update(canonicalJson(card)).digest('base64url')}`;
