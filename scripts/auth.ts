/**
 * `npm run auth -- <command>`: the admin CLI of tenants and API keys (docs/security.md).
 *
 *   tenants add <tenant>                 register a tenant (on AWS: its API key in the usage plan)
 *   tenants list
 *   keys create --tenant T --principal P [--rights read,write] [--description D]
 *                                        prints the new key once; only its hash is kept
 *   keys list [--tenant T]
 *   keys revoke <key id>                 refused from the next request on (on AWS the stage's
 *                                        authorizer cache is flushed, so no cached verdict outlives it)
 *
 * Reads the task table named by TABLE_NAME with the AWS SDK's usual credentials and region; locally,
 * point it at the hub's DynamoDB Local with AWS_ENDPOINT_URL_DYNAMODB (`npm start` prints both; no
 * region or credentials are needed then, ./local-aws.ts). `--help` prints the usage. On AWS,
 * SYNAPSE_REST_API_ID and SYNAPSE_USAGE_PLAN_ID (the stack's outputs) let it reach API Gateway; without
 * them the usage keys are only recorded (the local hub throttles by them itself).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  FlushStageAuthorizersCacheCommand,
} from '@aws-sdk/client-api-gateway';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoAuthStore } from '../shared/adapters/dynamodb/auth-store.ts';
import { newApiKey } from '../shared/app/auth/api-keys.ts';
import { DEFAULT_RIGHTS, RIGHTS, rightsOf } from '../shared/domain/principal.ts';
import type { ApiKeyStore } from '../shared/ports/api-key-store.ts';
import type { TenantRegistry } from '../shared/ports/tenant-registry.ts';
import { cliDynamoConfig } from './local-aws.ts';

/** What the CLI needs of API Gateway (absent locally). */
export interface UsageGateway {
  /** A new API key of `tenant` in the hub's usage plan; its value. */
  createTenantKey(tenant: string, value: string): Promise<void>;
  flushAuthorizerCache(): Promise<void>;
}

export interface AuthCliDeps {
  keys: ApiKeyStore;
  tenants: TenantRegistry;
  gateway?: UsageGateway;
  out: (line: string) => void;
  now?: () => Date;
}

const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const parseOptions = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      principal: { type: 'string' },
      rights: { type: 'string', default: DEFAULT_RIGHTS.join(',') },
      description: { type: 'string' },
    },
  });

