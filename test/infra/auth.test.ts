/**
 * Authentication and per-tenant throttling at the API Gateway edge (infra/constructs/auth.ts), in the
 * CDK app with cdk-nag on: the authorizer function and its least-privilege role, the REQUEST authorizer
 * on every route not marked public, API keys from the authorizer, the tenants' usage plan on the prod
 * stage, the gateway responses, the outputs the admin CLI reads, and the options from context.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { authOptionsFromContext, buildApp } from '../../infra/build-app.ts';
import {
  AUTH_JWT_ENV,
  authJwtEnvironment,
  authSettingsOf,
  CARD_AUTH_ENV,
  gatewayResponseTemplate,
  staticHeaderValue,
} from '../../infra/constructs/auth.ts';
import { FUNCTION_IDS, FUNCTION_MEMORY_MB } from '../../infra/functions.ts';
import { AUTH_PARTITION } from '../../shared/adapters/dynamodb/auth-store.ts';
import {
  CHALLENGE,
  DEFAULT_AUTH_CACHE_TTL_SECONDS,
  GATEWAY_RESPONSES,
  TENANT_THROTTLE,
} from '../../shared/contracts/gateway-responses.ts';
import { ROUTES } from '../../shared/contracts/routes.ts';
import {
  asArray,
  functionIds,
  logicalId,
  type Resource,
  resourcePath,
  resourcesOf,
  type SynthesizedHub,
  statementsOfRole,
  synthHub,
} from './support.ts';

const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

const JWT_CONTEXT = {
  authJwtIssuer: 'https://login.example.com/',
  authJwtAudience: 'synapse-hub',
  authJwtJwksUrl: 'https://login.example.com/.well-known/jwks.json',
  authJwtTenantClaim: 'org',
  authJwtDefaultTenant: 'acme',
  authJwtAlgorithms: 'RS256, ES256',
  authJwtDefaultRights: 'read',
  authJwtDiscoveryUrl: 'https://login.example.com/.well-known/openid-configuration',
  authCacheTtlSeconds: '60',
  tenantRateLimit: '5',
  tenantBurstLimit: 10,
  tenantQuotaLimit: '100000',
  tenantQuotaPeriod: 'week',
};

/** The AUTH_* variables a function may hold: names and URLs of the issuer, never a credential. */
const ALLOWED_AUTH_ENV = new Set<string>([...Object.values(AUTH_JWT_ENV), ...Object.values(CARD_AUTH_ENV)]);
/** The functions serving the card (public; extended: jsonrpc, rest) declare the issuer's `oidc` scheme. */
const CARD_FUNCTIONS = ['agent-card', 'jsonrpc', 'rest'] as const;

let hub: SynthesizedHub;
let configured: SynthesizedHub;

before(() => {
  hub = synthHub();
  configured = synthHub(JWT_CONTEXT);
});
after(() => {
  hub?.cleanup();
  configured?.cleanup();
});

const methodsOf = (h: SynthesizedHub) => {
  const resources = resourcesOf(h.statelessTemplate, 'AWS::ApiGateway::Resource');
  const methods = Object.values(resourcesOf(h.statelessTemplate, 'AWS::ApiGateway::Method'));
  return ROUTES.map((route) => {
    const method = methods.find(
      (m) =>
        m.Properties.HttpMethod === route.method &&
        resourcePath(resources, (m.Properties.ResourceId as { Ref: string }).Ref) === route.path,
    );
    assert.ok(method, `${route.method} ${route.path}`);
    return { route, method };
  });
};

const onlyOf = (h: SynthesizedHub, type: string): [string, Resource] => {
  const all = Object.entries(resourcesOf(h.statelessTemplate, type));
  assert.equal(all.length, 1, `one ${type}`);
  return all[0]!;
};

const envOf = (fn: Resource | undefined): Record<string, unknown> => {
  assert.ok(fn, 'the function');
  return (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
};

/** The rule ids acknowledged on a construct itself (cdk-nag v3 also reads its ancestors'). */
const acknowledgedOn = (c: IConstruct): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const m of c.node.metadata)
    if (m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      for (const [k, reason] of Object.entries(m.data as Record<string, string>))
        out[k.replace(/^[A-Za-z]+::/, '')] = reason;
  return out;
};

