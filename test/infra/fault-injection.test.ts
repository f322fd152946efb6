/**
 * The fault injection experiment (infra/constructs/fault-injection.ts, docs/fault-injection.md): off by
 * default (no FIS resource, no layer, no FIS variable); on with `-c faultInjectionLayerArn=…`, an AWS FIS
 * experiment template with the two Lambda actions on the functions that do not stream, stopped by the
 * hub-failing composite alarm, its role, the functions carrying the extension and reading the configuration,
 * and cdk-nag passing. Synthesized without bundling (nothing here reads a bundle).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { App, CfnParameter, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { FAULT_INJECTION_CONTEXT, faultInjectionFromContext } from '../../infra/build-app.ts';
import {
  FIS_ACTIONS,
  FIS_CONFIG_PREFIX,
  FIS_ENV,
  FIS_EXEC_WRAPPER,
  faultInjectionParameters,
} from '../../infra/constructs/fault-injection.ts';
import { type ServiceFunctionId, SynapseHub } from '../../infra/synapse-hub.ts';
import { ROUTES } from '../../shared/contracts/routes.ts';
import {
  actionsOf,
  asArray,
  functionIds,
  logicalId,
  propertiesOf,
  resourcesOf,
  type SynthesizedHub,
  statementsOfRole,
  synthHub,
} from './support.ts';

// a placeholder account: the layer's real ARN comes from the AWS docs for the deployment's region
const LAYER_ARN = 'arn:aws:lambda:eu-west-1:123456789012:layer:aws-fis-extension-arm64:9';

/** The functions answering a streamed route, and the authorizer: no fault injected into them. */
const STREAMED = new Set<string>(ROUTES.filter((r) => r.stream).map((r) => r.function));
const UNTOUCHED = new Set<string>([...STREAMED, 'authorizer']);

type Env = { Variables?: Record<string, string> } | undefined;
const envOf = (hub: SynthesizedHub, fnId: string) =>
  (propertiesOf(hub.statelessTemplate, fnId).Environment as Env)?.Variables ?? {};
const layersOf = (hub: SynthesizedHub, fnId: string) =>
  asArray(propertiesOf(hub.statelessTemplate, fnId).Layers as unknown[] | undefined);

describe('fault injection, off by default', () => {
  let hub: SynthesizedHub;
  before(() => {
    hub = synthHub({}, { nag: false });
  });
  after(() => hub.cleanup());

  it('no FIS template, no configuration bucket, no composite alarm, no FIS role', () => {
    const t = hub.statelessTemplate;
    t.resourceCountIs('AWS::FIS::ExperimentTemplate', 0);
    t.resourceCountIs('AWS::S3::Bucket', 0);
    t.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 0);
    const fisRoles = Object.values(resourcesOf(t, 'AWS::IAM::Role')).filter((r) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('fis.amazonaws.com'),
    );
    assert.deepEqual(fisRoles, []);
    assert.equal(hub.stateless.services.faultInjection, undefined);
    assert.equal(JSON.stringify(t.toJSON().Outputs).includes('FaultInjection'), false);
  });

  it('no function has a layer or a FIS variable', () => {
    for (const [name, { fn }] of Object.entries(functionIds(hub))) {
      assert.deepEqual(layersOf(hub, fn), [], name);
      const fisVars = Object.keys(envOf(hub, fn)).filter(
        (k) => k.startsWith('AWS_FIS_') || k === FIS_ENV.execWrapper,
      );
      assert.deepEqual(fisVars, [], name);
    }
  });
});

