/**
 * `synapse push listen`: a local webhook receiver for an agent's push notifications (a2a-cli SPEC §7.2,
 * Tier 3). Each POST is checked as docs/push-signing.md says a receiver checks this hub's: the JWT in
 * `X-Synapse-Push-JWT` verifies with a key of the hub's JWKS, its issuer is the hub, its audience this
 * receiver's URL, it is at most five minutes old, its `jti` is new, its `body_sha256` is the body's and its
 * `taskId` the body's task; and `X-A2A-Notification-Token` is `--token` when one is given
 * (docs/deliveries.md#headers). What passes is printed (a line per event, or the StreamResponse as one
 * JSON line); what does not is answered 401 and named on stderr, never printed as an event.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { CliError } from './errors.ts';
import type { OutputFormat } from './output.ts';

/** The hub's JWT header and where its JWKS is served (docs/push-signing.md). */
export const PUSH_JWT_HEADER = 'x-synapse-push-jwt';
export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';
export const JWKS_PATH = '/.well-known/jwks.json';
/** The path the receiver listens on: the URL printed is the one the hub must be given, exactly (its `aud`). */
export const PUSH_PATH = '/push';
/** A push body is one event; anything larger is refused unread. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ListenOptions {
  host: string;
  port: number;
  /** The hub's JWKS: a URL or a file. Without one, pushes are taken unverified (a note says so). */
  jwks?: string;
  /** The config's `token`, required back in `X-A2A-Notification-Token`. */
  token?: string;
  /** The URL the agent is given when it is not this one (a tunnel, a proxy): the JWT's audience. */
  publicUrl?: string;
  /** Stop after this many notifications. */
  count?: number;
  /** Give up after this many seconds (A2ACLI_ERR_TIMEOUT, exit 5). */
  timeout?: number;
  format: OutputFormat;
  /** Told the URL once the receiver listens. */
  onListening?: (url: string) => void;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The task a push body is about: a StreamResponse's event, or a bare (v0.3) Task. */
function taskIdOf(body: Json): string | undefined {
  for (const key of ['statusUpdate', 'artifactUpdate']) {
    const event = body[key];
    if (isObject(event) && typeof event.taskId === 'string') return event.taskId;
  }
  if (isObject(body.task) && typeof body.task.id === 'string') return body.task.id;
  if (isObject(body.message) && typeof body.message.taskId === 'string')
    return body.message.taskId || undefined;
  return typeof body.id === 'string' ? body.id : undefined;
}

const shortState = (state: unknown) =>
  String(state ?? 'UNKNOWN')
    .replace(/^TASK_STATE_/, '')
    .toUpperCase();

/** One line per event: what it is, its task and context, and its state or artifact. */
export function eventLine(body: Json): string {
  const ids = (taskId: unknown, contextId: unknown) => `task ${String(taskId)} context ${String(contextId)}`;
  const status = body.statusUpdate;
  if (isObject(status))
    return `Push: status-update ${ids(status.taskId, status.contextId)} state ${shortState(isObject(status.status) ? status.status.state : undefined)}`;
  const artifact = body.artifactUpdate;
  if (isObject(artifact)) {
    const a = isObject(artifact.artifact) ? artifact.artifact : {};
    return `Push: artifact-update ${ids(artifact.taskId, artifact.contextId)} artifact ${String(a.name || a.artifactId)}`;
  }
  const task = isObject(body.task) ? body.task : body.kind === 'task' ? body : undefined;
  if (task)
    return `Push: task ${ids(task.id, task.contextId)} state ${shortState(isObject(task.status) ? task.status.state : undefined)}`;
  if (isObject(body.message))
    return `Push: message context ${String(body.message.contextId)} message ${String(body.message.messageId)}`;
  return `Push: ${Object.keys(body).join(',') || 'empty'}`;
}

/** The JWKS and the issuer to expect: the hub's public URL is where its JWKS is served from. */
function keySetOf(jwks: string): { keys: JWTVerifyGetKey; issuer?: string } {
  if (/^https?:\/\//i.test(jwks)) {
    const url = new URL(jwks);
    const issuer = url.pathname.endsWith(JWKS_PATH)
      ? `${url.origin}${url.pathname.slice(0, -JWKS_PATH.length)}`
      : undefined;
    return { keys: createRemoteJWKSet(url), ...(issuer !== undefined ? { issuer } : {}) };
  }
  try {
    return { keys: createLocalJWKSet(JSON.parse(readFileSync(jwks, 'utf8')) as JSONWebKeySet) };
  } catch (e) {
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `--jwks ${jwks}: ${(e as Error).message}`,
      'give a JWKS URL or file',
    );
  }
}

