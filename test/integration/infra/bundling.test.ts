/**
 * The functions as deployed: bundled with the CDK stack's esbuild options
 * (infra/bundling.ts, aliases included: the credential chain is its
 * environment link alone), loaded in a fresh Node process with a Lambda-like
 * environment, and invoked against DynamoDB Local. Proves the bundles load,
 * find their credentials where Lambda puts them, and talk to DynamoDB.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE, esbuildBuildOptions } from '../../../infra/bundling.ts';
import { createTestTable, type TestTable } from '../../support/dynamo.ts';

let table: TestTable;
let dir: string;

before(async () => {
  table = await createTestTable();
  dir = mkdtempSync(join(tmpdir(), 'synapse-bundle-'));
});
after(async () => {
  await table.drop();
  rmSync(dir, { recursive: true, force: true });
});

const bundle = async (fn: string): Promise<string> => {
  const outfile = join(dir, fn, BUNDLE.outFile);
  await build(esbuildBuildOptions(fn, outfile));
  return outfile;
};

/** Imports the bundle in a fresh process and invokes its handler once; the handler's result. */
const invoke = (file: string, fn: string, event: unknown, env: Record<string, string> = {}): unknown => {
  const script = `
    const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
    const context = { functionName: ${JSON.stringify(fn)}, awsRequestId: 'r1', getRemainingTimeInMillis: () => 20000 };
    const result = await handler(${JSON.stringify(event)}, context);
    process.stdout.write('\\n@@' + JSON.stringify(result) + '\\n');`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      AWS_LAMBDA_FUNCTION_NAME: `synapse-${fn}`,
      AWS_REGION: 'us-east-1',
      // where Lambda puts the role's credentials (DynamoDB Local accepts any)
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SESSION_TOKEN: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      TABLE_NAME: table.tableName,
      POWERTOOLS_METRICS_DISABLED: 'true',
      LOG_LEVEL: 'SILENT',
      ...env,
    },
  });
  const line = out.split('\n').find((l) => l.startsWith('@@'));
  assert.ok(line, `no result in the output: ${out}`);
  return JSON.parse(line.slice(2));
};

describe('function bundles as deployed', () => {
  it('carry no credential chain beyond the environment, no X-Ray SDK, no event-stream support', async () => {
    const code = readFileSync(await bundle('jsonrpc'), 'utf8');
    assert.doesNotMatch(code, /credential-provider-sso|fromSSO|AWS_WEB_IDENTITY_TOKEN_FILE/);
    assert.doesNotMatch(code, /aws-xray-sdk|cls-hooked/);
    // the SDK's event-stream support is the stub (no bundled client has an event-stream operation)
    assert.match(code, /AWS SDK event streams are not bundled/);
  });

  it('the jsonrpc bundle answers GetTask from DynamoDB with credentials from the environment', async () => {
    const file = await bundle('jsonrpc');
    const event = {
      httpMethod: 'POST',
      path: '/a2a/jsonrpc',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } }),
      isBase64Encoded: false,
      // the principal as the authorizer leaves it (shared/adapters/lambda/auth-context.ts)
      requestContext: {
        requestId: 'req-1',
        authorizer: { tenant: 'default', owner: 'anonymous', rights: 'read', scheme: 'api-key' },
      },
    };
    const result = invoke(file, 'jsonrpc', event, {
      EXECUTOR_QUEUE_URL: 'http://127.0.0.1:9/queue/executor',
      PUBLIC_URL: 'https://hub.example.com',
    }) as { statusCode: number; body: string };
    assert.equal(result.statusCode, 200);
    // the read reached the table (an unknown id), it did not fail on credentials
    assert.equal((JSON.parse(result.body) as { error?: { code: number } }).error?.code, -32001);
  });

  it('the sweeper bundle queries the deadline index', async () => {
    const result = invoke(await bundle('sweeper'), 'sweeper', {
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: new Date().toISOString(),
      detail: {},
    });
    assert.deepEqual(result, { due: 0, expired: 0, skipped: 0 });
  });

  it('a bundle without credentials in its environment fails with the SDK error, not a hang', async () => {
    const file = await bundle('sweeper');
    const noCredentials = { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '' };
    assert.throws(
      () => invoke(file, 'sweeper', { detail: {} }, noCredentials),
      (e: Error & { stderr?: string }) =>
        /Unable to find environment variable credentials/.test(e.stderr ?? ''),
    );
  });
});
