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
 *   nag                 `false` to skip the cdk-nag AwsSolutions checks (default on: synth fails on a violation)
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';

const app = new App();
buildApp(app);
app.synth();
