/**
 * The admin CLIs' DynamoDB client settings. Against the local hub's DynamoDB Local (an
 * AWS_ENDPOINT_URL_DYNAMODB on a loopback host, as `npm start` prints the commands) no AWS setting is
 * needed: DynamoDB Local checks neither (the hub runs it with -sharedDb, one database whatever the
 * region and key), so a region and dummy credentials are filled in when none is set, and the SDK's
 * Node version notice is kept quiet as in the hub. Anywhere else the SDK's own chain decides.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const LOCAL_CLI_REGION = 'us-east-1';

export const isLocalEndpoint = (url: string | undefined): boolean => {
  if (!url) return false;
  try {
    return LOOPBACK.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

/**
 * The client config for a CLI, from the environment the CLI passes in (in shared/, only
 * shared/config/environment.ts reads the process's own): defaults for a local endpoint, nothing otherwise
 * (what is set wins).
 */
export const cliDynamoConfig = (env: NodeJS.ProcessEnv): DynamoDBClientConfig => {
  if (!isLocalEndpoint(env.AWS_ENDPOINT_URL_DYNAMODB)) return {};
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return {
    ...(env.AWS_REGION ? {} : { region: LOCAL_CLI_REGION }),
    // a profile or keys of the shell are used as given
    ...(env.AWS_ACCESS_KEY_ID || env.AWS_PROFILE
      ? {}
      : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  };
};
