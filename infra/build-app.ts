/** Builds the app's stacks from context; shared by `infra/app.ts` and the tests. */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SOURCE_MAP_NODE_OPTIONS } from './bundling.ts';
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
  const environment: Record<string, string> = {
    ...(defaultTenant ? { DEFAULT_TENANT: defaultTenant } : {}),
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
    ...(Object.keys(environment).length ? { environment } : {}),
  });
  stateless.addStackDependency(stateful);
  if (options.nag ?? bool(app.node.tryGetContext('nag'), true)) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  }
  return { stateful, stateless };
};
