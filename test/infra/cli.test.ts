/**
 * The real CDK CLI, offline and without credentials: `npx cdk synth` of the
 * app in cdk.json (with cdk-nag on, as configured there) exits 0 and writes both stacks' templates.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../infra/bundling.ts';
import { tempDir } from './support.ts';

/** The environment minus anything that could give the CLI AWS credentials or a profile. */
const credentialFreeEnv = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('AWS_') && !k.startsWith('CDK_')) env[k] = v;
  }
  return {
    ...env,
    HOME: home, // no ~/.aws, no ~/.cdk.json
    AWS_CONFIG_FILE: join(home, 'none-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'none-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true', // no instance-metadata lookups
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    CI: 'true',
  };
};

describe('cdk CLI', () => {
  it('synthesizes offline without credentials (npx cdk synth SynapseStateful --exclusively --quiet -o <tmp>)', () => {
    const dir = tempDir('synapse-cli-');
    const out = join(dir, 'cdk.out');
    try {
      const started = performance.now();
      // both stacks synthesized; the functions bundled only for the stateful one (--exclusively): the
      // stateless stack's bundles are built, as deployed, by the in-process synth of stacks.test.ts
      const run = spawnSync(
        'npx',
        ['cdk', 'synth', 'SynapseStateful', '--exclusively', '--quiet', '--no-notices', '-o', out],
        {
          cwd: PROJECT_ROOT,
          env: { ...credentialFreeEnv(dir), npm_config_cache: join(dir, 'npm-cache') },
          encoding: 'utf8',
          timeout: 180_000,
        },
      );
      const ms = Math.round(performance.now() - started);
      assert.equal(run.status, 0, `cdk synth failed (${ms} ms):\n${run.stdout}\n${run.stderr}`);
      for (const stack of ['SynapseStateful', 'SynapseStateless']) {
        const file = join(out, `${stack}.template.json`);
        assert.ok(existsSync(file), file);
        assert.ok(Object.keys(JSON.parse(readFileSync(file, 'utf8')).Resources).length > 0);
      }
      assert.doesNotMatch(`${run.stdout}${run.stderr}`, /Validation failed/);
      console.log(`# cdk synth (CLI) took ${ms} ms`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
