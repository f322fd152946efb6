/**
 * The fault layer on an AWS SDK v3 client (docs/reliability.md#the-fault-layer), as two middlewares:
 *
 * - inside the SDK's retry loop (finalizeRequest, after the retry middleware), on each attempt: a
 *   throttle, a 500 or a timeout before the request is sent, or, after it was sent and applied, a timeout
 *   instead of its answer (ambiguous). The SDK retries them as it would the real ones;
 * - outside it (initialize), once per call: PutEvents answering some of its entries failed (and not
 *   publishing those).
 *
 * Both first ask whether the invocation the call belongs to has died (function-dies).
 */
import type { AwsClient } from '../../shared/adapters/aws/clients.ts';
import type { FaultLayer } from './layer.ts';

type Args = { input: Record<string, unknown>; request?: unknown };
type Next = (args: Args) => Promise<{ output: Record<string, unknown>; response?: unknown }>;

/** An error as the SDK builds a service's (name, fault, metadata), so the SDK classifies it as it would. */
const serviceError = (name: string, message: string, httpStatusCode: number, fault: 'client' | 'server') =>
  Object.assign(new Error(`${message} (injected)`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode, attempts: 1, totalRetryDelay: 0 },
  });

const timeoutError = (message: string) =>
  Object.assign(new Error(`${message} (injected)`), { name: 'TimeoutError', code: 'ETIMEDOUT' });

const throttleName = (service: string): string =>
  service === 'DynamoDB' ? 'ProvisionedThroughputExceededException' : 'ThrottlingException';

export const installSdkFaults = (
  layer: FaultLayer,
  built: { middlewareStack: object; config: object },
): void => {
  const client = built as unknown as AwsClient;
  const service = client.config.serviceId ?? 'AWS';

  const perAttempt = (next: Next, context: { commandName?: string }) => async (args: Args) => {
    layer.checkAlive();
    const operation = (context.commandName ?? 'request').replace(/Command$/, '');
    const kind = layer.pick(`sdk:${service}.${operation}`, [
      'throttle',
      'server-error',
      'timeout',
      'ambiguous',
    ]);
    if (kind === 'throttle')
      throw serviceError(throttleName(service), 'Rate of requests exceeded', 400, 'client');
    if (kind === 'server-error')
      throw serviceError('InternalServerError', 'Internal server error', 500, 'server');
    if (kind === 'timeout') throw timeoutError(`${service} ${operation}: no answer before the timeout`);
    const answer = await next(args);
    if (kind === 'ambiguous') throw timeoutError(`${service} ${operation}: applied, its answer lost`);
    return answer;
  };

  const failedEntries = (next: Next, context: { commandName?: string }) => async (args: Args) => {
    const entries = args.input.Entries;
    if (context.commandName !== 'PutEventsCommand' || !Array.isArray(entries) || entries.length === 0)
      return next(args);
    if (layer.pick(`sdk:${service}.PutEvents.entries`, ['eventbridge-failed-entries']) === undefined)
      return next(args);
    // at least one entry fails, possibly all
    const failing = new Set<number>();
    for (let i = 0; i < entries.length; i++)
      if (failing.size === 0 || layer.draw(`failed-entry:${service}`) < 0.5) failing.add(i);
    const kept = entries.filter((_, i) => !failing.has(i));
    const sent = kept.length
      ? await next({ ...args, input: { ...args.input, Entries: kept } })
      : { output: { $metadata: { httpStatusCode: 200 }, FailedEntryCount: 0, Entries: [] } };
    const answered = [...((sent.output.Entries as unknown[] | undefined) ?? [])];
    const merged = entries.map((_, i) =>
      failing.has(i)
        ? { ErrorCode: 'InternalFailure', ErrorMessage: 'The entry could not be published (injected)' }
        : answered.shift(),
    );
    return {
      ...sent,
      output: {
        ...sent.output,
        FailedEntryCount: Number(sent.output.FailedEntryCount ?? 0) + failing.size,
        Entries: merged,
      },
    };
  };

  client.middlewareStack.add(perAttempt, {
    step: 'finalizeRequest',
    name: 'synapseFaultsPerAttempt',
    priority: 'low',
    override: true,
  });
  client.middlewareStack.add(failedEntries, {
    step: 'initialize',
    name: 'synapseFaultsFailedEntries',
    priority: 'low',
    override: true,
  });
};
