/**
 * One Lambda function of the hub: a NodejsFunction bundled locally with
 * esbuild (options from `infra/bundling.ts`), ARM64, X-Ray active, its own log
 * group with a retention, and its own role that starts with no permissions at
 * all (no AWS-managed policy): the log group grants it write access, and the
 * constructs that own the table, queues and bus grant the rest, per function.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AGENT_SPECIFIER, BUNDLE, BUNDLE_ALIASES, functionEntry, PROJECT_ROOT } from '../bundling.ts';
import { FUNCTION_MEMORY_MB, type FunctionId } from '../functions.ts';
import { acknowledge } from './nag.ts';

/** The Lambda runtime; `BUNDLE.target` (node22) matches it. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;

/**
 * What NodejsFunction takes for the lock file: it reads nothing of it when nothing is installed into
 * the bundle (no `nodeModules`), only its name (the package manager) and folder. An installed package
 * has no lock file (npm pack leaves it out), so its package.json stands in (npm).
 */
export const DEPS_LOCK_FILE = existsSync(join(PROJECT_ROOT, 'package-lock.json'))
  ? join(PROJECT_ROOT, 'package-lock.json')
  : join(PROJECT_ROOT, 'package.json');

/** NodejsFunction bundling options derived from `BUNDLE`. */
export const nodejsBundling = (
  agentModule: string,
  afterBundling?: (outputDir: string) => string[],
): nodejs.BundlingOptions => ({
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  target: BUNDLE.target,
  minify: BUNDLE.minify,
  sourceMap: BUNDLE.sourcemap,
  sourcesContent: BUNDLE.sourcesContent,
  mainFields: [...BUNDLE.mainFields],
  externalModules: [...BUNDLE.external],
  bundleAwsSDK: true,
  banner: BUNDLE.banner,
  esbuildArgs: {
    ...Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
    [`--alias:${AGENT_SPECIFIER}`]: agentModule,
  },
  ...(afterBundling
    ? {
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // commands, run only when the function is bundled (not when a synth skips bundling)
          afterBundling: (_input: string, output: string) => afterBundling(output),
        },
      }
    : {}),
});

export interface HubFunctionProps {
  fn: FunctionId;
  /** Absolute path of the agent module bundled for `#agent`. */
  agentModule: string;
  environment: Record<string, string>;
  timeout: Duration;
  description?: string;
  logRetention?: logs.RetentionDays;
  /** Shell commands that put more files beside the bundle in `outputDir` (the inspector's built page). */
  afterBundling?: (outputDir: string) => string[];
}

export class HubFunction extends Construct {
  readonly functionId: FunctionId;
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HubFunctionProps) {
    super(scope, id);
    this.functionId = props.fn;
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Synapse ${props.fn} function`,
    });
    // The log group exists already (created above), so no logs:CreateLogGroup.
    this.logGroup.grantWrite(this.role);
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: functionEntry(props.fn),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: FUNCTION_MEMORY_MB[props.fn],
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      awsSdkConnectionReuse: false,
      description: props.description ?? `Synapse ${props.fn}`,
      environment: props.environment,
      bundling: nodejsBundling(props.agentModule, props.afterBundling),
    });
    acknowledge(this, [
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and xray:PutTelemetryRecords support no ' +
          'resource-level permissions, so AWS requires Resource "*" for them; no other action has "*".',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'Pinned to nodejs22.x, the runtime the project builds and tests for (esbuild target node22, ' +
          'docs/development.md); moving to a newer runtime is a deliberate change of LAMBDA_RUNTIME and BUNDLE.target.',
      },
    ]);
  }
}
