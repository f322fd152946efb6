/**
 * One local hub of a chaos run, in a process of its own (test/chaos/run.ts forks two): modules and the AWS
 * clients the handlers build are cached per process, so two hubs with their own fault layers cannot share
 * one. It starts the hub with the options the parent sends, says `ready` with the hub's addresses, then
 * answers the parent's commands over IPC: faults off, fault counts, sweep, relay caught up, stop.
 */
import { appendFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { type LocalHub, type LocalHubOptions, startLocalHub } from '../../local/hub.ts';

export interface ChildStart {
  port: number;
  dynamoEndpoint: string;
  env: Record<string, string>;
  agentModule: string;
  visibilityTimeoutCapSeconds: number;
  sweepIntervalMs: number;
  logFile: string;
}

export interface ChildReady {
  url: string;
  tableName: string;
  dynamoEndpoint: string;
  queueUrls: Record<string, string>;
  sqsEndpoint: string;
}

export type ChildCommand = 'faults-off' | 'counts' | 'sweep' | 'caught-up' | 'stop';

type FromParent = { start: ChildStart } | { id: number; command: ChildCommand };

const send = (message: unknown) => process.send?.(message);

let hub: LocalHub | undefined;

const run = async (command: ChildCommand): Promise<unknown> => {
  if (!hub) throw new Error('the hub is not started');
  switch (command) {
    case 'faults-off':
      hub.faults?.disable();
      return null;
    case 'counts':
      return hub.faults?.counts() ?? {};
    case 'sweep':
      await hub.sweep();
      return null;
    case 'caught-up':
      await hub.relayCaughtUp();
      return null;
    case 'stop':
      await hub.stop();
      hub = undefined;
      return null;
  }
};

process.on('message', (message: FromParent) => {
  if ('start' in message) {
    const { logFile, ...start } = message.start;
    const log: LocalHubOptions['log'] = (text, error) =>
      appendFileSync(
        logFile,
        `${new Date().toISOString()} ${text}${error === undefined ? '' : ` ${inspect(error)}`}\n`,
      );
    startLocalHub({ ...start, log }).then(
      (started) => {
        hub = started;
        const ready: ChildReady = {
          url: started.url,
          tableName: started.tableName,
          dynamoEndpoint: started.dynamoEndpoint,
          queueUrls: started.queueUrls,
          sqsEndpoint: started.sqsEndpoint,
        };
        send({ ready });
      },
      (e: unknown) => send({ failed: inspect(e) }),
    );
    return;
  }
  run(message.command).then(
    (result) => {
      send({ id: message.id, result });
      if (message.command === 'stop') process.disconnect();
    },
    (e: unknown) => send({ id: message.id, error: inspect(e) }),
  );
});

// the parent is gone (killed, Ctrl-C): nothing of this hub may outlive it
process.on('disconnect', () => {
  const stopping = hub?.stop(500) ?? Promise.resolve();
  void stopping.finally(() => process.exit(0));
});