describe('the authorizer function', () => {
  it('is deployed like the others: in FUNCTION_IDS, 256 MB, Node 22 ARM64, traced, its own log group', () => {
    assert.ok(FUNCTION_IDS.includes('authorizer'));
    assert.equal(FUNCTION_MEMORY_MB.authorizer, 256);
    const ids = functionIds(hub);
    const fn = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function')[ids.authorizer.fn];
    assert.ok(fn, 'the authorizer function');
    assert.equal(fn.Properties.MemorySize, 256);
    assert.equal(fn.Properties.Runtime, 'nodejs22.x');
    assert.deepEqual(fn.Properties.Architectures, ['arm64']);
    assert.deepEqual(fn.Properties.TracingConfig, { Mode: 'Active' });
    assert.equal(fn.Properties.Timeout, 10);
    assert.ok((fn.Properties.LoggingConfig as { LogGroup?: unknown }).LogGroup);
  });

  it('may GetItem on the auth directory partition of the table alone (LeadingKeys AUTH#), and write its logs', () => {
    const ids = functionIds(hub);
    const roles = resourcesOf(hub.statelessTemplate, 'AWS::IAM::Role');
    assert.equal(roles[ids.authorizer.role]?.Properties.ManagedPolicyArns, undefined, 'no managed policy');
    const statements = statementsOfRole(hub.statelessTemplate, ids.authorizer.role);
    const byAction = (prefix: string) =>
      statements.filter((s) => asArray(s.Action).some((a) => a.startsWith(prefix)));
    for (const s of statements) assert.equal(s.Effect, 'Allow');
    // DynamoDB: one statement, one action, the table (no index), bounded to the partition
    const dynamo = byAction('dynamodb:');
    assert.equal(dynamo.length, 1);
    assert.deepEqual(asArray(dynamo[0]!.Action), ['dynamodb:GetItem']);
    assert.equal(AUTH_PARTITION, 'AUTH#');
    assert.deepEqual(dynamo[0]!.Condition, {
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [AUTH_PARTITION] },
    });
    const tableArn = asArray(dynamo[0]!.Resource).map((r) => JSON.stringify(r));
    assert.equal(tableArn.length, 1);
    assert.match(tableArn[0]!, /"Fn::ImportValue":"[^"]*TasksV2[^"]*Arn/, 'the task table ARN');
    assert.doesNotMatch(tableArn[0]!, /index/);
    // logs: its own log group
    const logs = byAction('logs:');
    assert.equal(logs.length, 1);
    assert.deepEqual(asArray(logs[0]!.Action).sort(), LOGS);
    assert.deepEqual(logs[0]!.Resource, {
      'Fn::GetAtt': [logicalId(hub.stateless.services.api.auth.function.logGroup), 'Arn'],
    });
    // and X-Ray (Resource "*": the actions have no resource-level permissions); nothing else
    const xray = byAction('xray:');
    assert.deepEqual(xray.flatMap((s) => asArray(s.Action)).sort(), XRAY);
    assert.equal(statements.length, dynamo.length + logs.length + xray.length, JSON.stringify(statements));
  });

  it('gets the table and the observability settings, no queue, bus or URL, and no AUTH_JWT_* by default', () => {
    const ids = functionIds(hub);
    const env = envOf(resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function')[ids.authorizer.fn]);
    assert.deepEqual(Object.keys(env).sort(), [
      'LOG_LEVEL',
      'POWERTOOLS_METRICS_NAMESPACE',
      'POWERTOOLS_SERVICE_NAME',
      'TABLE_NAME',
    ]);
    assert.match(JSON.stringify(env.TABLE_NAME), /"Fn::ImportValue":"[^"]*TasksV2/);
  });

  it('gets the issuer, audience, JWKS URL and the other AUTH_JWT_* settings from context', () => {
    const ids = functionIds(configured);
    const env = envOf(resourcesOf(configured.statelessTemplate, 'AWS::Lambda::Function')[ids.authorizer.fn]);
    assert.equal(env.AUTH_JWT_ISSUER, JWT_CONTEXT.authJwtIssuer);
    assert.equal(env.AUTH_JWT_AUDIENCE, JWT_CONTEXT.authJwtAudience);
    assert.equal(env.AUTH_JWT_JWKS_URL, JWT_CONTEXT.authJwtJwksUrl);
    assert.equal(env.AUTH_JWT_TENANT_CLAIM, 'org');
    assert.equal(env.AUTH_JWT_DEFAULT_TENANT, 'acme');
    assert.equal(env.AUTH_JWT_ALGORITHMS, 'RS256,ES256');
    assert.equal(env.AUTH_JWT_DEFAULT_RIGHTS, 'read');
    assert.equal(env.AUTH_JWT_DISCOVERY_URL, undefined, "the card's, not the authorizer's");
  });

  it('tells the card functions the issuer (and its discovery document), and no other function', () => {
    for (const h of [hub, configured]) {
      const ids = functionIds(h);
      const fns = resourcesOf(h.statelessTemplate, 'AWS::Lambda::Function');
      for (const [name, { fn }] of Object.entries(ids)) {
        if (name === 'authorizer') continue;
        const env = envOf(fns[fn]);
        const auth = Object.keys(env).filter((k) => k.startsWith('AUTH'));
        if (h === configured && (CARD_FUNCTIONS as readonly string[]).includes(name)) {
          assert.deepEqual(auth.sort(), ['AUTH_JWT_DISCOVERY_URL', 'AUTH_JWT_ISSUER'], name);
          assert.equal(env.AUTH_JWT_ISSUER, JWT_CONTEXT.authJwtIssuer);
          assert.equal(env.AUTH_JWT_DISCOVERY_URL, JWT_CONTEXT.authJwtDiscoveryUrl);
        } else {
          assert.deepEqual(auth, [], name);
        }
      }
    }
  });

  it('puts no secret in clear in any function environment: AUTH_* only names the issuer, only in the authorizer', () => {
    for (const h of [hub, configured]) {
      const ids = functionIds(h);
      const authorizerId = ids.authorizer.fn;
      for (const [stack, template] of [
        ['stateful', h.statefulTemplate],
        ['stateless', h.statelessTemplate],
      ] as const) {
        for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
          const env = envOf(fn);
          for (const [key, value] of Object.entries(env)) {
            if (key.startsWith('AUTH')) {
              assert.ok(
                ALLOWED_AUTH_ENV.has(key),
                `${stack} ${id}: ${key} is not a known AUTH_JWT_* setting`,
              );
              const cardFunction = CARD_FUNCTIONS.some((n) => ids[n].fn === id);
              assert.ok(
                id === authorizerId || (cardFunction && Object.values(CARD_AUTH_ENV).includes(key as never)),
                `${stack} ${id}: ${key} is the authorizer's (the card functions': the issuer and discovery URL)`,
              );
              assert.equal(typeof value, 'string');
            }
            // a credential is only ever named by its ARN (Secrets Manager), never put in the environment
            if (/SECRET|PASSWORD|PRIVATE|TOKEN|API_?KEY|CREDENTIAL|HMAC/i.test(key))
              assert.match(key, /_ARN$/, `${stack} ${id}: ${key}`);
          }
        }
      }
      // the issuer settings are URLs and names, nothing key-shaped
      const fns = resourcesOf(h.statelessTemplate, 'AWS::Lambda::Function');
      for (const id of [authorizerId, ...CARD_FUNCTIONS.map((n) => ids[n].fn)]) {
        const env = envOf(fns[id]);
        for (const key of [AUTH_JWT_ENV.issuer, AUTH_JWT_ENV.jwksUrl, CARD_AUTH_ENV.discoveryUrl])
          if (env[key] !== undefined) assert.match(String(env[key]), /^https:\/\//, key);
      }
    }
  });

  it('has no Errors alarm (its refusals are Lambda errors); its failures reach the API 5xx alarm', () => {
    const alarms = resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Alarm');
    assert.ok(!Object.keys(alarms).some((id) => id.includes('AuthorizerErrors')));
    assert.ok(Object.keys(alarms).some((id) => id.includes('Api5xxRate')));
    const body = JSON.stringify(
      Object.values(resourcesOf(hub.statelessTemplate, 'AWS::CloudWatch::Dashboard'))[0]?.Properties
        ?.DashboardBody,
    );
    assert.ok(body.includes(functionIds(hub).authorizer.fn), 'on the dashboard with the other functions');
  });
});

