/**
 * Logging and metrics for the Lambda functions (Powertools for AWS
 * Lambda), wired with middy through `withObservability`.
 *
 * - Logger: structured JSON on stdout (CloudWatch Logs); `appendTaskKeys` adds
 *   `taskId` / `contextId` / `requestId` to every line of the invocation.
 * - Metrics: CloudWatch Embedded Metric Format, namespace `Synapse`, names in
 *   `./names.ts` (also used by the dashboard and alarms).
 * - Tracing: X-Ray by Lambda's active tracing and API Gateway's (a segment per
 *   invocation, linked from the API). No X-Ray SDK in the bundles: it costs
 *   about 105 KB and an async hook on every promise (cold start and latency,
 *   measured by `npm run bench`), so AWS SDK calls are not traced one by one.
 *
 * Outside Lambda (the local runtime, tests, plain Node) nothing crashes and
 * nothing spams stdout: metrics are disabled unless `POWERTOOLS_METRICS_DISABLED`
 * says otherwise (or `metricsEnabled` is passed). "In Lambda" means
 * `AWS_LAMBDA_FUNCTION_NAME` is set.
 */

import type { Readable } from 'node:stream';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj, type MiddyfiedHandler } from '@middy/core';
import type { Context } from 'aws-lambda';
import { type Env, setEnvironment, withEnvironment } from '../config/environment.ts';
import {
  AWS_LAMBDA_FUNCTION_NAME,
  POWERTOOLS_DEV,
  POWERTOOLS_METRICS_DISABLED,
  POWERTOOLS_METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
} from '../config/observability.ts';
import { readSetting } from '../config/settings.ts';
import { MetricDimension, MetricName } from './names.ts';
import { redactSecrets } from './redact.ts';

export { METRICS_NAMESPACE, MetricName } from './names.ts';

export interface Observability {
  logger: Logger;
  metrics: SynapseMetrics;
}

export interface ObservabilityOptions {
  /** `service` key/dimension; default POWERTOOLS_SERVICE_NAME, else `synapse`. */
  serviceName?: string;
  /** Metrics namespace; default POWERTOOLS_METRICS_NAMESPACE, else `Synapse`. */
  namespace?: string;
  /** Emit EMF metrics; default: env POWERTOOLS_METRICS_DISABLED if set, else only in Lambda (and not POWERTOOLS_DEV). */
  metricsEnabled?: boolean;
  /** Default LOG_LEVEL / POWERTOOLS_LOG_LEVEL, else INFO. */
  logLevel?: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';
}

/** True inside a Lambda execution environment. */
export const isLambdaRuntime = (env?: Env): boolean =>
  readSetting(AWS_LAMBDA_FUNCTION_NAME, env) !== undefined;

const defaultMetricsEnabled = (): boolean => {
  const disabled = readSetting(POWERTOOLS_METRICS_DISABLED);
  if (disabled !== undefined) return !disabled;
  return isLambdaRuntime() && !readSetting(POWERTOOLS_DEV);
};

/**
 * Powertools reads POWERTOOLS_METRICS_DISABLED whenever a `Metrics` is
 * constructed (also for each `singleMetric()`) and has no option for it, so the
 * decision is applied through the variable for the (synchronous) duration of
 * those constructions only; the process environment is left as it was.
 */
const metricsEnv = (enabled: boolean) => ({ [POWERTOOLS_METRICS_DISABLED.name]: enabled ? 'false' : 'true' });

type MetricsOptions = NonNullable<ConstructorParameters<typeof Metrics>[0]>;

/** Metrics whose enabled/disabled state is decided by us, not by the ambient environment. */
export class SynapseMetrics extends Metrics {
  readonly enabled: boolean;

  constructor(options: MetricsOptions, enabled: boolean) {
    const restore = setEnvironment(metricsEnv(enabled));
    try {
      super(options);
    } finally {
      restore();
    }
    this.enabled = enabled;
  }

  override singleMetric(): Metrics {
    return withEnvironment(metricsEnv(this.enabled), () => super.singleMetric());
  }
}

/** Creates a logger and metrics; the module-level ones below serve the functions. */
export const createObservability = (options: ObservabilityOptions = {}): Observability => {
  const serviceName = options.serviceName ?? readSetting(POWERTOOLS_SERVICE_NAME);
  const logger = new Logger({
    serviceName,
    // credentials and signatures never reach a log line, whatever is logged (redact.ts)
    jsonReplacerFn: redactSecrets,
    ...(options.logLevel ? { logLevel: options.logLevel } : {}),
  });
  // Metrics' own warnings go through the structured logger; the routine "no
  // application metrics to publish" (a request that counted nothing) is debug noise.
  const text = (a: unknown[]): string => a.map(String).join(' ');
  const metricsLog = {
    trace: (...a: unknown[]) => logger.trace(text(a)),
    debug: (...a: unknown[]) => logger.debug(text(a)),
    info: (...a: unknown[]) => logger.info(text(a)),
    warn: (...a: unknown[]) =>
      text(a).startsWith('No application metrics to publish') ? logger.debug(text(a)) : logger.warn(text(a)),
    error: (...a: unknown[]) => logger.error(text(a)),
  };
  const metricsEnabled = options.metricsEnabled ?? defaultMetricsEnabled();
  const metrics = new SynapseMetrics(
    {
      namespace: options.namespace ?? readSetting(POWERTOOLS_METRICS_NAMESPACE),
      serviceName,
      logger: metricsLog,
    },
    metricsEnabled,
  );
  return { logger, metrics };
};

