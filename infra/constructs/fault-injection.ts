/**
 * An AWS Fault Injection Service (FIS) experiment on the hub's functions (docs/fault-injection.md): off
 * unless the services are given `faultInjection`. When on it adds
 *
 * - an S3 bucket where FIS writes the fault configuration of a running experiment and the AWS FIS Lambda
 *   extension reads it (AWS FIS user guide, "Use the AWS FIS aws:lambda:function actions");
 * - on each targeted function: the extension layer (its ARN is per region and architecture, given by the
 *   user), AWS_FIS_CONFIGURATION_LOCATION and AWS_LAMBDA_EXEC_WRAPPER, and read access to the configuration;
 * - an experiment template: `aws:lambda:invocation-error` on a share of the invocations, then
 *   `aws:lambda:invocation-add-delay` on a share of them, stopped by the hub-failing composite alarm;
 * - the experiment's role: writes and deletes the configuration, reads the targeted functions, looks up tags.
 *
 * Nothing runs until someone starts an experiment from the template (`aws fis start-experiment`).
 */
import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as fis from 'aws-cdk-lib/aws-fis';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { HubFunction } from './function.ts';
import { acknowledge } from './nag.ts';

/** The folder of the bucket FIS writes the fault configuration into (the extension reads all under it). */
export const FIS_CONFIG_PREFIX = 'FisConfigs/';

/** The wrapper script the extension layer ships (AWS FIS Lambda environment variables). */
export const FIS_EXEC_WRAPPER = '/opt/aws-fis/bootstrap';

/** The environment variables the extension reads (AWS FIS Lambda environment variables). */
export const FIS_ENV = {
  configurationLocation: 'AWS_FIS_CONFIGURATION_LOCATION',
  execWrapper: 'AWS_LAMBDA_EXEC_WRAPPER',
  pollMaxWaitMilliseconds: 'AWS_FIS_POLL_MAX_WAIT_MILLISECONDS',
} as const;

export const FIS_ACTIONS = {
  error: 'aws:lambda:invocation-error',
  delay: 'aws:lambda:invocation-add-delay',
} as const;

export interface FaultInjectionOptions {
  /**
   * ARN of the AWS FIS Lambda extension layer for the deployment's region and the functions' architecture
   * (arm64): AWS publishes it in the SSM parameter `/aws/service/fis/lambda-extension/AWS-FIS-extension-arm64/1.x.x`
   * of each region ("Available versions of the AWS FIS extension for Lambda"). Required.
   */
  layerArn: string;
  /** How long each action lasts (default 5 minutes; the errors first, then the delay). */
  duration?: Duration;
  /** Share of the invocations that fail, 1-100 (default 10). */
  errorPercentage?: number;
  /**
   * Fail without running the function's code (default true): no side effect is done twice when the
   * invocation is retried. false runs the code, then fails: a retry then repeats work already done.
   */
  preventExecution?: boolean;
  /** Share of the invocations that are delayed, 1-100 (default 25). */
  delayPercentage?: number;
  /** The delay before the function's code runs, 0-900,000 ms (default 1000, the action's own default). */
  delayMilliseconds?: number;
}

export interface FaultInjectionProps extends FaultInjectionOptions {
  /** The functions faults are injected into, by name. */
  functions: Readonly<Record<string, HubFunction>>;
  /** Alarms any of which means the hub is failing its callers: the experiment stops on the first. */
  stopAlarms: readonly cloudwatch.IAlarm[];
}

const LAYER_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/;

const checkPercentage = (name: string, value: number): string => {
  if (!Number.isInteger(value) || value < 1 || value > 100)
    throw new Error(`faultInjection.${name}: a whole number from 1 to 100, got ${value}`);
  return String(value);
};

/** ISO 8601, as FIS takes an action's duration (`PT5M`). */
const isoDuration = (d: Duration): string => {
  const seconds = d.toSeconds();
  if (!Number.isInteger(seconds) || seconds < 60)
    throw new Error(`faultInjection.duration: whole seconds, at least one minute, got ${seconds} s`);
  return d.toIsoString();
};

/** Checks the options as the template will carry them; throws on a malformed one. */
export const faultInjectionParameters = (options: FaultInjectionOptions) => {
  if (!Token.isUnresolved(options.layerArn) && !LAYER_ARN.test(options.layerArn))
    throw new Error(
      `faultInjection.layerArn: a Lambda layer version ARN (arn:aws:lambda:<region>:<account>:layer:<name>:<version>), got ${options.layerArn}`,
    );
  const delay = options.delayMilliseconds ?? 1000;
  if (!Number.isInteger(delay) || delay < 0 || delay > 900_000)
    throw new Error(`faultInjection.delayMilliseconds: a whole number from 0 to 900000, got ${delay}`);
  const duration = isoDuration(options.duration ?? Duration.minutes(5));
  return {
    error: {
      duration,
      invocationPercentage: checkPercentage('errorPercentage', options.errorPercentage ?? 10),
      preventExecution: String(options.preventExecution ?? true),
    },
    delay: {
      duration,
      invocationPercentage: checkPercentage('delayPercentage', options.delayPercentage ?? 25),
      startupDelayMilliseconds: String(delay),
    },
  };
};

export class FaultInjection extends Construct {
  /** Where FIS writes the running experiment's fault configuration. */
  readonly configBucket: s3.Bucket;
  /** The stop condition: any of the hub-failing alarms. */
  readonly stopAlarm: cloudwatch.CompositeAlarm;
  readonly role: iam.Role;
  readonly template: fis.CfnExperimentTemplate;

