/**
 * The package as a user gets it (docs/package.md): `npm pack` of this repository (its prepack builds
 * dist/), the tarball installed into a new project next to the libraries a user brings (TypeScript,
 * aws-cdk-lib, constructs, tsx: the versions this repository pins, so npm finds them in its cache), and
 * an agent written there that imports `synapse-a2a-hub/agent`. Then what the README promises: the
 * project type-checks against the package's declarations, `npx synapse dev --agent ./agent.ts` runs the
 * agent on the local hub, the package's `npx synapse` talks to it, and a CDK app using
 * `synapse-a2a-hub/cdk` synthesizes with the agent bundled into the hub's functions.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FUNCTION_IDS } from '../../infra/functions.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};

/** Written into the agent's card and replies: found in the deployed bundle, absent from the demo agent. */
const AGENT_NAME = 'Packaged shouter';

const AGENT = `import { type AgentHandler, complete, textPart } from '${manifest.name}/agent';

const agent: AgentHandler = {
  describe: () => ({
    name: '${AGENT_NAME}',
    description: 'Answers in capitals.',
    version: '1.0.0',
    skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases the text', tags: ['demo'] }],
  }),
  async execute(ctx) {
    await ctx.artifact({ name: 'shout', parts: [textPart(ctx.task.text.toUpperCase())] });
    return complete('shouted');
  },
};
export default agent;
`;

const APP = `import { App, Stack } from 'aws-cdk-lib';
import { SynapseHub } from '${manifest.name}/cdk';

const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Shouter');
new SynapseHub(stack, 'Hub', { agent: './agent.ts', deletionProtection: false });
app.synth();
`;

/** A wrong use of the agent API: the package's declarations must refuse it. */
const WRONG = `import { complete } from '${manifest.name}/agent';
export const outcome: number = complete('done');
`;

/** The module resolutions a user's project may have: `exports` serves the first two, `typesVersions` the last. */
const RESOLUTIONS = [
  { module: 'NodeNext', moduleResolution: 'NodeNext' },
  { module: 'ESNext', moduleResolution: 'Bundler' },
  { module: 'CommonJS', moduleResolution: 'Node10' },
];

const tsconfig = (resolution: (typeof RESOLUTIONS)[number], files: string[]) => ({
  compilerOptions: {
    target: 'ES2022',
    ...resolution,
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    esModuleInterop: true,
    types: ['node'],
  },
  files,
});