/** The process-wide instances the functions use. */
export const observability: Observability = createObservability();
export const { logger, metrics } = observability;

export interface TaskKeys {
  taskId?: string | undefined;
  contextId?: string | undefined;
  /** The request's id (JSON-RPC id or API Gateway request id). */
  requestId?: string | number | undefined;
}

/** Adds the task's keys to every following log line of this invocation (reset after it). */
export const appendTaskKeys = (keys: TaskKeys, target: Logger = logger): void => {
  const defined = Object.fromEntries(
    Object.entries(keys).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  );
  if (Object.keys(defined).length > 0) target.appendKeys(defined);
};

/** Adds `value` to a custom count metric (published when the invocation ends). */
export const countMetric = (name: MetricName, value = 1, target: Metrics = metrics): void => {
  target.addMetric(name, MetricUnit.Count, value);
};

/** Counts one applied transition with its event type as the `EventType` dimension. */
export const countTransition = (eventType: string, target: Metrics = metrics): void => {
  const single = target.singleMetric();
  single.addDimension(MetricDimension.EventType, eventType);
  single.addMetric(MetricName.Transitions, MetricUnit.Count, 1);
};

export interface WithObservabilityOptions {
  /** Logical function name (`jsonrpc`, `executor`, …); stands in for the Lambda context's name locally. */
  functionName: string;
  /** Log the incoming event (default: POWERTOOLS_LOGGER_LOG_EVENT). */
  logEvent?: boolean;
  /** Instances to use; default the module-level ones. */
  observability?: Observability;
  /**
   * A response-streaming handler (Lambda response streaming, API Gateway's STREAM transfer mode):
   * middy's `streamifyResponse`, which wraps the handler with the runtime's `awslambda.streamifyResponse`
   * when the module is loaded. The handler returns `{statusCode, headers, body}`, the body a string or a
   * Readable that is written to the client as it comes; the middlewares' `after` (metrics flushed, log
   * keys reset) run once the handler returned, before the body is written.
   *
   * Where there is no `awslambda` global (plain Node: the bundle tests, the benchmark's handlers) the
   * handler is a buffered one instead: a Readable body is read to its end and returned as a string.
   * The local runtime installs a stand-in for the global (local/lambda-streaming.ts) before it loads
   * the handlers.
   */
  streamifyResponse?: boolean;
}

export type BaseHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

/** Whether the Lambda runtime's response streaming (`awslambda.streamifyResponse`) is at hand. */
export const canStreamResponses = (): boolean =>
  typeof (globalThis as { awslambda?: { streamifyResponse?: unknown } }).awslambda?.streamifyResponse ===
  'function';

const isReadable = (body: unknown): body is Readable =>
  typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';

/** Without response streaming: a streamed body is read to its end, so the result is a plain proxy result. */
const bufferStreamedBody = <TEvent, TResult>(): MiddlewareObj<TEvent, TResult, Error, Context> => ({
  after: async (request) => {
    const response = request.response as { body?: unknown } | undefined;
    if (!response || !isReadable(response.body)) return;
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
    }
    request.response = { ...response, body: Buffer.concat(chunks).toString('utf8') } as TResult;
  },
});

/**
 * Wraps a handler with the Powertools middlewares: Lambda context and
 * per-invocation keys in the logs (reset after each invocation), EMF metrics
 * flushed at the end (with the ColdStart metric).
 */
export const withObservability = <TEvent, TResult>(
  handler: BaseHandler<TEvent, TResult>,
  options: WithObservabilityOptions,
): MiddyfiedHandler<TEvent, TResult, Error, Context> => {
  const { logger: log, metrics: met } = options.observability ?? observability;
  // Locally the context may be missing or partial: give it the logical name.
  const fillContext: MiddlewareObj<TEvent, TResult, Error, Context> = {
    before: (request) => {
      if (!request.context.functionName) {
        (request.context as { functionName: string }).functionName = options.functionName;
      }
    },
  };
  const streaming = options.streamifyResponse === true && canStreamResponses();
  const wrapped = middy<TEvent, TResult, Error, Context>(
    handler,
    streaming ? { streamifyResponse: true } : {},
  )
    .use(fillContext)
    .use(
      injectLambdaContext(log, {
        resetKeys: true,
        ...(options.logEvent !== undefined ? { logEvent: options.logEvent } : {}),
      }),
    )
    .use(logMetrics(met, { captureColdStartMetric: true }));
  // middy runs `after`s in reverse order of use: the body is read before the metrics are flushed
  if (options.streamifyResponse && !streaming) wrapped.use(bufferStreamedBody<TEvent, TResult>());
  return wrapped;
};