  constructor(scope: Construct, id: string, props: FaultInjectionProps) {
    super(scope, id);
    const parameters = faultInjectionParameters(props);
    const functions = Object.entries(props.functions);
    if (functions.length === 0) throw new Error(`${this.node.path}: no function to inject faults into`);
    if (props.stopAlarms.length === 0) throw new Error(`${this.node.path}: no alarm to stop the experiment`);

    // Holds only the fault configuration FIS writes while an experiment runs (and deletes at its end).
    this.configBucket = new s3.Bucket(this, 'ConfigBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // an experiment stopped midway may leave its configuration behind: gone the next day, so the bucket
      // is empty when the stack is deleted (no auto-delete custom resource, one function less)
      lifecycleRules: [{ expiration: Duration.days(1) }],
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledge(this.configBucket, [
      {
        id: 'AwsSolutions-S1',
        reason:
          'The bucket holds only the fault configuration FIS writes during an experiment (no task data); its ' +
          'writers and readers are the experiment role and the functions, through IAM; CloudTrail records the API calls.',
      },
    ]);
    const configObjects = this.configBucket.arnForObjects(`${FIS_CONFIG_PREFIX}*`);
    const configLocation = `${this.configBucket.bucketArn}/${FIS_CONFIG_PREFIX}`;

    // the layer and the environment the extension needs (AWS FIS user guide, "Configure Lambda functions")
    const layer = lambda.LayerVersion.fromLayerVersionArn(this, 'ExtensionLayer', props.layerArn);
    for (const [, hubFunction] of functions) {
      const fn = hubFunction.function;
      fn.addLayers(layer);
      fn.addEnvironment(FIS_ENV.configurationLocation, configLocation);
      fn.addEnvironment(FIS_ENV.execWrapper, FIS_EXEC_WRAPPER);
      // AWS recommends a non-zero wait with preventExecution, so the extension has the current
      // configuration before it decides (AWS FIS actions reference, aws:lambda:invocation-error)
      if (parameters.error.preventExecution === 'true')
        fn.addEnvironment(FIS_ENV.pollMaxWaitMilliseconds, '2000');
      hubFunction.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'ListFisConfiguration',
          actions: ['s3:ListBucket'],
          resources: [this.configBucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': [`${FIS_CONFIG_PREFIX}*`] } },
        }),
      );
      hubFunction.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'ReadFisConfiguration',
          actions: ['s3:GetObject'],
          resources: [configObjects],
        }),
      );
      acknowledge(hubFunction.role, [this.configObjectsFinding()]);
    }

    // a composite alarm: the template's stop conditions are few (an account quota), the hub's alarms many
    this.stopAlarm = new cloudwatch.CompositeAlarm(this, 'HubFailing', {
      alarmDescription:
        'Synapse: the hub fails its callers (API 5xx rate) or loses work (a dead-letter queue or the relay ' +
        'failures queue not empty); the fault injection experiment stops on it',
      alarmRule: cloudwatch.AlarmRule.anyOf(
        ...props.stopAlarms.map((a) => cloudwatch.AlarmRule.fromAlarm(a, cloudwatch.AlarmState.ALARM)),
      ),
    });

    const functionArns = functions.map(([, f]) => f.function.functionArn);
    this.role = new iam.Role(this, 'ExperimentRole', {
      assumedBy: new iam.ServicePrincipal('fis.amazonaws.com'),
      description: 'Synapse fault injection experiment (AWS FIS): Lambda invocation errors and delay',
    });
    // the permissions of the two actions (AWS FIS actions reference, AWS Lambda actions)
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteFaultConfiguration',
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [configObjects],
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'InspectTargetFunctions',
        actions: ['lambda:GetFunction'],
        resources: functionArns,
      }),
    );
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'ResolveTargets', actions: ['tag:GetResources'], resources: ['*'] }),
    );
    acknowledge(this.role, [
      this.configObjectsFinding(),
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'tag:GetResources, which the FIS Lambda actions require, has no resource-level permissions (Resource "*" ' +
          'is the only form); every other statement names the bucket folder or the targeted functions.',
      },
    ]);

    const target = 'HubFunctions';
    this.template = new fis.CfnExperimentTemplate(this, 'Template', {
      description:
        'Synapse: Lambda invocation errors, then added delay, on the hub functions that do not stream; ' +
        'stops when the hub fails its callers or loses work',
      roleArn: this.role.roleArn,
      targets: {
        [target]: {
          resourceType: 'aws:lambda:function',
          resourceArns: functionArns,
          selectionMode: 'ALL',
        },
      },
      actions: {
        InvocationErrors: {
          actionId: FIS_ACTIONS.error,
          description: 'Fail a share of the invocations',
          parameters: parameters.error,
          targets: { Functions: target },
        },
        InvocationDelay: {
          actionId: FIS_ACTIONS.delay,
          description: 'Delay a share of the invocations before the code runs',
          parameters: parameters.delay,
          targets: { Functions: target },
          startAfter: ['InvocationErrors'],
        },
      },
      stopConditions: [{ source: 'aws:cloudwatch:alarm', value: this.stopAlarm.alarmArn }],
      tags: { Name: `${Stack.of(this).stackName}-fault-injection` },
    });
  }

  /** The IAM5 finding of a grant on the configuration folder's objects (a wildcard by nature). */
  private configObjectsFinding() {
    const bucketLogicalId = Stack.of(this).getLogicalId(this.configBucket.node.defaultChild as s3.CfnBucket);
    return {
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${FIS_CONFIG_PREFIX}*]`,
      reason:
        "The objects of the FIS configuration folder: FIS names each experiment's configuration object, so the " +
        'grant is on the folder (AWS FIS user guide, "Use the AWS FIS aws:lambda:function actions").',
    };
  }
}
