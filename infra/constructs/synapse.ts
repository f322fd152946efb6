/**
 * The Synapse P2P side (docs/synapse-protocol.md): the secret holding the Synapse peers (a JSON array,
 * shared/protocol/synapse/peers.ts: each peer's id, tenant and shared HMAC keys), who may read it, and
 * this hub's Synapse agent id.
 *
 * The synapse function (`POST /synapse/callback`, the requester API `/synapse/tasks`, constructs/api.ts)
 * verifies the peers' signatures with it, the delivery worker (constructs/deliveries.ts) signs the
 * callbacks with it: both get GetSecretValue on this secret alone and its ARN in
 * SYNAPSE_PEERS_SECRET_ARN (`grantSynapsePeers`), never the value. They read it again every few
 * minutes (shared/composition-roots/synapse-peers.ts), so a change reaches warm containers without a deployment.
 *
 * The skills carried out by a Synapse peer (SYNAPSE_REMOTE_SKILLS, shared/app/synapse/bridge.ts) are
 * configuration, not a secret: `synapseRemoteSkillsOf` checks them at synth time with the runtime's own
 * parser, and constructs/api.ts puts them, as JSON, in the environment of the functions that build the
 * task service (jsonrpc, rest, synapse), which delegates their tasks to the peer.
 *
 * The secret's initial value is the empty array `[]` (no peer: every signed message is refused),
 * constant in the template: CloudFormation never writes it again, so the peers an operator puts
 * there (`aws secretsmanager put-secret-value`, docs/deploy.md) stay; keep it as it is. Encrypted with
 * the account's aws/secretsmanager key, which the readers use through Secrets Manager without a KMS
 * grant. No rotation function: a peer's keys are agreed with that peer, and rotated with it by
 * listing the new key beside the old one (docs/synapse-protocol.md#signatures).
 */
import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { parseRemoteSkills, type RemoteSkills } from '../../shared/app/synapse/bridge.ts';
import { MAX_ID_LENGTH } from '../../shared/protocol/synapse/bounds.ts';
import { acknowledge } from './nag.ts';

/** ARN of the peers secret, read by `synapsePeers` (shared/composition-roots/synapse-peers.ts). */
export const SYNAPSE_PEERS_SECRET_ENV = 'SYNAPSE_PEERS_SECRET_ARN';

/** This hub's Synapse agent id: the `sender.agent_id` of what it sends, the recipient peers address. */
export const SYNAPSE_AGENT_ID_ENV = 'SYNAPSE_AGENT_ID';

/** The agent id when none is given (the same default as shared/composition-roots/synapse-peers.ts). */
export const DEFAULT_SYNAPSE_AGENT_ID = 'synapse-hub';

/** The initial value of the secret: no peer. Never change it (CloudFormation would overwrite the peers). */
export const EMPTY_PEERS = '[]';

/** What the synapse function and the delivery worker may do on the secret: read its current value. */
export const SYNAPSE_PEERS_READ_ACTIONS = ['secretsmanager:GetSecretValue'] as const;

/**
 * The synapse function reads and writes tasks by key (submit, continue, cancel, get) and puts its
 * replay-protection items (`SEEN#…`) in the table: it lists no task, so it queries no index.
 */
export const SYNAPSE_INDEXES = [] as const;

/** The agent id to deploy: `value` trimmed, or the default; refused when it could not be one. */
export const synapseAgentIdOf = (value?: string): string => {
  const id = value?.trim() || DEFAULT_SYNAPSE_AGENT_ID;
  // as the envelope's ids: at most MAX_ID_LENGTH characters, no control character (protocol/synapse/scalars.ts)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (id.length > MAX_ID_LENGTH || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new Error(`synapseAgentId: not a Synapse agent id: ${JSON.stringify(id)}`);
  }
  return id;
};

/** The skills carried out by a Synapse peer, read by the task service (shared/composition-roots/core.ts). */
export const SYNAPSE_REMOTE_SKILLS_ENV = 'SYNAPSE_REMOTE_SKILLS';

/**
 * The skills carried out by a Synapse peer, as SYNAPSE_REMOTE_SKILLS takes them: skill id → the peer's id,
 * or `{peer, type}` with `type` the peer's task type (default the skill id).
 */
export type SynapseRemoteSkills = Readonly<Record<string, string | { peer: string; type?: string }>>;

/**
 * The remote skills to deploy, checked as the functions will read them (`parseRemoteSkills`, refused
 * with its message, naming `source`): `json` the value of SYNAPSE_REMOTE_SKILLS, undefined when there is
 * none (no value, or `{}`: every skill is this hub's agent's).
 */
export const synapseRemoteSkillsOf = (
  value: SynapseRemoteSkills | undefined,
  source = 'synapseRemoteSkills',
): { skills: RemoteSkills; json?: string } => {
  if (value === undefined || value === null) return { skills: {} };
  const json = JSON.stringify(value);
  const skills = parseRemoteSkills(json, source);
  return Object.keys(skills).length === 0 ? { skills } : { skills, json };
};

/**
 * The remote skills of the `synapseRemoteSkills` context: a JSON string (`-c synapseRemoteSkills='{…}'`)
 * or, from cdk.json, an object; refused with `parseRemoteSkills`' message when malformed.
 */
export const synapseRemoteSkillsFromContext = (value: unknown): SynapseRemoteSkills | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return value as SynapseRemoteSkills; // checked by synapseRemoteSkillsOf
  if (value.trim() === '') return undefined;
  parseRemoteSkills(value, 'synapseRemoteSkills');
  return JSON.parse(value) as SynapseRemoteSkills;
};

export interface SynapsePeersProps {
  /**
   * What happens to the secret when it leaves the stack (default DESTROY: Secrets Manager keeps it for
   * its recovery window, `aws secretsmanager restore-secret` brings it back).
   */
  removalPolicy?: RemovalPolicy;
}

export class SynapsePeers extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: SynapsePeersProps = {}) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description:
        'Synapse: the Synapse peers (JSON array: ids, tenants, shared HMAC keys; see docs/synapse-protocol.md)',
      secretStringValue: SecretValue.unsafePlainText(EMPTY_PEERS),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    acknowledge(this.secret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The peers secret holds HMAC keys agreed with each peer, not generated by the hub: they are rotated ' +
          'with that peer (the new key listed beside the old one, docs/synapse-protocol.md), which no ' +
          'rotation function can do alone.',
      },
    ]);
  }
}

/**
 * Lets a function read the peers: GetSecretValue on the secret alone, the secret's ARN in its
 * environment (SYNAPSE_PEERS_SECRET_ARN) and this hub's agent id (SYNAPSE_AGENT_ID). For the synapse
 * function and the delivery worker (it signs the callbacks).
 */
export const grantSynapsePeers = (
  secret: secretsmanager.ISecret,
  fn: lambda.Function,
  agentId: string,
): iam.Grant => {
  fn.addEnvironment(SYNAPSE_PEERS_SECRET_ENV, secret.secretArn);
  fn.addEnvironment(SYNAPSE_AGENT_ID_ENV, synapseAgentIdOf(agentId));
  return iam.Grant.addToPrincipal({
    grantee: fn,
    actions: [...SYNAPSE_PEERS_READ_ACTIONS],
    resourceArns: [secret.secretArn],
  });
};
