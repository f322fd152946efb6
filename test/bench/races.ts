/**
 * Races at volume: a thousand trials of twenty writers at once on one task
 * (test/support/race.ts), on DynamoDB Local. Every lost race must come back
 * as a refusal or a re-decided write, never as an overwrite: the figures
 * that must be 0 are printed next to the totals.
 */
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import type { TestTable } from '../support/dynamo.ts';
import { raceOnce } from '../support/race.ts';

export interface RaceResult {
  trials: number;
  writers: number;
  writes: number;
  won: number;
  refused: number;
  gaveUp: number;
  conflictsRetried: number;
  /** These must all be 0. */
  unexpectedErrors: number;
  lostEvents: number;
  strayEvents: number;
  missingVersions: number;
  terminalOverwrites: number;
  changedAfterTerminal: number;
}

export const benchRaces = async (table: TestTable, trials = 1000, writers = 20): Promise<RaceResult> => {
  let conflictsRetried = 0;
  const engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }), {
    observer: { created: () => {}, transitioned: () => {}, conflictLost: () => void conflictsRetried++ },
  });
  const total: RaceResult = {
    trials,
    writers,
    writes: 0,
    won: 0,
    refused: 0,
    gaveUp: 0,
    conflictsRetried: 0,
    unexpectedErrors: 0,
    lostEvents: 0,
    strayEvents: 0,
    missingVersions: 0,
    terminalOverwrites: 0,
    changedAfterTerminal: 0,
  };
  for (let trial = 0; trial < trials; trial++) {
    const r = await raceOnce(engine, engine.store, 'bench', 'races', writers, trial);
    total.writes += r.writers;
    total.won += r.won;
    total.refused += r.refused;
    total.gaveUp += r.gaveUp;
    total.unexpectedErrors += r.unexpected.length;
    total.lostEvents += r.lostEvents;
    total.strayEvents += r.strayEvents;
    total.missingVersions += r.missingVersions;
    if (r.terminalOverwritten) total.terminalOverwrites++;
    if (r.changedAfterTerminal) total.changedAfterTerminal++;
  }
  total.conflictsRetried = conflictsRetried;
  return total;
};