export const runAuthCommand = async (argv: string[], deps: AuthCliDeps): Promise<number> => {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (e) {
    deps.out(
      `error: ${(e as Error).message} (usage: tenants add|list, keys create|list|revoke; docs/security.md)`,
    );
    return 1;
  }
  const { values, positionals } = parsed;
  const [noun, verb, arg] = positionals;
  const now = deps.now?.() ?? new Date();
  const fail = (message: string) => {
    deps.out(`error: ${message}`);
    return 1;
  };
  if (noun === 'tenants' && verb === 'add') {
    if (!arg || !TENANT_PATTERN.test(arg))
      return fail('tenants add <tenant>: letters, digits, . _ -, up to 64');
    const existing = await deps.tenants.getTenant(arg);
    if (existing) {
      deps.out(`tenant ${arg} is already registered (since ${existing.createdAt})`);
      return 0;
    }
    const usageKey = randomBytes(24).toString('base64url');
    await deps.gateway?.createTenantKey(arg, usageKey);
    await deps.tenants.putTenant({ tenant: arg, usageKey, createdAt: now.toISOString() });
    deps.out(`tenant ${arg} registered${deps.gateway ? ' (usage plan key created)' : ''}`);
    return 0;
  }
  if (noun === 'tenants' && verb === 'list') {
    for (const t of await deps.tenants.listTenants())
      deps.out(`${t.tenant}  since ${t.createdAt}${t.disabledAt ? `  disabled ${t.disabledAt}` : ''}`);
    return 0;
  }
  if (noun === 'keys' && verb === 'create') {
    if (!values.tenant || !values.principal) return fail('keys create --tenant T --principal P');
    if (!(await deps.tenants.getTenant(values.tenant)))
      return fail(`tenant ${values.tenant} is not registered: npm run auth -- tenants add ${values.tenant}`);
    const named = (values.rights ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = named.filter((r) => !(RIGHTS as readonly string[]).includes(r));
    if (unknown.length > 0)
      return fail(`--rights: unknown ${unknown.join(', ')} (rights: ${RIGHTS.join(', ')})`);
    const rights = rightsOf(values.rights);
    if (rights.length === 0) return fail(`--rights names none of ${RIGHTS.join(', ')}`);
    const { key, record } = newApiKey(
      {
        tenant: values.tenant,
        principal: values.principal,
        rights,
        ...(values.description ? { description: values.description } : {}),
      },
      now,
    );
    await deps.keys.putKey(record);
    deps.out(`key ${record.keyId} for ${record.principal} in ${record.tenant} (${rights.join(', ')}):`);
    deps.out(key);
    deps.out(
      'Keep it now: it is not stored and cannot be shown again. Send it as "Authorization: Bearer <key>".',
    );
    return 0;
  }
  if (noun === 'keys' && verb === 'list') {
    for (const k of await deps.keys.listKeys(values.tenant))
      deps.out(
        `${k.keyId}  ${k.tenant}/${k.principal}  ${k.rights.join(',')}  created ${k.createdAt}` +
          `${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}${k.description ? `  ${k.description}` : ''}`,
      );
    return 0;
  }
  if (noun === 'keys' && verb === 'revoke') {
    if (!arg) return fail('keys revoke <key id>');
    if (!(await deps.keys.revokeKey(arg, now.toISOString()))) return fail(`no key ${arg}`);
    await deps.gateway?.flushAuthorizerCache();
    deps.out(`key ${arg} revoked${deps.gateway ? ' (authorizer cache flushed)' : ''}`);
    return 0;
  }
  return fail('usage: tenants add|list, keys create|list|revoke (docs/security.md)');
};

/** API Gateway as the CLI uses it, from the stack's outputs. */
export const apiGatewayUsage = (restApiId: string, usagePlanId: string, stageName = 'prod'): UsageGateway => {
  const client = new APIGatewayClient({});
  return {
    createTenantKey: async (tenant, value) => {
      const key = await client.send(
        new CreateApiKeyCommand({ name: `synapse-tenant-${tenant}`, enabled: true, value, tags: { tenant } }),
      );
      await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
    },
    flushAuthorizerCache: async () => {
      await client.send(new FlushStageAuthorizersCacheCommand({ restApiId, stageName }));
    },
  };
};

export const USAGE = `npm run auth -- <command>   (docs/security.md#api-keys)

  tenants add <tenant>                 register a tenant (on AWS: its API key in the usage plan)
  tenants list
  keys create --tenant T --principal P [--rights read,write] [--description D]
                                       prints the new key once; only its hash is kept
  keys list [--tenant T]
  keys revoke <key id>                 refused from the next request on

Environment: TABLE_NAME (the hub's table); locally AWS_ENDPOINT_URL_DYNAMODB (npm start prints both);
on AWS SYNAPSE_REST_API_ID and SYNAPSE_USAGE_PLAN_ID (the stack's outputs).`;

const HELP = new Set(['--help', '-h', 'help']);

const main = async () => {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.some((a) => HELP.has(a))) {
    console.log(USAGE);
    process.exit(0);
  }
  const table = process.env.TABLE_NAME;
  if (!table) {
    console.error('TABLE_NAME is not set (locally also AWS_ENDPOINT_URL_DYNAMODB: npm start prints both)');
    console.error(USAGE);
    process.exit(1);
  }
  const store = new DynamoAuthStore(new DynamoDBClient(cliDynamoConfig()), table);
  const { SYNAPSE_REST_API_ID: api, SYNAPSE_USAGE_PLAN_ID: plan } = process.env;
  const code = await runAuthCommand(argv, {
    keys: store,
    tenants: store,
    ...(api && plan ? { gateway: apiGatewayUsage(api, plan, process.env.SYNAPSE_STAGE_NAME ?? 'prod') } : {}),
    out: (line) => console.log(line),
  });
  process.exit(code);
};

if (import.meta.url === `file://${process.argv[1]}`) await main();
