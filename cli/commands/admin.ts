/**
 * `synapse admin tenants add | list` and `admin keys create | list | revoke`: what `npm run auth` does
 * (docs/security.md#api-keys), on the hub's AWS resources — its table (`--table`, or TABLE_NAME; locally
 * the DynamoDB Local at AWS_ENDPOINT_URL_DYNAMODB), and on AWS its usage plan (`--rest-api-id` and
 * `--usage-plan-id`, or SYNAPSE_REST_API_ID and SYNAPSE_USAGE_PLAN_ID). A new key is printed once; no
 * record shows a key's hash or a tenant's usage key. json: `{tenant, created}`, `{tenants}`, `{key, record}`,
 * `{keys}`, `{keyId, revoked}`.
 */
import type { Argv } from 'yargs';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError, VendorError } from '../errors.ts';

interface AwsOptions {
  table?: string;
  restApiId?: string;
  usagePlanId?: string;
  stage?: string;
}

const awsOptions = <T>(y: Argv<T>) =>
  y
    .option('table', { type: 'string', describe: 'the hub’s table (or TABLE_NAME)' })
    .option('rest-api-id', {
      type: 'string',
      describe: 'on AWS: the hub’s REST API (or SYNAPSE_REST_API_ID)',
    })
    .option('usage-plan-id', {
      type: 'string',
      describe: 'on AWS: the hub’s usage plan (or SYNAPSE_USAGE_PLAN_ID)',
    })
    .option('stage', { type: 'string', describe: 'on AWS: the API’s stage (or SYNAPSE_STAGE_NAME; prod)' });

/** The administration of the table and API the options name; the AWS SDK is loaded only now. */
const admin = async <T>(
  args: AwsOptions,
  fn: (a: import('../../shared/app/auth/admin.ts').AuthAdmin) => Promise<T>,
): Promise<T> => {
  const table = args.table ?? process.env.TABLE_NAME;
  if (!table)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      'no table: give --table or set TABLE_NAME (and locally AWS_ENDPOINT_URL_DYNAMODB: `npm start` prints both)',
    );
  const restApiId = args.restApiId ?? process.env.SYNAPSE_REST_API_ID;
  const usagePlanId = args.usagePlanId ?? process.env.SYNAPSE_USAGE_PLAN_ID;
  const { withAdmin } = await import('../hub/admin.ts');
  return withAdmin(
    {
      table,
      ...(restApiId ? { restApiId } : {}),
      ...(usagePlanId ? { usagePlanId } : {}),
      stageName: args.stage ?? process.env.SYNAPSE_STAGE_NAME ?? 'prod',
      env: process.env,
    },
    fn,
  );
};

export const adminCommands: CommandGroup = (y) =>
  y.command('admin', 'the hub’s tenants and API keys (what npm run auth does)', (a) =>
    awsOptions(a)
      .command('tenants', 'tenants: add, list', (t) =>
        t
          .command(
            'add <tenant>',
            'register a tenant (on AWS: its key in the usage plan)',
            (c) => c.positional('tenant', { type: 'string', demandOption: true }),
            run<AwsOptions & { tenant: string }>(async (args) => {
              const { tenant, created } = await admin(args, (x) => x.addTenant(args.tenant));
              print(
                args.output,
                { tenant, created },
                created
                  ? `Tenant: ${tenant.tenant}\nCreated: ${tenant.createdAt}\n`
                  : `Tenant: ${tenant.tenant}\nCreated: ${tenant.createdAt}\nnote: already registered\n`,
              );
            }),
          )
          .command(
            'list',
            'list the tenants',
            (c) => c,
            run<AwsOptions>(async (args) => {
              const tenants = await admin(args, (x) => x.listTenants());
              print(
                args.output,
                { tenants },
                tenants
                  .map(
                    (t) =>
                      `Tenant: ${t.tenant}  since ${t.createdAt}${t.disabledAt ? `  disabled ${t.disabledAt}` : ''}\n`,
                  )
                  .join(''),
              );
            }),
          )
          .demandCommand(1, 'name a tenants command: add or list'),
      )
      .command('keys', 'API keys: create, list, revoke', (k) =>
        k
          .command(
            'create',
            'a new key of a tenant’s principal, printed once (only its hash is kept)',
            (c) =>
              c
                .option('tenant', { type: 'string', demandOption: true })
                .option('principal', {
                  type: 'string',
                  demandOption: true,
                  describe: 'who the key speaks for',
                })
                .option('rights', { type: 'string', default: 'read,write', describe: 'read, write, approve' })
                .option('description', { type: 'string' }),
            run<AwsOptions & { tenant: string; principal: string; rights: string; description?: string }>(
              async (args) => {
                const made = await admin(args, (x) =>
                  x.createKey({
                    tenant: args.tenant,
                    principal: args.principal,
                    rights: args.rights,
                    ...(args.description ? { description: args.description } : {}),
                  }),
                );
                const r = made.record;
                print(
                  args.output,
                  made,
                  `Key id: ${r.keyId}\nTenant: ${r.tenant}\nPrincipal: ${r.principal}\nRights: ${r.rights.join(',')}\nKey: ${made.key}\n`,
                );
                process.stderr.write(
                  'note: keep the key now: it is not stored and cannot be shown again (send it as --api-key)\n',
                );
              },
            ),
          )
          .command(
            'list',
            'list the keys (never the keys themselves)',
            (c) => c.option('tenant', { type: 'string', describe: 'only this tenant’s' }),
            run<AwsOptions & { tenant?: string }>(async (args) => {
              const keys = await admin(args, (x) => x.listKeys(args.tenant));
              print(
                args.output,
                { keys },
                keys
                  .map(
                    (k) =>
                      `Key: ${k.keyId}  ${k.tenant}/${k.principal}  ${k.rights.join(',')}  created ${k.createdAt}` +
                      `${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}${k.description ? `  ${k.description}` : ''}\n`,
                  )
                  .join(''),
              );
            }),
          )
          .command(
            'revoke <keyId>',
            'revoke a key: refused from the next request on',
            (c) => c.positional('keyId', { type: 'string', demandOption: true }),
            run<AwsOptions & { keyId: string }>(async (args) => {
              const revoked = await admin(args, (x) => x.revokeKey(args.keyId));
              if (!revoked)
                throw new VendorError(
                  'SYNAPSE_KEY_NOT_FOUND',
                  `no key ${args.keyId}`,
                  1,
                  'synapse admin keys list',
                );
              print(args.output, { keyId: args.keyId, revoked }, `Key: ${args.keyId}\nRevoked: yes\n`);
            }),
          )
          .demandCommand(1, 'name a keys command: create, list or revoke'),
      )
      .demandCommand(1, 'name an admin command: tenants or keys'),
  );
