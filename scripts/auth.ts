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
 * region or credentials are needed then: shared/adapters/aws/cli-dynamo-config.ts). `--help` prints the usage. On AWS,
 * SYNAPSE_REST_API_ID and SYNAPSE_USAGE_PLAN_ID (the stack's outputs) let it reach API Gateway; without
 * them the usage keys are only recorded (the local hub throttles by them itself).
 * The logic is the application layer's (shared/app/auth/admin.ts), shared with `synapse admin`.
 */
import { parseArgs } from 'node:util';
import { AdminInputError, AuthAdmin } from '../shared/app/auth/admin.ts';
import { authAdmin } from '../shared/composition-roots/auth-admin.ts';
import { DEFAULT_RIGHTS } from '../shared/domain/principal.ts';
import type { ApiKeyStore } from '../shared/ports/api-key-store.ts';
import type { TenantRegistry } from '../shared/ports/tenant-registry.ts';
import type { UsageGateway } from '../shared/ports/usage-gateway.ts';

export { apiGatewayUsage } from '../shared/adapters/aws/api-gateway-usage.ts';
export type { UsageGateway };

export interface AuthCliDeps {
  keys: ApiKeyStore;
  tenants: TenantRegistry;
  gateway?: UsageGateway;
  out: (line: string) => void;
  now?: () => Date;
}

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

/** The command line over the administration (shared/app/auth/admin.ts). */
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
  const admin = new AuthAdmin(deps);
  const fail = (message: string) => {
    deps.out(`error: ${message}`);
    return 1;
  };
  try {
    if (noun === 'tenants' && verb === 'add') {
      if (!arg) return fail('tenants add <tenant>: letters, digits, . _ -, up to 64');
      const { tenant, created } = await admin.addTenant(arg);
      deps.out(
        created
          ? `tenant ${arg} registered${admin.usesGateway ? ' (usage plan key created)' : ''}`
          : `tenant ${arg} is already registered (since ${tenant.createdAt})`,
      );
      return 0;
    }
    if (noun === 'tenants' && verb === 'list') {
      for (const t of await admin.listTenants())
        deps.out(`${t.tenant}  since ${t.createdAt}${t.disabledAt ? `  disabled ${t.disabledAt}` : ''}`);
      return 0;
    }
    if (noun === 'keys' && verb === 'create') {
      if (!values.tenant || !values.principal) return fail('keys create --tenant T --principal P');
      if (!(await deps.tenants.getTenant(values.tenant)))
        return fail(
          `tenant ${values.tenant} is not registered: npm run auth -- tenants add ${values.tenant}`,
        );
      const { key, record } = await admin.createKey({
        tenant: values.tenant,
        principal: values.principal,
        rights: values.rights ?? '',
        ...(values.description ? { description: values.description } : {}),
      });
      deps.out(
        `key ${record.keyId} for ${record.principal} in ${record.tenant} (${record.rights.join(', ')}):`,
      );
      deps.out(key);
      deps.out(
        'Keep it now: it is not stored and cannot be shown again. Send it as "Authorization: Bearer <key>".',
      );
      return 0;
    }
    if (noun === 'keys' && verb === 'list') {
      for (const k of await admin.listKeys(values.tenant))
        deps.out(
          `${k.keyId}  ${k.tenant}/${k.principal}  ${k.rights.join(',')}  created ${k.createdAt}` +
            `${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}${k.description ? `  ${k.description}` : ''}`,
        );
      return 0;
    }
    if (noun === 'keys' && verb === 'revoke') {
      if (!arg) return fail('keys revoke <key id>');
      if (!(await admin.revokeKey(arg))) return fail(`no key ${arg}`);
      deps.out(`key ${arg} revoked${admin.usesGateway ? ' (authorizer cache flushed)' : ''}`);
      return 0;
    }
  } catch (e) {
    if (e instanceof AdminInputError)
      return fail(`${e.input === 'rights' ? '--rights' : 'tenants add <tenant>'}: ${e.message}`);
    throw e;
  }
  return fail('usage: tenants add|list, keys create|list|revoke (docs/security.md)');
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
  const { SYNAPSE_REST_API_ID: restApiId, SYNAPSE_USAGE_PLAN_ID: usagePlanId } = process.env;
  const { deps, close } = authAdmin({
    table,
    ...(restApiId ? { restApiId } : {}),
    ...(usagePlanId ? { usagePlanId } : {}),
    stageName: process.env.SYNAPSE_STAGE_NAME ?? 'prod',
    env: process.env,
  });
  const code = await runAuthCommand(argv, { ...deps, out: (line) => console.log(line) });
  close();
  process.exit(code);
};

if (import.meta.url === `file://${process.argv[1]}`) await main();