const readBody = (req: http.IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** Listens until `count` notifications were taken, the timeout, or Ctrl-C. */
export async function listen(options: ListenOptions): Promise<void> {
  const keySet = options.jwks ? keySetOf(options.jwks) : undefined;
  const seen = new Set<string>();
  let taken = 0;
  let finish: (error?: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  let audience = options.publicUrl ?? '';

  /** Why a push is refused, or undefined when it is taken; `body` is the exact bytes received. */
  const refusal = async (req: http.IncomingMessage, raw: Buffer, body: Json): Promise<string | undefined> => {
    if (options.token !== undefined && req.headers[NOTIFICATION_TOKEN_HEADER] !== options.token)
      return `the notification token is not --token`;
    if (!keySet) return undefined;
    const jwt = req.headers[PUSH_JWT_HEADER];
    if (typeof jwt !== 'string') return `no ${PUSH_JWT_HEADER} header: not signed by the hub`;
    try {
      const { payload } = await jwtVerify(jwt, keySet.keys, {
        audience,
        ...(keySet.issuer !== undefined ? { issuer: keySet.issuer } : {}),
        algorithms: ['ES256'],
        maxTokenAge: '5m',
        clockTolerance: '30s',
      });
      if (payload.body_sha256 !== createHash('sha256').update(raw).digest('base64url'))
        return 'the body is not the one the hub signed (body_sha256)';
      const bodyTask = taskIdOf(body);
      if (bodyTask !== undefined && payload.taskId !== bodyTask)
        return `the JWT is for task ${String(payload.taskId)}, the body for ${bodyTask}`;
      if (typeof payload.jti !== 'string' || seen.has(payload.jti)) return 'a replayed JWT (jti seen before)';
      seen.add(payload.jti);
      return undefined;
    } catch (e) {
      return `the JWT does not verify: ${(e as Error).message}`;
    }
  };

  const server = http.createServer(async (req, res) => {
    const answer = (status: number) => {
      if (!res.headersSent) res.writeHead(status).end();
    };
    try {
      if ((req.url ?? '').split('?')[0] !== PUSH_PATH) return answer(404);
      if (req.method !== 'POST') return answer(405);
      const raw = await readBody(req);
      if (raw === undefined) return answer(413);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        process.stderr.write('note: refused a push: its body is not JSON\n');
        return answer(400);
      }
      if (!isObject(body)) return answer(400);
      const why = await refusal(req, raw, body);
      if (why !== undefined) {
        process.stderr.write(`note: refused a push (401): ${why}\n`);
        return answer(401);
      }
      if (options.count !== undefined && taken >= options.count) return answer(503);
      taken++;
      process.stdout.write(options.format === 'json' ? `${JSON.stringify(body)}\n` : `${eventLine(body)}\n`);
      // the last one ends the run once its answer is sent, so the agent does not retry it
      if (options.count !== undefined && taken >= options.count) res.once('finish', () => finish());
      answer(200);
    } catch (e) {
      process.stderr.write(`note: a push could not be handled: ${(e as Error).message}\n`);
      answer(500);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          'A2ACLI_ERR_USAGE',
          `cannot listen on ${options.host}:${options.port}: ${e.code ?? e.message}`,
        ),
      ),
    );
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}${PUSH_PATH}`;
  audience ||= url;
  options.onListening?.(url);
  if (!keySet)
    process.stderr.write(
      'note: pushes are taken unverified: give --jwks (the hub’s JWKS) to check their JWT\n',
    );

  const timer =
    options.timeout !== undefined
      ? setTimeout(
          () =>
            finish(
              new CliError(
                'A2ACLI_ERR_TIMEOUT',
                `${taken} notification(s) in ${options.timeout} s${options.count !== undefined ? `, not ${options.count}` : ''}`,
              ),
            ),
          options.timeout * 1000,
        )
      : undefined;
  const interrupted = () => finish();
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await done;
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