// the children get no npm_* settings of an `npm test` around this run, nor A2ACLI_* defaults
const childEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && !k.startsWith('A2ACLI_')),
);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const exec = (cmd: string, args: string[], cwd: string): Run => {
  const r = spawnSync(cmd, args, { cwd, env: childEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
};

const ok = (run: Run, what: string): Run => {
  assert.equal(run.code, 0, `${what} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run;
};

let work: string;
let project: string;
let dev: ChildProcess | undefined;
let devOutput = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'synapse-package-'));
  const packed = ok(exec('npm', ['pack', '--json', '--pack-destination', work], ROOT), 'npm pack');
  // prepack's build logs to stdout before npm's JSON
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('\n[') + 1)) as [
    { filename: string },
  ];
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-agent', version: '1.0.0', private: true, type: 'module' }),
  );
  const pinned = (name: string) => `${name}@${manifest.devDependencies[name]}`;
  ok(
    exec(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(work, filename),
        ...['typescript', '@types/node', 'aws-cdk-lib', 'constructs', 'tsx'].map(pinned),
      ],
      project,
    ),
    'npm install',
  );
  writeFileSync(join(project, 'agent.ts'), AGENT);
  writeFileSync(join(project, 'app.ts'), APP);
  writeFileSync(join(project, 'wrong.ts'), WRONG);
  for (const resolution of RESOLUTIONS) {
    const name = resolution.moduleResolution;
    writeFileSync(
      join(project, `tsconfig.${name}.json`),
      JSON.stringify(tsconfig(resolution, ['agent.ts', 'app.ts'])),
    );
    writeFileSync(
      join(project, `tsconfig.${name}.wrong.json`),
      JSON.stringify(tsconfig(resolution, ['wrong.ts'])),
    );
  }
});

after(async () => {
  if (dev?.pid !== undefined && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev?.once('exit', resolve));
    process.kill(-dev.pid, 'SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('holds what it needs and nothing of the CLI-only libraries', () => {
    const installed = join(project, 'node_modules', manifest.name);
    for (const path of ['dist/cli/synapse.mjs', 'dist/agent.mjs', 'dist/cdk.mjs', 'functions', 'shared'])
      assert.ok(existsSync(join(installed, path)), `the package has ${path}`);
    // the CLI is bundled: its libraries are build-time only (docs/development.md)
    for (const cliOnly of ['yargs', '@a2a-js/sdk'])
      assert.ok(!existsSync(join(project, 'node_modules', cliOnly)), `${cliOnly} is not installed`);
    ok(exec('npm', ['ls', '--omit=dev'], project), 'npm ls');
  });

  it("keeps synapse dev's work out of what the other commands parse", () => {
    const cli = join(project, 'node_modules', manifest.name, 'dist', 'cli');
    const files = [
      join(cli, 'synapse.mjs'),
      ...readdirSync(join(cli, 'chunks')).map((f) => join(cli, 'chunks', f)),
    ];
    const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
    // the chunk that bundles the agent (cli/dev/run.ts) is the one importing esbuild
    const devChunks = files
      .filter((f) => /from\s*"esbuild"/.test(text.get(f)!))
      .map((f) => f.slice(f.lastIndexOf('/') + 1));
    assert.equal(devChunks.length, 1, 'one chunk imports esbuild');
    const [devChunk] = devChunks as [string];
    const importers = files.filter((f) => text.get(f)!.includes(devChunk));
    assert.ok(importers.length > 0, 'the dev chunk is imported');
    for (const f of importers)
      assert.doesNotMatch(
        text.get(f)!,
        new RegExp(`(from\\s*|import\\s*)"[^"]*${devChunk.replace('.', '\\.')}"`),
        `${f} imports ${devChunk} only when the command runs`,
      );
  });

  it("type-checks the user's agent and CDK app against the package's declarations", () => {
    for (const { moduleResolution: name } of RESOLUTIONS) {
      ok(exec('npx', ['tsc', '-p', `tsconfig.${name}.json`], project), `tsc (${name})`);
      const wrong = exec('npx', ['tsc', '-p', `tsconfig.${name}.wrong.json`], project);
      assert.notEqual(wrong.code, 0, `a wrong use of the agent API fails the type check (${name})`);
      assert.match(
        wrong.stdout,
        /wrong\.ts\(2,14\): error TS2322: Type 'Outcome' is not assignable to type 'number'/,
        name,
      );
    }
  });

  it('runs the agent with `npx synapse dev` and talks to it with `npx synapse`', async () => {
    dev = spawn('npx', ['synapse', 'dev', '--agent', './agent.ts', '--port', '0'], {
      cwd: project,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      // its own process group: npx and the node under it are stopped together
      detached: true,
    });
    const url = await new Promise<string>((resolve, reject) => {
      const seen = (d: Buffer) => {
        devOutput += d;
        const ready = /local hub ready in [\d.]+ s on (http:\/\/\S+)/.exec(devOutput);
        if (ready) resolve(ready[1]!);
      };
      dev?.stdout?.on('data', seen);
      dev?.stderr?.on('data', seen);
      dev?.once('exit', (code) => reject(new Error(`synapse dev exited ${code}:\n${devOutput}`)));
    });

    const card = JSON.parse(
      ok(exec('npx', ['synapse', 'card', 'get', '-a', url, '-o', 'json'], project), 'card get').stdout,
    );
    assert.equal(card.name, AGENT_NAME);
    assert.deepEqual(
      card.skills.map((s: { id: string }) => s.id),
      ['shout'],
    );

    const sent = ok(
      exec('npx', ['synapse', 'send', '-a', url, '--text', 'hello there', '-o', 'json'], project),
      'send',
    );
    // a SendMessage answer: the task it made (a2a-cli SPEC, json mode carries the protocol's own types)
    const { task } = JSON.parse(sent.stdout);
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(task.artifacts[0].parts[0].text, 'HELLO THERE');
  });

  it('refuses a missing agent module or a bad port with a usage error, starting nothing', () => {
    for (const args of [
      ['--agent', './no-such-agent.ts'],
      ['--agent', './agent.ts', '--port', '-1'],
    ]) {
      const run = exec('npx', ['synapse', 'dev', ...args, '-o', 'json'], project);
      assert.equal(run.code, 2, `exit 2 for ${args.join(' ')}:\n${run.stdout}${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).error.code, 'A2ACLI_ERR_USAGE');
    }
  });

  it('synthesizes a CDK app that deploys the hub with the agent from `synapse-a2a-hub/cdk`', () => {
    ok(exec('npx', ['tsx', 'app.ts'], project), 'the CDK app');
    const out = join(project, 'cdk.out');
    const template = JSON.parse(readFileSync(join(out, 'Shouter.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties?: { Description?: string } }>;
    };
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Description?.startsWith('Synapse'),
    );
    assert.equal(functions.length, FUNCTION_IDS.length, 'every function of the hub');
    const bundles = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')))
      .map((d) => readFileSync(join(out, d, 'index.mjs'), 'utf8'));
    assert.equal(bundles.length, FUNCTION_IDS.length, 'one bundle per function');
    assert.ok(
      bundles.some((b) => b.includes(AGENT_NAME)),
      "the user's agent is bundled",
    );
    assert.ok(!bundles.some((b) => b.includes('Synapse demo agent')), 'the demo agent is not');
  });
});
