/**
 * The admin CLIs as `npm start` prints them (local/cli.ts `adminCommand`), run in a shell with no AWS
 * settings at all (no AWS_* variable, no ~/.aws) against DynamoDB Local: they must work exactly as
 * printed. And `npm run auth -- --help` prints the usage without a table.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adminCommand } from '../../local/cli.ts';
import { DynamoAuthStore } from '../../shared/adapters/dynamodb/auth-store.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let table: TestTable;
let home: string;

before(async () => {
  table = await createTestTable();
  home = mkdtempSync(join(tmpdir(), 'synapse-cli-home-'));
});
after(async () => {
  await table?.drop();
  rmSync(home, { recursive: true, force: true });
});

/** A shell as a fresh terminal has it: PATH and an empty home, no AWS_* (nor the SDK's config files). */
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('AWS_') && !k.startsWith('SYNAPSE_') && k !== 'TABLE_NAME') env[k] = v;
  return { ...env, HOME: home };
};

const sh = (command: string) =>
  spawnSync('sh', ['-c', command], { cwd: root, encoding: 'utf8', env: cleanEnv(), timeout: 60_000 });

describe('the admin CLIs as npm start prints them, in a shell without AWS settings', () => {
  it('npm run auth -- tenants add, keys create: they work, and write to the hub table', async () => {
    const hub = { dynamoEndpoint: table.endpoint, tableName: table.tableName };
    const add = sh(adminCommand(hub, 'auth -- tenants add acme'));
    assert.equal(add.status, 0, `${add.stdout}\n${add.stderr}`);
    assert.match(add.stdout, /tenant acme registered/);
    assert.doesNotMatch(add.stderr, /Region is missing|Could not load credentials|NodeVersionSupportWarning/);
    const key = sh(adminCommand(hub, 'auth -- keys create --tenant acme --principal alice'));
    assert.equal(key.status, 0, `${key.stdout}\n${key.stderr}`);
    assert.match(key.stdout, /syn_[a-z2-7]{16}_/);
    const store = new DynamoAuthStore(table.client, table.tableName);
    assert.equal((await store.getTenant('acme'))?.tenant, 'acme');
  });

  it('npm run delivery-log -- <taskId>: works as printed', () => {
    const hub = { dynamoEndpoint: table.endpoint, tableName: table.tableName };
    const r = sh(adminCommand(hub, 'delivery-log -- some-task'));
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /no delivery attempts recorded for this task/);
  });

  it('npm run auth -- --help prints the usage, with no table or endpoint', () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = sh(`npm run --silent auth -- ${flag}`);
      assert.equal(r.status, 0, `${flag}: ${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /tenants add <tenant>/);
      assert.match(r.stdout, /keys create --tenant T --principal P/);
      assert.doesNotMatch(r.stderr, /TABLE_NAME/);
    }
  });
});
