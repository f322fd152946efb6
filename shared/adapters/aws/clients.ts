/**
 * Every AWS client the handlers build goes through `awsClient` (docs/reliability.md#the-sdk):
 *
 * - the SDK's `standard` retry mode, 3 attempts: throttling, 5xx and timeouts are retried with backoff by
 *   the SDK itself, inside the call;
 * - what still fails after those retries because the service stayed throttled, failing or silent
 *   leaves the client as an `UnavailableError` (the domain's "nothing written, send again"), which every
 *   binding answers as its protocol's retryable error (HTTP 503 with `Retry-After`, `p2p:nack
 *   agent_not_ready`) and every consumer reports as a failed record that comes back;
 * - a process may hook every client as it is built (the local runtime's fault layer, local/faults/,
 *   when FAULTS is set): nothing of that is in a deployed bundle.
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { SdkError } from '@smithy/types';
import { UnavailableError } from '../../domain/errors.ts';

/** The part of an SDK v3 client this module touches (every client and the DynamoDB document client). */
export interface AwsClient {
  middlewareStack: {
    add(
      middleware: unknown,
      options: { step: string; name: string; priority?: string; override?: boolean },
    ): void;
  };
  config: { serviceId?: string };
}

/** The retry settings every client is built with. */
export const SDK_RETRY = { retryMode: 'standard', maxAttempts: 3 } as const;

type Hook = (client: AwsClient) => void;
let hook: Hook | undefined;

/** Sets (or, undefined, clears) what is done to every client built from now on in this process. */
export const setAwsClientHook = (next: Hook | undefined): void => {
  hook = next;
};

/** A failure the caller may simply send again: throttling, a service fault, a timeout or a dropped connection. */
export const isUnavailability = (e: unknown): boolean => {
  if (!e || typeof e !== 'object' || e instanceof UnavailableError) return false;
  const error = e as SdkError;
  return isThrottlingError(error) || isTransientError(error) || isServerError(error);
};

type Next = (args: unknown) => Promise<unknown>;
interface HandlerContext {
  commandName?: string;
}

/** Outermost (initialize, high priority): sees what the SDK's retries could not mend. */
const unavailableAfterRetries =
  (service: string) => (next: Next, context: HandlerContext) => async (args: unknown) => {
    try {
      return await next(args);
    } catch (e) {
      if (!isUnavailability(e)) throw e;
      const command = (context.commandName ?? 'request').replace(/Command$/, '');
      throw new UnavailableError(`${service} ${command} (${(e as SdkError).name ?? 'error'})`, 1, {
        cause: e,
      });
    }
  };

/** `client`, with the hub's error translation and this process's hook. */
export const awsClient = <C extends { middlewareStack: object; config: object }>(built: C): C => {
  // clients of other SDK releases carry their own copy of the stack's types: the shape is the same
  const client = built as unknown as AwsClient;
  const service = client.config.serviceId ?? 'AWS';
  client.middlewareStack.add(unavailableAfterRetries(service), {
    step: 'initialize',
    name: 'synapseUnavailableAfterRetries',
    priority: 'high',
    override: true,
  });
  hook?.(client);
  return built;
};