describe('fault injection, on (-c faultInjectionLayerArn=…)', () => {
  let hub: SynthesizedHub;
  let template: Record<string, unknown>;
  let templateId: string;
  before(() => {
    // cdk-nag on: synth throws on any unacknowledged finding
    hub = synthHub({ [FAULT_INJECTION_CONTEXT.layerArn]: LAYER_ARN }, { nag: true });
    const templates = resourcesOf(hub.statelessTemplate, 'AWS::FIS::ExperimentTemplate');
    assert.equal(Object.keys(templates).length, 1);
    [templateId] = Object.keys(templates) as [string];
    template = templates[templateId]?.Properties as Record<string, unknown>;
  });
  after(() => hub.cleanup());

  const fi = () => {
    const f = hub.stateless.services.faultInjection;
    assert.ok(f);
    return f;
  };
  const targetedNames = () =>
    (Object.keys(hub.stateless.services.functions) as ServiceFunctionId[]).filter((n) => !UNTOUCHED.has(n));

  it('targets every function but the streamed ones and the authorizer, by ARN', () => {
    assert.ok(STREAMED.has('jsonrpc') && STREAMED.has('rest'));
    const ids = functionIds(hub);
    const targets = template.Targets as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(targets), ['HubFunctions']);
    const target = targets.HubFunctions as Record<string, unknown>;
    assert.equal(target.ResourceType, 'aws:lambda:function');
    assert.equal(target.SelectionMode, 'ALL');
    const arns = (target.ResourceArns as { 'Fn::GetAtt': [string, string] }[]).map((a) => a['Fn::GetAtt']);
    assert.deepEqual(
      arns.map(([id, attr]) => [id, attr]).sort(),
      targetedNames()
        .map((n) => [ids[n].fn, 'Arn'])
        .sort(),
    );
    assert.ok(targetedNames().includes('executor') && targetedNames().includes('agent-card'));
  });

  it('two actions: invocation errors on 10 % (code not run), then 1 s of delay on 25 %, 5 minutes each', () => {
    const actions = template.Actions as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(actions).sort(), ['InvocationDelay', 'InvocationErrors']);
    assert.deepEqual(actions.InvocationErrors, {
      ActionId: FIS_ACTIONS.error,
      Description: 'Fail a share of the invocations',
      Parameters: { duration: 'PT5M', invocationPercentage: '10', preventExecution: 'true' },
      Targets: { Functions: 'HubFunctions' },
    });
    assert.deepEqual(actions.InvocationDelay, {
      ActionId: FIS_ACTIONS.delay,
      Description: 'Delay a share of the invocations before the code runs',
      Parameters: { duration: 'PT5M', invocationPercentage: '25', startupDelayMilliseconds: '1000' },
      Targets: { Functions: 'HubFunctions' },
      StartAfter: ['InvocationErrors'],
    });
    assert.match(String(template.Description), /\S/);
  });

  it('stops on the composite alarm of the API 5xx rate and every lost-work alarm (not the Errors alarms)', () => {
    const composite = logicalId(fi().stopAlarm);
    assert.deepEqual(template.StopConditions, [
      { Source: 'aws:cloudwatch:alarm', Value: { 'Fn::GetAtt': [composite, 'Arn'] } },
    ]);
    const rule = JSON.stringify(propertiesOf(hub.statelessTemplate, composite).AlarmRule);
    const monitoring = hub.stateless.services.monitoring;
    const expected = [monitoring.apiServerErrors, ...monitoring.lostWork].map((a) => logicalId(a));
    assert.ok(expected.length >= 2);
    for (const id of expected) assert.ok(rule.includes(id), `${id} in ${rule}`);
    for (const a of monitoring.alarms.filter((a) => /Errors/.test(a.node.id)))
      assert.equal(rule.includes(logicalId(a)), false, `${a.node.id} is no stop condition`);
    // lost work: each dead-letter queue, and the relay's failures queue
    assert.ok(monitoring.lostWork.some((a) => a.node.id === 'RelayFailuresNotEmpty'));
    assert.equal(
      monitoring.lostWork.filter((a) => a.node.id.endsWith('DlqNotEmpty')).length,
      hub.stateful.state.queues.length,
    );
  });

  it('the experiment role: FIS assumes it; writes the configuration folder, reads the targets, looks up tags', () => {
    const roleId = logicalId(fi().role);
    assert.equal(
      template.RoleArn && JSON.stringify(template.RoleArn),
      JSON.stringify({ 'Fn::GetAtt': [roleId, 'Arn'] }),
    );
    const trust = JSON.stringify(propertiesOf(hub.statelessTemplate, roleId).AssumeRolePolicyDocument);
    assert.ok(trust.includes('fis.amazonaws.com'));
    const statements = statementsOfRole(hub.statelessTemplate, roleId);
    assert.deepEqual(actionsOf(statements), [
      'lambda:GetFunction',
      's3:DeleteObject',
      's3:PutObject',
      'tag:GetResources',
    ]);
    const bucket = logicalId(fi().configBucket);
    const s3 = statements.find((s) => asArray(s.Action).includes('s3:PutObject'));
    assert.deepEqual(s3?.Resource, {
      'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${FIS_CONFIG_PREFIX}*`]],
    });
    const getFunction = statements.find((s) => asArray(s.Action).includes('lambda:GetFunction'));
    const ids = functionIds(hub);
    assert.deepEqual(
      asArray(getFunction?.Resource as unknown[])
        .map((r) => JSON.stringify(r))
        .sort(),
      targetedNames()
        .map((n) => JSON.stringify({ 'Fn::GetAtt': [ids[n].fn, 'Arn'] }))
        .sort(),
    );
    const tags = statements.find((s) => asArray(s.Action).includes('tag:GetResources'));
    assert.equal(tags?.Resource, '*');
  });

  it('the targeted functions carry the layer, the wrapper, the configuration location and read it', () => {
    const ids = functionIds(hub);
    const bucket = logicalId(fi().configBucket);
    for (const name of targetedNames()) {
      const { fn, role } = ids[name];
      assert.deepEqual(layersOf(hub, fn), [LAYER_ARN], name);
      const env = envOf(hub, fn);
      assert.equal(env[FIS_ENV.execWrapper], FIS_EXEC_WRAPPER, name);
      assert.deepEqual(env[FIS_ENV.configurationLocation], {
        'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${FIS_CONFIG_PREFIX}`]],
      });
      // preventExecution: AWS recommends a non-zero poll wait
      assert.equal(env[FIS_ENV.pollMaxWaitMilliseconds], '2000', name);
      const statements = statementsOfRole(hub.statelessTemplate, role);
      const list = statements.find((s) => asArray(s.Action).includes('s3:ListBucket'));
      assert.deepEqual(list?.Resource, { 'Fn::GetAtt': [bucket, 'Arn'] }, name);
      assert.deepEqual(list?.Condition, { StringLike: { 's3:prefix': [`${FIS_CONFIG_PREFIX}*`] } });
      const get = statements.find((s) => asArray(s.Action).includes('s3:GetObject'));
      assert.deepEqual(get?.Resource, {
        'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${FIS_CONFIG_PREFIX}*`]],
      });
      // nothing else of S3
      assert.deepEqual(
        actionsOf(statements).filter((a) => a.startsWith('s3:')),
        ['s3:GetObject', 's3:ListBucket'],
        name,
      );
    }
  });

  it('the streamed functions and the authorizer are left alone (AWS: the extension suppresses streaming)', () => {
    const ids = functionIds(hub);
    for (const name of UNTOUCHED) {
      const { fn, role } = ids[name as ServiceFunctionId];
      assert.deepEqual(layersOf(hub, fn), [], name);
      assert.equal(envOf(hub, fn)[FIS_ENV.execWrapper], undefined, name);
      assert.equal(envOf(hub, fn)[FIS_ENV.configurationLocation], undefined, name);
      assert.equal(
        actionsOf(statementsOfRole(hub.statelessTemplate, role)).some((a) => a.startsWith('s3:')),
        false,
        name,
      );
    }
  });

  it('the configuration bucket: encrypted, no public access, TLS only, objects expire after a day', () => {
    const t = hub.statelessTemplate;
    t.resourceCountIs('AWS::S3::Bucket', 1);
    const bucket = propertiesOf(t, logicalId(fi().configBucket));
    assert.deepEqual(bucket.BucketEncryption, {
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    assert.deepEqual(bucket.PublicAccessBlockConfiguration, {
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    assert.deepEqual(bucket.LifecycleConfiguration, { Rules: [{ ExpirationInDays: 1, Status: 'Enabled' }] });
    const policy = JSON.stringify(Object.values(resourcesOf(t, 'AWS::S3::BucketPolicy'))[0]?.Properties);
    assert.ok(policy.includes('"aws:SecureTransport":"false"'), policy);
  });

  it('outputs the template id', () => {
    const outputs = hub.statelessTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    assert.deepEqual(outputs.FaultInjectionTemplateId?.Value, { 'Fn::GetAtt': [templateId, 'Id'] });
  });
});

describe('fault injection options', () => {
  const appWith = (context: Record<string, unknown>) => new App({ context });

  it('from context: the layer ARN turns it on; the others only with it', () => {
    const c = FAULT_INJECTION_CONTEXT;
    assert.equal(faultInjectionFromContext(appWith({})), undefined);
    assert.throws(
      () => faultInjectionFromContext(appWith({ [c.errorPercentage]: '5' })),
      /only with faultInjectionLayerArn/,
    );
    const options = faultInjectionFromContext(
      appWith({
        [c.layerArn]: LAYER_ARN,
        [c.minutes]: '2',
        [c.errorPercentage]: '5',
        [c.preventExecution]: 'false',
        [c.delayPercentage]: '50',
        [c.delayMilliseconds]: '3000',
      }),
    );
    assert.ok(options);
    assert.deepEqual(faultInjectionParameters(options), {
      error: { duration: 'PT2M', invocationPercentage: '5', preventExecution: 'false' },
      delay: { duration: 'PT2M', invocationPercentage: '50', startupDelayMilliseconds: '3000' },
    });
  });

  it('checked at synth: a layer version ARN, percentages 1-100, delay 0-900000 ms, at least a minute', () => {
    const ok = { layerArn: LAYER_ARN };
    assert.throws(() => faultInjectionParameters({ layerArn: 'aws-fis-extension' }), /layer version ARN/);
    assert.throws(() => faultInjectionParameters({ ...ok, errorPercentage: 0 }), /errorPercentage/);
    assert.throws(() => faultInjectionParameters({ ...ok, delayPercentage: 101 }), /delayPercentage/);
    assert.throws(() => faultInjectionParameters({ ...ok, delayMilliseconds: 900_001 }), /delayMilliseconds/);
    assert.throws(() => faultInjectionParameters({ ...ok, duration: Duration.seconds(30) }), /duration/);
  });

  it('preventExecution false: no poll wait on the functions', () => {
    const hub = synthHub(
      { [FAULT_INJECTION_CONTEXT.layerArn]: LAYER_ARN, [FAULT_INJECTION_CONTEXT.preventExecution]: 'false' },
      { nag: false },
    );
    try {
      const { fn } = functionIds(hub).executor;
      const env = envOf(hub, fn);
      assert.equal(env[FIS_ENV.execWrapper], FIS_EXEC_WRAPPER);
      assert.equal(env[FIS_ENV.pollMaxWaitMilliseconds], undefined);
    } finally {
      hub.cleanup();
    }
  });

  it('a layer ARN known only at deploy time (a token) is taken as it is', () => {
    const layerArn = new CfnParameter(new Stack(), 'FisLayerArn').valueAsString;
    assert.doesNotThrow(() => faultInjectionParameters({ layerArn }));
  });

  it('the construct: a route streamed with the `streaming` option leaves its function out too', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Hub');
    const hub = new SynapseHub(stack, 'Hub', {
      streaming: (route) => route.function === 'registry',
      faultInjection: { layerArn: LAYER_ARN },
    });
    const arns = JSON.stringify(
      Object.values(Template.fromStack(stack).findResources('AWS::FIS::ExperimentTemplate'))[0]?.Properties
        ?.Targets,
    );
    const fns = hub.services.functions;
    assert.equal(arns.includes(logicalId(fns.registry.function)), false);
    assert.equal(arns.includes(logicalId(fns.jsonrpc.function)), false);
    assert.ok(arns.includes(logicalId(fns.executor.function)));
  });
});