describe('the REQUEST authorizer and the methods', () => {
  it('is a REQUEST authorizer of the function on the Authorization header, cached DEFAULT_AUTH_CACHE_TTL_SECONDS', () => {
    const ids = functionIds(hub);
    const [, authorizer] = onlyOf(hub, 'AWS::ApiGateway::Authorizer');
    assert.equal(authorizer.Properties.Type, 'REQUEST');
    assert.equal(authorizer.Properties.IdentitySource, 'method.request.header.Authorization');
    assert.equal(DEFAULT_AUTH_CACHE_TTL_SECONDS, 300);
    assert.equal(authorizer.Properties.AuthorizerResultTtlInSeconds, DEFAULT_AUTH_CACHE_TTL_SECONDS);
    assert.ok(JSON.stringify(authorizer.Properties.AuthorizerUri).includes(`"${ids.authorizer.fn}"`));
    const [, configuredAuthorizer] = onlyOf(configured, 'AWS::ApiGateway::Authorizer');
    assert.equal(configuredAuthorizer.Properties.AuthorizerResultTtlInSeconds, 60);
    // API Gateway may invoke it, as this authorizer only
    const permissions = Object.values(resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Permission')).filter(
      (p) => JSON.stringify(p.Properties.FunctionName).includes(`"${ids.authorizer.fn}"`),
    );
    assert.equal(permissions.length, 1);
    assert.equal(permissions[0]!.Properties.Principal, 'apigateway.amazonaws.com');
    assert.match(JSON.stringify(permissions[0]!.Properties.SourceArn), /\/authorizers\//);
  });

  it('guards every route not marked public: CUSTOM with the authorizer, API key required; public ones have neither', () => {
    const [authorizerId] = onlyOf(hub, 'AWS::ApiGateway::Authorizer');
    const routes = methodsOf(hub);
    assert.ok(routes.some(({ route }) => route.public) && routes.some(({ route }) => !route.public));
    for (const { route, method } of routes) {
      const p = method.Properties;
      const name = `${route.method} ${route.path}`;
      if (route.public) {
        assert.equal(p.AuthorizationType, 'NONE', name);
        assert.equal(p.AuthorizerId, undefined, name);
        assert.notEqual(p.ApiKeyRequired, true, name);
      } else {
        assert.equal(p.AuthorizationType, 'CUSTOM', name);
        assert.deepEqual(p.AuthorizerId, { Ref: authorizerId }, name);
        assert.equal(p.ApiKeyRequired, true, name);
      }
    }
    // the discovery documents (the registry's AI Catalog among them), the signed Synapse callback and the
    // inspector's page (no data: it reads through the authorized routes, /hub among them) are the public ones
    assert.deepEqual(
      routes.filter(({ route }) => route.public).map(({ route }) => route.path),
      [
        '/.well-known/agent-card.json',
        '/.well-known/agent.json',
        '/.well-known/jwks.json',
        '/synapse/callback',
        '/synapse/schemas/{name}',
        '/.well-known/ai-catalog.json',
        '/inspector',
        '/inspector/{proxy+}',
      ],
    );
    assert.ok(
      routes.some(({ route }) => route.path === '/hub/{proxy+}' && !route.public),
      'the read API',
    );
  });

  it("takes the API key from the authorizer (the tenant's usage key)", () => {
    const [, api] = onlyOf(hub, 'AWS::ApiGateway::RestApi');
    assert.equal(api.Properties.ApiKeySourceType, 'AUTHORIZER');
  });
});

describe('the tenants usage plan', () => {
  it('throttles each tenant (TENANT_THROTTLE), on the prod stage, with no quota by default', () => {
    const [apiId] = onlyOf(hub, 'AWS::ApiGateway::RestApi');
    const [stageId, stage] = onlyOf(hub, 'AWS::ApiGateway::Stage');
    assert.equal(stage.Properties.StageName, 'prod');
    const [, plan] = onlyOf(hub, 'AWS::ApiGateway::UsagePlan');
    assert.deepEqual(plan.Properties.Throttle, {
      RateLimit: TENANT_THROTTLE.rateLimit,
      BurstLimit: TENANT_THROTTLE.burstLimit,
    });
    assert.deepEqual(TENANT_THROTTLE, { rateLimit: 50, burstLimit: 100 });
    assert.equal(plan.Properties.Quota, undefined);
    const stages = plan.Properties.ApiStages as { ApiId: unknown; Stage: unknown }[];
    assert.equal(stages.length, 1);
    assert.deepEqual(stages[0]!.ApiId, { Ref: apiId });
    assert.deepEqual(stages[0]!.Stage, { Ref: stageId });
    // the tenants' keys are the admin CLI's (npm run auth -- tenants add), not the stack's
    assert.equal(Object.keys(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::ApiKey')).length, 0);
    assert.equal(Object.keys(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::UsagePlanKey')).length, 0);
  });

  it("keeps the stage's own throttling for every route", () => {
    const [, stage] = onlyOf(hub, 'AWS::ApiGateway::Stage');
    const settings = stage.Properties.MethodSettings as Record<string, unknown>[];
    assert.ok(settings.some((s) => s.ThrottlingRateLimit === 100 && s.ThrottlingBurstLimit === 200));
  });

  it('takes the throttle and a quota from context', () => {
    const [, plan] = onlyOf(configured, 'AWS::ApiGateway::UsagePlan');
    assert.deepEqual(plan.Properties.Throttle, { RateLimit: 5, BurstLimit: 10 });
    assert.deepEqual(plan.Properties.Quota, { Limit: 100000, Period: 'WEEK' });
  });
});

describe('the gateway responses', () => {
  const responses = () =>
    Object.values(resourcesOf(hub.statelessTemplate, 'AWS::ApiGateway::GatewayResponse')).map(
      (r) => r.Properties,
    );

  it('has one per GATEWAY_RESPONSES entry: its status, its headers quoted, its JSON body', () => {
    const [apiId] = onlyOf(hub, 'AWS::ApiGateway::RestApi');
    const all = responses();
    assert.equal(all.length, Object.keys(GATEWAY_RESPONSES).length);
    for (const def of Object.values(GATEWAY_RESPONSES)) {
      const r = all.find((p) => p.ResponseType === def.type);
      assert.ok(r, def.type);
      assert.deepEqual(r.RestApiId, { Ref: apiId });
      assert.equal(r.StatusCode, String(def.statusCode), def.type);
      assert.deepEqual(
        r.ResponseParameters ?? {},
        Object.fromEntries(
          Object.entries(def.headers).map(([k, v]) => [`gatewayresponse.header.${k}`, `'${v}'`]),
        ),
        def.type,
      );
      const templates = r.ResponseTemplates as Record<string, string>;
      assert.deepEqual(Object.keys(templates), ['application/json']);
      assert.deepEqual(JSON.parse(templates['application/json']!), def.body, def.type);
    }
  });

  it('answers 401 with the WWW-Authenticate challenge and 429 with Retry-After', () => {
    const all = responses();
    const headersOf = (type: string) => {
      const r = all.find((p) => p.ResponseType === type);
      assert.ok(r, type);
      return { status: r.StatusCode, headers: (r.ResponseParameters ?? {}) as Record<string, string> };
    };
    const unauthorized = headersOf('UNAUTHORIZED');
    assert.equal(unauthorized.status, '401');
    assert.equal(unauthorized.headers['gatewayresponse.header.WWW-Authenticate'], `'${CHALLENGE}'`);
    assert.match(CHALLENGE, /^Bearer realm="/);
    const throttled = headersOf('THROTTLED');
    assert.equal(throttled.status, '429');
    assert.match(String(throttled.headers['gatewayresponse.header.Retry-After']), /^'\d+'$/);
    for (const type of ['ACCESS_DENIED', 'QUOTA_EXCEEDED', 'AUTHORIZER_FAILURE'])
      assert.ok(
        all.some((p) => p.ResponseType === type),
        type,
      );
  });

  it('refuses header values and bodies API Gateway would misread', () => {
    assert.equal(staticHeaderValue('1'), "'1'");
    assert.throws(() => staticHeaderValue("it's"), /quote/);
    assert.throws(() => gatewayResponseTemplate({ message: 'costs $context.x' }), /VTL/);
    assert.throws(() => gatewayResponseTemplate({ message: '#set($a = 1)' }), /VTL/);
    assert.doesNotThrow(() => gatewayResponseTemplate({ message: 'issue #7' }));
  });
});

describe('outputs', () => {
  it('names the REST API, the stage and the usage plan for the admin CLI, and the authorizer log group', () => {
    const outputs = hub.statelessTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [apiId] = onlyOf(hub, 'AWS::ApiGateway::RestApi');
    const [stageId] = onlyOf(hub, 'AWS::ApiGateway::Stage');
    const [planId] = onlyOf(hub, 'AWS::ApiGateway::UsagePlan');
    assert.deepEqual(outputs.SynapseRestApiId?.Value, { Ref: apiId });
    assert.deepEqual(outputs.SynapseStageName?.Value, { Ref: stageId });
    assert.deepEqual(outputs.SynapseUsagePlanId?.Value, { Ref: planId });
    assert.deepEqual(outputs.AuthorizerLogGroup?.Value, {
      Ref: logicalId(hub.stateless.services.api.auth.function.logGroup),
    });
  });
});

describe('cdk-nag', () => {
  it('finds no violation, with or without the JWT issuer', () => {
    for (const h of [hub, configured]) {
      const report = new AwsSolutionsChecks(h.app).validateScope(h.app);
      assert.deepEqual(
        report.violations.map(
          (v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
        ),
        [],
      );
      assert.equal(report.success, true);
    }
  });

  it('acknowledges APIG4 on the public methods alone, COG4 per method; no API-wide APIG4/COG4 any more', () => {
    const api = hub.stateless.services.api.restApi;
    for (let c: IConstruct | undefined = api; c; c = c.node.scope) {
      const acks = acknowledgedOn(c);
      assert.equal(acks['AwsSolutions-APIG4'], undefined, c.node.path);
      assert.equal(acks['AwsSolutions-COG4'], undefined, c.node.path);
    }
    assert.equal(api.methods.length, ROUTES.length);
    for (const method of api.methods) {
      const route = ROUTES.find((r) => r.path === method.resource.path && r.method === method.httpMethod);
      assert.ok(route, method.node.path);
      const acks = acknowledgedOn(method);
      if (route.public) {
        assert.match(acks['AwsSolutions-APIG4'] ?? '', /^Public by design/, route.path);
        assert.match(acks['AwsSolutions-COG4'] ?? '', /^Public by design/, route.path);
      } else {
        assert.equal(
          acks['AwsSolutions-APIG4'],
          undefined,
          `${route.path}: APIG4 is satisfied by the authorizer`,
        );
        assert.match(
          acks['AwsSolutions-COG4'] ?? '',
          /Lambda authorizer, not a Cognito user pool/,
          route.path,
        );
      }
    }
    const callback = api.methods.find((m) => m.resource.path === '/synapse/callback');
    assert.match(acknowledgedOn(callback!)['AwsSolutions-APIG4'] ?? '', /HMAC signature/);
  });
});

describe('options', () => {
  const appWith = (context: Record<string, unknown>) => new App({ context });

  it('reads nothing when no auth context is given (API keys only, the defaults)', () => {
    assert.equal(authOptionsFromContext(appWith({})), undefined);
    assert.deepEqual(authSettingsOf(), {
      cacheTtlSeconds: 300,
      rateLimit: 50,
      burstLimit: 100,
      quota: undefined,
    });
  });

  it('reads the JWT issuer, the cache, the throttle and the quota from context', () => {
    assert.deepEqual(authOptionsFromContext(appWith(JWT_CONTEXT)), {
      jwt: {
        issuer: 'https://login.example.com/',
        audience: 'synapse-hub',
        jwksUrl: 'https://login.example.com/.well-known/jwks.json',
        tenantClaim: 'org',
        defaultTenant: 'acme',
        algorithms: ['RS256', 'ES256'],
        defaultRights: ['read'],
        discoveryUrl: 'https://login.example.com/.well-known/openid-configuration',
      },
      cacheTtlSeconds: 60,
      tenantRateLimit: 5,
      tenantBurstLimit: 10,
      quota: { limit: 100000, period: 'WEEK' },
    });
  });

  it('refuses an incomplete issuer, stray JWT settings and bad numbers, before anything is bundled', () => {
    assert.throws(
      () => buildApp(appWith({ authJwtIssuer: 'https://login.example.com/' }), { nag: false }),
      /all three or none/,
    );
    assert.throws(
      () => authOptionsFromContext(appWith({ authJwtTenantClaim: 'org' })),
      /only with authJwtIssuer/,
    );
    assert.throws(
      () => authOptionsFromContext(appWith({ authCacheTtlSeconds: 'soon' })),
      /expected a number/,
    );
    assert.throws(
      () => authOptionsFromContext(appWith({ tenantQuotaPeriod: 'DAY' })),
      /only with tenantQuotaLimit/,
    );
  });

  it('checks the values as the authorizer and API Gateway will', () => {
    const jwt = { issuer: 'https://i.example/', audience: 'a', jwksUrl: 'https://i.example/jwks' };
    assert.deepEqual(authJwtEnvironment(jwt), {
      AUTH_JWT_ISSUER: 'https://i.example/',
      AUTH_JWT_AUDIENCE: 'a',
      AUTH_JWT_JWKS_URL: 'https://i.example/jwks',
    });
    assert.deepEqual(authJwtEnvironment(undefined), {});
    assert.throws(() => authJwtEnvironment({ ...jwt, jwksUrl: 'http://i.example/jwks' }), /https/);
    assert.throws(() => authJwtEnvironment({ ...jwt, discoveryUrl: 'http://i.example/oidc' }), /https/);
    assert.throws(() => authJwtEnvironment({ ...jwt, audience: ' ' }), /AUTH_JWT_AUDIENCE is empty/);
    assert.throws(() => authJwtEnvironment({ ...jwt, algorithms: ['RS256', 'none'] }), /none/);
    assert.throws(() => authJwtEnvironment({ ...jwt, defaultRights: ['admin'] }), /unknown admin/);
    assert.throws(() => authSettingsOf({ cacheTtlSeconds: 3601 }), /0\.\.3600/);
    assert.throws(() => authSettingsOf({ cacheTtlSeconds: 1.5 }), /0\.\.3600/);
    assert.throws(() => authSettingsOf({ tenantRateLimit: 0 }), /tenantRateLimit/);
    assert.throws(() => authSettingsOf({ tenantBurstLimit: -1 }), /tenantBurstLimit/);
    assert.throws(() => authSettingsOf({ quota: { limit: 0, period: 'DAY' } }), /quota\.limit/);
    assert.throws(
      () => authSettingsOf({ quota: { limit: 10, period: 'YEAR' as 'DAY' } }),
      /DAY, WEEK or MONTH/,
    );
    assert.equal(authSettingsOf({ cacheTtlSeconds: 0 }).cacheTtlSeconds, 0, 'caching off is allowed');
  });
});
