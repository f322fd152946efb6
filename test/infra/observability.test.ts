/**
 * shared/observability outside Lambda: a wrapped handler runs in plain Node,
 * metrics stay off (no EMF on stdout) unless enabled, and when enabled the EMF
 * objects carry the Synapse namespace and the metric names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'aws-lambda';
import {
  appendTaskKeys,
  countMetric,
  countTransition,
  createObservability,
  isLambdaRuntime,
  METRICS_NAMESPACE,
  MetricName,
  type Observability,
  withObservability,
} from '../../shared/observability/index.ts';

/** Runs `fn` and returns what it wrote to stdout, one parsed JSON object (or raw string) per line. */
const captureStdout = async <T>(fn: () => Promise<T>): Promise<{ result: T; lines: unknown[] }> => {
  const chunks: string[] = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  try {
    const result = await fn();
    const lines = chunks
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as unknown;
        } catch {
          return l;
        }
      });
    return { result, lines };
  } finally {
    process.stdout.write = original;
  }
};

type Emf = { _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] } } & Record<
  string,
  unknown
>;
const emfOf = (lines: unknown[]): Emf[] =>
  lines.filter((l): l is Emf => typeof l === 'object' && l !== null && '_aws' in l);
const logsOf = (lines: unknown[]): Record<string, unknown>[] =>
  lines.filter(
    (l): l is Record<string, unknown> =>
      typeof l === 'object' && l !== null && 'level' in l && 'message' in l,
  );

const fakeContext = (name = 'synapse-test-fn'): Context =>
  ({
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    memoryLimitInMB: '128',
    awsRequestId: 'req-1',
    logGroupName: '/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;

const dummy = (obs: Observability) =>
  withObservability(
    async (event: { taskId: string; fail?: boolean }) => {
      appendTaskKeys({ taskId: event.taskId, contextId: 'ctx-1', requestId: 7 }, obs.logger);
      obs.logger.info('working');
      countMetric(MetricName.TasksCreated, 1, obs.metrics);
      countTransition('completed', obs.metrics);
      if (event.fail) throw new Error('boom');
      return { ok: event.taskId };
    },
    { functionName: 'dummy', observability: obs },
  );

describe('observability outside Lambda', () => {
  it('is not in Lambda here and leaves metrics off by default', () => {
    assert.equal(isLambdaRuntime(), false, 'AWS_LAMBDA_FUNCTION_NAME must not be set for these tests');
    const obs = createObservability();
    assert.equal(obs.metrics.enabled, false);
  });

  it('runs a wrapped handler in plain Node, with or without a context, and emits no metrics', async () => {
    const obs = createObservability({ logLevel: 'INFO' });
    const handler = dummy(obs);
    const { result, lines } = await captureStdout(async () => [
      await handler({ taskId: 't-1' }, fakeContext()),
      // the local runtime may pass a partial context; middy defaults a missing one to {}
      await handler({ taskId: 't-2' }, {} as Context),
    ]);
    assert.deepEqual(result, [{ ok: 't-1' }, { ok: 't-2' }]);
    assert.deepEqual(emfOf(lines), [], 'no EMF output when metrics are disabled');
    const logs = logsOf(lines);
    assert.equal(logs.length, 2);
    assert.equal(logs[0]?.taskId, 't-1');
    assert.equal(logs[0]?.contextId, 'ctx-1');
    assert.equal(logs[0]?.requestId, 7);
    assert.equal(logs[0]?.function_name, 'synapse-test-fn');
    assert.equal(logs[1]?.function_name, 'dummy', 'the logical name stands in for a missing context');
  });

  it('resets the appended keys after each invocation', async () => {
    const obs = createObservability({ logLevel: 'INFO' });
    const handler = dummy(obs);
    const plain = withObservability(
      async () => {
        obs.logger.info('no task here');
        return 1;
      },
      { functionName: 'plain', observability: obs },
    );
    const { lines } = await captureStdout(async () => {
      await handler({ taskId: 't-3' }, fakeContext());
      await plain({}, fakeContext());
    });
    const last = logsOf(lines).at(-1);
    assert.equal(last?.message, 'no task here');
    assert.equal(last?.taskId, undefined);
  });

  it('emits EMF metric objects (namespace Synapse) when metrics are enabled, also on errors', async () => {
    const obs = createObservability({ metricsEnabled: true, logLevel: 'SILENT' });
    assert.equal(obs.metrics.enabled, true);
    const handler = dummy(obs);
    const { lines } = await captureStdout(async () => {
      await handler({ taskId: 't-4' }, fakeContext());
      await assert.rejects(handler({ taskId: 't-5', fail: true }, fakeContext()), /boom/);
    });
    const emf = emfOf(lines);
    const named = (name: string) =>
      emf.filter((e) => e._aws.CloudWatchMetrics.some((m) => m.Metrics.some((x) => x.Name === name)));
    for (const e of emf) assert.equal(e._aws.CloudWatchMetrics[0]?.Namespace, METRICS_NAMESPACE);
    assert.equal(named(MetricName.TasksCreated).length, 2, 'flushed after success and after the error');
    const transitions = named(MetricName.Transitions);
    assert.equal(transitions.length, 2);
    assert.equal(transitions[0]?.EventType, 'completed');
    assert.equal(transitions[0]?.service, 'synapse');
  });

  it('follows POWERTOOLS_METRICS_DISABLED and leaves the environment as it was', () => {
    const saved = { ...process.env };
    try {
      process.env.AWS_LAMBDA_FUNCTION_NAME = 'pretend';
      assert.equal(createObservability().metrics.enabled, true, 'on by default in Lambda');
      process.env.POWERTOOLS_METRICS_DISABLED = 'true';
      assert.equal(createObservability().metrics.enabled, false);
      assert.equal(process.env.POWERTOOLS_METRICS_DISABLED, 'true');
      delete process.env.POWERTOOLS_METRICS_DISABLED;
      process.env.POWERTOOLS_DEV = 'true';
      assert.equal(createObservability().metrics.enabled, false, 'POWERTOOLS_DEV turns metrics off');
      delete process.env.POWERTOOLS_DEV;
      createObservability({ metricsEnabled: false });
      assert.equal(process.env.POWERTOOLS_METRICS_DISABLED, undefined);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
