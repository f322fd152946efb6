/**
 * Which Synapse peer carries out a new message's skill (docs/synapse-protocol.md#skills-found-in-the-registry):
 * the static map SYNAPSE_REMOTE_SKILLS first (the operator's override), then this hub's own agent, then
 * the agent registry's catalog.
 *
 * From the registry, a skill goes to an agent whose catalog entry is live (APPROVED: the catalog holds no
 * other), not `unreachable`, visible to the caller (`visibleTo`, as search shows it), whose card declares
 * the skill and carries the hub's Synapse extension (shared/protocol/synapse/card-extension.ts) naming an
 * agent id that is a peer configured for the caller's tenant (SYNAPSE_PEERS: its HMAC keys, its tenant and
 * its endpoint stay configuration). Several: healthy before unknown before degraded, verified signatures
 * first, then by identifier (stable whatever the order of updates).
 *
 * The peer's configured endpoint is where its messages go, never the card's: the delivery worker and the
 * heartbeat sender read the endpoint from the peer's configuration, and signed messages go only where
 * that configuration says (a card, once approved, cannot aim them elsewhere).
 *
 * The catalog is loaded on the first message that names a skill neither local nor static (cold start:
 * the bundles of jsonrpc and rest load none of it otherwise).
 */
import type { Caller } from '../../domain/caller.ts';
import type { CatalogEntry, HealthStatus } from '../../domain/registry/record.ts';
import type { Message } from '../../domain/task.ts';
import { synapseParamsOf } from '../../protocol/synapse/card-extension.ts';
import type { PeerDirectory } from '../../protocol/synapse/peers.ts';
import { REQUEST_SKILL_KEY } from '../tasks/deadlines.ts';
import type { RemoteSkill, RemoteSkills, SkillOf } from './bridge.ts';

/** A route to a peer, and where it was found. */
export interface RemoteRoute extends RemoteSkill {
  /** `static`: SYNAPSE_REMOTE_SKILLS; `registry`: the catalog entry `recordId`. */
  via: 'static' | 'registry';
  recordId?: string;
}

/** The catalog entries a caller may see that declare a skill (the registry's catalog: ./registry-skills.ts). */
export interface SkillCatalog {
  /** Live entries, visible to `caller`, not unreachable, whose card declares `skill`. */
  declaring(skill: string, caller: Caller): Promise<readonly CatalogEntry[]>;
}

/** The registry's side of the resolver, once loaded. */
export interface LoadedRegistry {
  catalog: SkillCatalog;
  /** The configured peers (SYNAPSE_PEERS), read again as their configuration says. */
  peers: () => Promise<PeerDirectory>;
  /** This hub's own Synapse agent id: never a route (its own card may be in its registry). */
  selfAgentId?: string;
}

/** Loads the registry's side on first use (the same promise after). */
export type RegistryLookup = () => Promise<LoadedRegistry>;

export interface RemoteSkillResolverOptions {
  /** SYNAPSE_REMOTE_SKILLS: wins over everything else. */
  skills?: RemoteSkills;
  /** The agent's `skillOf`, asked when a message's metadata names no skill. */
  skillOf?: SkillOf;
  /** The skill ids this hub's agent declares: done here unless the static map sends them away. */
  localSkills?: readonly string[];
  /** The registry; without it, the static map alone. */
  registry?: RegistryLookup;
}

const HEALTH_RANK: Readonly<Record<HealthStatus, number>> = {
  healthy: 0,
  unknown: 1,
  degraded: 2,
  unreachable: 3,
};

/** The order candidates are preferred in: health, a verified signature, then the identifier and id. */
export const preferredFirst = (a: CatalogEntry, b: CatalogEntry): number =>
  HEALTH_RANK[a.health] - HEALTH_RANK[b.health] ||
  Number(b.verification.status === 'verified') - Number(a.verification.status === 'verified') ||
  (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class RemoteSkillResolver {
  readonly #skills: RemoteSkills;
  readonly #local: ReadonlySet<string>;

  constructor(private readonly options: RemoteSkillResolverOptions = {}) {
    this.#skills = options.skills ?? {};
    this.#local = new Set(options.localSkills ?? []);
  }

  /** Whether any message could be routed away (the static map, or a registry to look in). */
  get active(): boolean {
    return Object.keys(this.#skills).length > 0 || this.options.registry !== undefined;
  }

  /** The skill a new message asks for: its metadata's `synapse.skill`, else the agent's `skillOf`. */
  skillOf(message: Message): string | undefined {
    const named = message.metadata?.[REQUEST_SKILL_KEY];
    return typeof named === 'string' ? named : this.options.skillOf?.(message);
  }

  /** The route of a new message: a peer, or undefined (this hub's agent does it). */
  async route(caller: Caller, message: Message): Promise<RemoteRoute | undefined> {
    if (!this.active) return undefined;
    const skill = this.skillOf(message);
    return skill === undefined ? undefined : this.resolve(caller, skill);
  }

  /** Who carries out `skill` for `caller`: a peer, or undefined (this hub's agent, or nobody known). */
  async resolve(caller: Caller, skill: string): Promise<RemoteRoute | undefined> {
    if (Object.hasOwn(this.#skills, skill)) return { ...this.#skills[skill]!, via: 'static' };
    if (this.#local.has(skill) || !this.options.registry) return undefined;
    const registry = await this.options.registry();
    const entries = await registry.catalog.declaring(skill, caller);
    if (entries.length === 0) return undefined;
    const peers = await registry.peers();
    const usable = entries.filter((entry) => {
      if (entry.state !== 'APPROVED' || entry.health === 'unreachable') return false;
      const params = synapseParamsOf(entry.card);
      if (!params || params.agentId === registry.selfAgentId) return false;
      if (params.taskTypes && !params.taskTypes.includes(skill)) return false;
      // a peer of another tenant gets nothing of this caller's (docs/synapse-protocol.md#the-requester-role)
      return peers.peer(params.agentId)?.tenant === caller.tenant;
    });
    const best = usable.sort(preferredFirst)[0];
    if (!best) return undefined;
    return { peer: synapseParamsOf(best.card)!.agentId, type: skill, via: 'registry', recordId: best.id };
  }
}
