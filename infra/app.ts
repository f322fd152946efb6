/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). Environment-agnostic: no
 * account or region at synth time, so `cdk synth` needs no credentials.
 *
 * Context (`-c key=value` or cdk.json):
 *   hubName             stack name prefix (default `Synapse` → SynapseStateful, SynapseStateless)
 *   agentModule         path of your agent module (default agents/demo/index.ts)
 *   deletionProtection  `false` to allow deleting the table (default true)
 *   publicUrl           base URL the agent card advertises (custom domain)
 *   alarmEmail          e-mail subscribed to the alarm topic
 *   logLevel            function LOG_LEVEL (default INFO)
 *   defaultTenant       DEFAULT_TENANT of the functions (tenant of unauthenticated callers)
 *   synapseAgentId      this hub's Synapse agent id, SYNAPSE_AGENT_ID (default `synapse-hub`)
 *   synapseRemoteSkills skills carried out by a Synapse peer, SYNAPSE_REMOTE_SKILLS of jsonrpc, rest and
 *                       synapse: JSON `{"<skill id>": "<peer id>" | {"peer": "…", "type": "…"}}` (default none)
 *   authJwtIssuer       OIDC issuer whose bearer JWTs the authorizer accepts besides API keys (AUTH_JWT_ISSUER);
 *   authJwtAudience     with authJwtAudience (AUTH_JWT_AUDIENCE) and authJwtJwksUrl (https, AUTH_JWT_JWKS_URL):
 *   authJwtJwksUrl      all three or none (none: API keys only)
 *   authJwtTenantClaim  the token claim naming the tenant (AUTH_JWT_TENANT_CLAIM, default `tenant`)
 *   authJwtDefaultTenant  the tenant of a token without it (AUTH_JWT_DEFAULT_TENANT)
 *   authJwtAlgorithms   comma list (AUTH_JWT_ALGORITHMS, default RS256,ES256,PS256,EdDSA)
 *   authJwtDefaultRights  comma list of read, write: a token naming no tasks:* scope (default both)
 *   authJwtMaxTokenAgeSeconds  the oldest token accepted by its iat (AUTH_JWT_MAX_TOKEN_AGE_SECONDS, 86400; 0: none)
 *   authJwtClockToleranceSeconds  clock skew for exp, nbf, iat (AUTH_JWT_CLOCK_TOLERANCE_SECONDS, 5; at most 300)
 *   authJwtDiscoveryUrl the OIDC discovery document the agent card points to (AUTH_JWT_DISCOVERY_URL of the
 *                       card functions; default <issuer>/.well-known/openid-configuration)
 *   authCacheTtlSeconds how long API Gateway caches a verdict, 0-3600 (default 300)
 *   tenantRateLimit     each tenant's requests per second in the usage plan (default 50)
 *   tenantBurstLimit    each tenant's burst (default 100)
 *   tenantQuotaLimit    each tenant's requests per period (default no quota); tenantQuotaPeriod DAY|WEEK|MONTH (DAY)
 *   faultInjectionLayerArn  the AWS FIS Lambda extension layer (arm64) of the region: turns on the fault
 *                       injection experiment template (docs/fault-injection.md; default off). With it:
 *                       faultInjectionMinutes (each action, 5), faultInjectionErrorPercentage (10),
 *                       faultInjectionPreventExecution (true), faultInjectionDelayPercentage (25),
 *                       faultInjectionDelayMs (1000)
 *   nag                 `false` to skip the cdk-nag AwsSolutions checks (default on: synth fails on a violation)
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';

const app = new App();
buildApp(app);
app.synth();
