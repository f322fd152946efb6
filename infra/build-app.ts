/** Builds the app's stacks from context; shared by `infra/app.ts` and the tests. */
import { type App, Duration, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SOURCE_MAP_NODE_OPTIONS } from './bundling.ts';
import type { AuthJwtOptions, AuthOptions, QuotaPeriod } from './constructs/auth.ts';
import type { FaultInjectionOptions } from './constructs/fault-injection.ts';
import { synapseRemoteSkillsFromContext } from './constructs/synapse.ts';
import { StatefulStack, StatelessStack } from './stacks.ts';

export interface HubApp {
  stateful: StatefulStack;
  stateless: StatelessStack;
}

export interface BuildAppOptions {
  /** Run cdk-nag AwsSolutions checks on synth (default: context `nag`, else true). */
  nag?: boolean;
}

const bool = (value: unknown, fallback: boolean): boolean => {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new Error(`expected a boolean, got ${String(value)}`);
};

const str = (app: App, key: string): string | undefined => {
  const v = app.node.tryGetContext(key);
  return v === undefined || v === null || v === '' ? undefined : String(v);
};

const num = (app: App, key: string): number | undefined => {
  const v = str(app, key);
  if (v === undefined) return undefined;
  const n = Number(v.trim());
  if (!Number.isFinite(n)) throw new Error(`context ${key}: expected a number, got ${v}`);
  return n;
};

const list = (app: App, key: string): string[] | undefined =>
  str(app, key)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The context keys of the authorizer's OIDC issuer; the first three go together. */
export const AUTH_JWT_CONTEXT = {
  issuer: 'authJwtIssuer',
  audience: 'authJwtAudience',
  jwksUrl: 'authJwtJwksUrl',
  tenantClaim: 'authJwtTenantClaim',
  defaultTenant: 'authJwtDefaultTenant',
  algorithms: 'authJwtAlgorithms',
  defaultRights: 'authJwtDefaultRights',
  discoveryUrl: 'authJwtDiscoveryUrl',
  maxTokenAgeSeconds: 'authJwtMaxTokenAgeSeconds',
  clockToleranceSeconds: 'authJwtClockToleranceSeconds',
} as const;

/** Authentication options from context (`-c authJwtIssuer=… -c tenantRateLimit=20 …`), undefined if none. */
export const authOptionsFromContext = (app: App): AuthOptions | undefined => {
  const c = AUTH_JWT_CONTEXT;
  const issuer = str(app, c.issuer);
  const audience = str(app, c.audience);
  const jwksUrl = str(app, c.jwksUrl);
  let jwt: AuthJwtOptions | undefined;
  if (issuer || audience || jwksUrl) {
    if (!issuer || !audience || !jwksUrl)
      throw new Error(
        `context ${c.issuer}, ${c.audience} and ${c.jwksUrl} go together: give all three or none`,
      );
    const tenantClaim = str(app, c.tenantClaim);
    const defaultTenant = str(app, c.defaultTenant);
    const algorithms = list(app, c.algorithms);
    const defaultRights = list(app, c.defaultRights);
    const discoveryUrl = str(app, c.discoveryUrl);
    const maxTokenAgeSeconds = num(app, c.maxTokenAgeSeconds);
    const clockToleranceSeconds = num(app, c.clockToleranceSeconds);
    jwt = {
      issuer,
      audience,
      jwksUrl,
      ...(tenantClaim ? { tenantClaim } : {}),
      ...(defaultTenant ? { defaultTenant } : {}),
      ...(algorithms ? { algorithms } : {}),
      ...(defaultRights ? { defaultRights } : {}),
      ...(discoveryUrl ? { discoveryUrl } : {}),
      ...(maxTokenAgeSeconds !== undefined ? { maxTokenAgeSeconds } : {}),
      ...(clockToleranceSeconds !== undefined ? { clockToleranceSeconds } : {}),
    };
  } else {
    const stray = [
      c.tenantClaim,
      c.defaultTenant,
      c.algorithms,
      c.defaultRights,
      c.discoveryUrl,
      c.maxTokenAgeSeconds,
      c.clockToleranceSeconds,
    ].filter((k) => str(app, k));
    if (stray.length)
      throw new Error(`context ${stray.join(', ')}: only with ${c.issuer}, ${c.audience}, ${c.jwksUrl}`);
  }
  const cacheTtlSeconds = num(app, 'authCacheTtlSeconds');
  const tenantRateLimit = num(app, 'tenantRateLimit');
  const tenantBurstLimit = num(app, 'tenantBurstLimit');
  const quotaLimit = num(app, 'tenantQuotaLimit');
  const quotaPeriod = str(app, 'tenantQuotaPeriod')?.trim().toUpperCase();
  if (quotaPeriod && quotaLimit === undefined)
    throw new Error('context tenantQuotaPeriod: only with tenantQuotaLimit');
  const options: AuthOptions = {
    ...(jwt ? { jwt } : {}),
    ...(cacheTtlSeconds !== undefined ? { cacheTtlSeconds } : {}),
    ...(tenantRateLimit !== undefined ? { tenantRateLimit } : {}),
    ...(tenantBurstLimit !== undefined ? { tenantBurstLimit } : {}),
    ...(quotaLimit !== undefined
      ? { quota: { limit: quotaLimit, period: (quotaPeriod ?? 'DAY') as QuotaPeriod } }
      : {}),
  };
  return Object.keys(options).length ? options : undefined;
};

