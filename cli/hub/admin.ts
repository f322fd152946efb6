/**
 * `synapse admin`'s access to the hub's AWS resources: the administration of tenants and keys
 * (shared/app/auth/admin.ts) through its composition root — the hub's table (locally DynamoDB Local at
 * AWS_ENDPOINT_URL_DYNAMODB), API Gateway when the stack's outputs are named. Imported only by `admin`'s
 * handlers: the AWS SDK is a chunk of its own that no other command parses (cli/build.ts).
 */
import { AdminInputError, type AuthAdmin } from '../../shared/app/auth/admin.ts';
import { type AuthAdminSettings, authAdmin } from '../../shared/composition-roots/auth-admin.ts';
import { CliError, VendorError } from '../errors.ts';

/** What an AWS call's failure means for the command line (a2a-cli SPEC §9.6 exits). */
const failureOf = (e: unknown): unknown => {
  if (e instanceof AdminInputError) return new CliError('A2ACLI_ERR_USAGE', e.message);
  const err = e as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const network = err.code ?? (e as { cause?: { code?: string } }).cause?.code;
  if (network && /^(ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH|ETIMEDOUT)$/.test(network))
    return new CliError(
      'A2ACLI_ERR_UNREACHABLE',
      `cannot reach the hub's table (${network})`,
      'locally: AWS_ENDPOINT_URL_DYNAMODB as `npm start` prints it',
    );
  if (err.name === 'CredentialsProviderError')
    return new CliError('A2ACLI_ERR_CREDENTIALS_MISSING', `no AWS credentials: ${err.message}`);
  if (err.name === 'AccessDeniedException' || err.name === 'UnrecognizedClientException')
    return new VendorError('A2ACLI_ERR_AUTH_FAILED', `AWS refused: ${err.message}`, 4);
  if (err.name === 'ResourceNotFoundException')
    return new VendorError(
      'SYNAPSE_TABLE_NOT_FOUND',
      `no table: ${err.message}`,
      1,
      'give the hub’s table: --table or TABLE_NAME (`npm start` prints it)',
      err.$metadata?.httpStatusCode ?? null,
    );
  return e;
};

/** Runs `fn` with the administration, released afterwards; its failures as the CLI names them. */
export async function withAdmin<T>(
  settings: AuthAdminSettings,
  fn: (admin: AuthAdmin) => Promise<T>,
): Promise<T> {
  const { admin, close } = authAdmin(settings);
  try {
    return await fn(admin);
  } catch (e) {
    throw failureOf(e);
  } finally {
    close();
  }
}
