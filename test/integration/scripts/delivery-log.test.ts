/**
 * `npm run delivery-log`: the operator's view of a task's push delivery log, read from DynamoDB Local by
 * the script in its own process, as an operator runs it (TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatDeliveryLog } from '../../../scripts/delivery-log.ts';
import { DynamoDeliveryLog } from '../../../shared/adapters/dynamodb/delivery-log.ts';
import type { DeliveryAttempt } from '../../../shared/ports/delivery-log.ts';
import { createTestTable, type TestTable } from '../../support/dynamo.ts';

let table: TestTable;
const root = join(import.meta.dirname, '..', '..', '..');
const attempt = (n: number, extra: Partial<DeliveryAttempt>): DeliveryAttempt => ({
  tenant: 'default',
  taskId: 'task-1',
  configId: 'hook',
  version: 4,
  redrive: 0,
  attempt: n,
  status: 'sending',
  claim: `claim-${n}`,
  startedAt: `2026-12-02T00:00:0${n}.000Z`,
  keepUntil: new Date(Date.now() + 86_400_000).toISOString(),
  ...extra,
});

before(async () => {
  table = await createTestTable();
  const log = new DynamoDeliveryLog(table.client, table.tableName);
  for (const [first, done] of [
    [attempt(1, {}), attempt(1, { status: 'retrying', httpStatus: 503, latencyMs: 12, retryInSeconds: 2 })],
    [attempt(2, {}), attempt(2, { status: 'delivered', httpStatus: 204, latencyMs: 8 })],
  ] as const) {
    assert.ok((await log.claim(first)).claimed);
    assert.ok(await log.finish(done));
  }
});
after(async () => table?.drop());

describe('npm run delivery-log', () => {
  it("prints every attempt of the task, in order, and nothing of another tenant's", () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/delivery-log.ts', ...args], {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          TABLE_NAME: table.tableName,
          AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      });
    const out = run(['task-1']);
    assert.equal(out.status, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /v4 {2}config hook {2}attempt 1 {2}retrying {2}HTTP 503 {2}12 ms {2}next in 2 s/);
    assert.match(lines[1]!, /attempt 2 {2}delivered {2}HTTP 204/);
    const other = run(['task-1', '--tenant', 'someone-else']);
    assert.equal(other.stdout.trim(), 'no delivery attempts recorded for this task');
    const usage = run([]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /usage:/);
  });

  it('says so when a task has no attempts', () => {
    assert.equal(formatDeliveryLog([]), 'no delivery attempts recorded for this task');
  });
});