/** The context keys of the fault injection experiment (docs/fault-injection.md); the layer ARN turns it on. */
export const FAULT_INJECTION_CONTEXT = {
  layerArn: 'faultInjectionLayerArn',
  minutes: 'faultInjectionMinutes',
  errorPercentage: 'faultInjectionErrorPercentage',
  preventExecution: 'faultInjectionPreventExecution',
  delayPercentage: 'faultInjectionDelayPercentage',
  delayMilliseconds: 'faultInjectionDelayMs',
} as const;

/** The fault injection experiment from context (`-c faultInjectionLayerArn=arn:…`), undefined if off. */
export const faultInjectionFromContext = (app: App): FaultInjectionOptions | undefined => {
  const c = FAULT_INJECTION_CONTEXT;
  const layerArn = str(app, c.layerArn);
  if (!layerArn) {
    const stray = [
      c.minutes,
      c.errorPercentage,
      c.preventExecution,
      c.delayPercentage,
      c.delayMilliseconds,
    ].filter((k) => str(app, k));
    if (stray.length) throw new Error(`context ${stray.join(', ')}: only with ${c.layerArn}`);
    return undefined;
  }
  const minutes = num(app, c.minutes);
  const errorPercentage = num(app, c.errorPercentage);
  const preventExecution = app.node.tryGetContext(c.preventExecution);
  const delayPercentage = num(app, c.delayPercentage);
  const delayMilliseconds = num(app, c.delayMilliseconds);
  return {
    layerArn,
    ...(minutes !== undefined ? { duration: Duration.minutes(minutes) } : {}),
    ...(errorPercentage !== undefined ? { errorPercentage } : {}),
    ...(str(app, c.preventExecution) ? { preventExecution: bool(preventExecution, true) } : {}),
    ...(delayPercentage !== undefined ? { delayPercentage } : {}),
    ...(delayMilliseconds !== undefined ? { delayMilliseconds } : {}),
  };
};

export const buildApp = (app: App, options: BuildAppOptions = {}): HubApp => {
  const hubName = str(app, 'hubName') ?? 'Synapse';
  const stateful = new StatefulStack(app, `${hubName}Stateful`, {
    description: 'Synapse A2A task hub: task table, queues, event bus (retained)',
    deletionProtection: bool(app.node.tryGetContext('deletionProtection'), true),
  });
  const agentModule = str(app, 'agentModule');
  const publicUrl = str(app, 'publicUrl');
  const alarmEmail = str(app, 'alarmEmail');
  const logLevel = str(app, 'logLevel');
  const defaultTenant = str(app, 'defaultTenant');
  const synapseAgentId = str(app, 'synapseAgentId');
  // JSON (`-c synapseRemoteSkills='{"translate":"agent-b"}'`), checked as the functions will read it
  const synapseRemoteSkills = synapseRemoteSkillsFromContext(app.node.tryGetContext('synapseRemoteSkills'));
  // checked when the API is built (constructs/auth.ts), as the authorizer will read it
  const auth = authOptionsFromContext(app);
  // off unless the extension layer's ARN is given (docs/fault-injection.md)
  const faultInjection = faultInjectionFromContext(app);
  const environment: Record<string, string> = {
    ...(defaultTenant ? { DEFAULT_TENANT: defaultTenant } : {}),
    // task generations (A2A dev-1.1, docs/generations.md): `-c a2aGenerations=on`; off by default
    ...(bool(app.node.tryGetContext('a2aGenerations'), false) ? { A2A_GENERATIONS: 'on' } : {}),
    // stack traces mapped to the TypeScript sources, at the price of a slower cold start
    ...(bool(app.node.tryGetContext('sourceMaps'), false) ? { NODE_OPTIONS: SOURCE_MAP_NODE_OPTIONS } : {}),
  };
  const stateless = new StatelessStack(app, `${hubName}Stateless`, {
    description: 'Synapse A2A task hub: functions, REST API, schedule, dashboard, alarms',
    state: stateful.state,
    ...(agentModule ? { agentModule } : {}),
    ...(publicUrl ? { publicUrl } : {}),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(logLevel ? { logLevel } : {}),
    ...(synapseAgentId ? { synapseAgentId } : {}),
    ...(synapseRemoteSkills ? { synapseRemoteSkills } : {}),
    ...(auth ? { auth } : {}),
    ...(faultInjection ? { faultInjection } : {}),
    ...(Object.keys(environment).length ? { environment } : {}),
  });
  stateless.addStackDependency(stateful);
  if (options.nag ?? bool(app.node.tryGetContext('nag'), true)) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  }
  return { stateful, stateless };
};
