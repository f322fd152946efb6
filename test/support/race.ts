/**
 * One race: a task just claimed by an executor, and N writers at once that
 * each try one move on it (cancel, complete, fail, progress, or an agent's
 * outcome: artifact + complete in one write). What the store holds after it
 * is checked against what the writers were told: the integration test runs a
 * few dozen of these, the benchmark a thousand.
 */

import type { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { ConflictError, InvalidTransitionError } from '../../shared/domain/errors.ts';
import { isTerminal } from '../../shared/domain/states.ts';
import type { TaskStore } from '../../shared/ports/task-store.ts';

const KINDS = ['cancel', 'complete', 'fail', 'status_update', 'status_update', 'outcome'] as const;

export interface RaceOutcome {
  writers: number;
  /** Writes that landed. */
  won: number;
  /** Writes refused by the transition table (the task had moved on): the expected loss. */
  refused: number;
  /** Writers that ran out of attempts (ConflictError). */
  gaveUp: number;
  /** Anything else a writer threw (must be none). */
  unexpected: string[];
  /** Writers told their terminal write won (must be exactly 1). */
  terminalWins: number;
  /** The stored state is not the one the terminal winner wrote. */
  terminalOverwritten: boolean;
  /** Versions 1..n with no gap: the number missing. */
  missingVersions: number;
  /** Events written by a winner and not stored as written, or stored twice. */
  lostEvents: number;
  /** Stored events that no winner wrote (beyond the task's first three). */
  strayEvents: number;
  /** Events after the terminal one, or more than one terminal event. */
  changedAfterTerminal: boolean;
}

export const raceOnce = async (
  engine: TaskEngine,
  store: TaskStore,
  tenant: string,
  owner: string,
  writers: number,
  trial: number,
): Promise<RaceOutcome> => {
  const created = await engine.create({
    tenant,
    owner,
    message: { messageId: crypto.randomUUID(), role: 'user', parts: [{ text: 'work' }] },
  });
  const { head } = (await engine.apply(created.head, [{ type: 'confirm' }, { type: 'start' }])).record;
  const kinds = Array.from({ length: writers }, () => KINDS[Math.floor(Math.random() * KINDS.length)]!);
  if (!kinds.some((k) => k !== 'status_update')) kinds[0] = 'cancel';
  const results = await Promise.allSettled(
    kinds.map(async (type) => {
      await new Promise((r) => setTimeout(r, Math.random() * 3));
      if (type === 'outcome') {
        return engine.apply(head, [
          { type: 'artifact', artifact: { artifact: { artifactId: `a${trial}`, parts: [{ text: 'r' }] } } },
          { type: 'complete' },
        ]);
      }
      return engine.apply(head, type === 'status_update' ? { type, progress: trial % 100 } : { type });
    }),
  );
  const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  let refused = 0;
  let gaveUp = 0;
  const unexpected: string[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') continue;
    if (r.reason instanceof InvalidTransitionError) refused++;
    else if (r.reason instanceof ConflictError) gaveUp++;
    else unexpected.push(String(r.reason));
  }
  const terminal = won.filter((w) => isTerminal(w.head.state));
  const final = await store.get(head);
  if (!final) throw new Error(`task ${head.taskId} vanished`);
  const stored = await store.events(final, 0);
  const versions = new Set(stored.map((e) => e.version));
  let missingVersions = 0;
  for (let v = 1; v <= final.head.version; v++) if (!versions.has(v)) missingVersions++;
  const byVersion = new Map(stored.map((e) => [e.version, e]));
  const written = won.flatMap((w) => w.events);
  const writtenVersions = new Set(written.map((e) => e.version));
  const lostEvents =
    written.length -
    writtenVersions.size +
    written.filter((e) => byVersion.get(e.version)?.type !== e.type).length;
  const terminalIndex = stored.findIndex((e) => isTerminal(e.to));
  return {
    writers,
    won: won.length,
    refused,
    gaveUp,
    unexpected,
    terminalWins: terminal.length,
    terminalOverwritten: terminal.length !== 1 || final.head.state !== terminal[0]!.head.state,
    missingVersions,
    lostEvents,
    strayEvents: stored.filter((e) => e.version > 3 && !writtenVersions.has(e.version)).length,
    changedAfterTerminal:
      terminalIndex !== stored.length - 1 || stored.filter((e) => isTerminal(e.to)).length !== 1,
  };
};
