/**
 * Which peer carries out a skill (shared/app/synapse/remote-skills.ts): the static map, this hub's agent,
 * then the registry's catalog (shared/app/synapse/registry-skills.ts) over the in-memory registry store,
 * records published and reviewed through the RegistryService with the real card normaliser.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryRegistryStore } from '../../../../shared/adapters/memory/registry-store.ts';
import { Catalog } from '../../../../shared/app/registry/catalog.ts';
import { RegistryService } from '../../../../shared/app/registry/registry-service.ts';
import { parseRemoteSkills } from '../../../../shared/app/synapse/bridge.ts';
import { CatalogSkills, SkillDirectory } from '../../../../shared/app/synapse/registry-skills.ts';
import {
  type LoadedRegistry,
  preferredFirst,
  RemoteSkillResolver,
} from '../../../../shared/app/synapse/remote-skills.ts';
import type { Principal } from '../../../../shared/domain/principal.ts';
import type {
  CardVerification,
  CatalogEntry,
  HealthStatus,
} from '../../../../shared/domain/registry/record.ts';
import type { Message } from '../../../../shared/domain/task.ts';
import { normaliseCard } from '../../../../shared/protocol/a2a/card-normalise.ts';
import {
  SYNAPSE_EXTENSION_URI,
  synapseCardExtension,
  synapseParamsOf,
} from '../../../../shared/protocol/synapse/card-extension.ts';
import { parsePeers } from '../../../../shared/protocol/synapse/peers.ts';

const KEY = { id: 'k1', secret: 'a-shared-secret-of-at-least-32-chars' };
const peer = (peerId: string, tenant = 'acme') => ({
  peerId,
  tenant,
  endpoint: `https://${peerId}.example/synapse/callback`,
  keys: [KEY],
});

/** An A2A v1.0 card whose agent takes `skills`, carrying the Synapse extension of `agentId` (when given). */
const cardOf = (
  name: string,
  skills: string[],
  agentId?: string,
  params: { taskTypes?: string[]; endpoint?: string } = {},
) => ({
  name,
  description: `${name} agent`,
  supportedInterfaces: [
    { url: `https://${name}.example/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  version: '1.0.0',
  capabilities: agentId
    ? {
        extensions: [
          synapseCardExtension({
            agentId,
            endpoint: params.endpoint ?? `https://${name}.example/synapse/callback`,
            taskTypes: params.taskTypes ?? skills,
          }),
        ],
      }
    : {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: skills.map((id) => ({ id, name: id, description: id, tags: ['t'] })),
});

const publisher: Principal = { tenant: 'acme', owner: 'pub', rights: ['read', 'write'], scheme: 'api-key' };
const admin: Principal = {
  tenant: 'acme',
  owner: 'root',
  rights: ['read', 'write', 'approve'],
  scheme: 'api-key',
};
const other: Principal = {
  tenant: 'evil',
  owner: 'mallory',
  rights: ['read', 'write', 'approve'],
  scheme: 'api-key',
};
const caller = { tenant: 'acme', owner: 'alice' };

const message = (skill: string): Message => ({
  messageId: `m-${skill}`,
  role: 'user',
  parts: [{ text: 'hello' }],
  metadata: { 'synapse.skill': skill },
});

describe('RemoteSkillResolver', () => {
  let store: InMemoryRegistryStore;
  let clock: ManualClock;
  let service: RegistryService;
  let verified: Set<string>;
  let loads: number;
  let peers: ReturnType<typeof parsePeers>;
  const registry = () => {
    const loaded: LoadedRegistry = {
      catalog: new CatalogSkills(new Catalog(new SkillDirectory(), store, clock, 0)),
      peers: async () => peers,
      selfAgentId: 'hub-self',
    };
    return async () => {
      loads++;
      return loaded;
    };
  };
  const resolverWith = (options: ConstructorParameters<typeof RemoteSkillResolver>[0] = {}) =>
    new RemoteSkillResolver({ localSkills: ['echo'], registry: registry(), ...options });

  /** Publishes a card (inline, from `https://<name>.example`) as `who`, approved unless told otherwise. */
  const publish = async (
    card: ReturnType<typeof cardOf>,
    options: { who?: Principal; visibility?: 'public' | 'tenant' | 'private'; approve?: boolean } = {},
  ) => {
    const who = options.who ?? publisher;
    const record = await service.publish(
      who,
      { card, visibility: options.visibility ?? 'tenant' },
      `https://${card.name}.example`,
    );
    if (options.approve === false) return record;
    return service.review(who === publisher ? admin : who, record.id, 'approve');
  };
  const setHealth = (tenant: string, id: string, health: HealthStatus) =>
    store.putHealth(tenant, id, health, { probe: 'test' }, clock.now().toISOString());

  beforeEach(() => {
    store = new InMemoryRegistryStore();
    clock = new ManualClock('2026-12-01T00:00:00.000Z');
    verified = new Set();
    loads = 0;
    peers = parsePeers([peer('hub-b'), peer('hub-c'), peer('hub-d'), peer('hub-evil', 'evil')]);
    let n = 0;
    service = new RegistryService(
      store,
      {
        normalise: normaliseCard,
        fetch: async () => ({ ok: false, error: 'inline only' }),
        verify: async (card): Promise<CardVerification> =>
          verified.has(card.name)
            ? { status: 'verified', kid: 'k', trustedBy: 'test' }
            : { status: 'unsigned' },
      },
      {
        now: () => {
          clock.advance(1000);
          return clock.now();
        },
      },
      () => `rec-${++n}`,
    );
  });

  it('routes a skill to an approved agent of the registry that is a configured peer, as its task type', async () => {
    const record = await publish(cardOf('bravo', ['translate'], 'hub-b'));
    const route = await resolverWith().route(caller, message('translate'));
    assert.deepEqual(route, { peer: 'hub-b', type: 'translate', via: 'registry', recordId: record.id });
  });

  it('finds nothing for a record not approved (pending, or rejected)', async () => {
    await publish(cardOf('bravo', ['translate'], 'hub-b'), { approve: false });
    const rejected = await publish(cardOf('charlie', ['translate'], 'hub-c'), { approve: false });
    await service.review(admin, rejected.id, 'reject');
    assert.equal(await resolverWith().route(caller, message('translate')), undefined);
  });

  it('forgets a deprecated record', async () => {
    const record = await publish(cardOf('bravo', ['translate'], 'hub-b'));
    const resolver = resolverWith();
    assert.equal((await resolver.route(caller, message('translate')))?.peer, 'hub-b');
    await service.deprecate(publisher, record.id);
    assert.equal(await resolver.route(caller, message('translate')), undefined);
  });

  it('skips an unreachable agent for another that is not', async () => {
    const b = await publish(cardOf('bravo', ['translate'], 'hub-b'));
    const c = await publish(cardOf('charlie', ['translate'], 'hub-c'));
    await setHealth('acme', b.id, 'unreachable');
    await setHealth('acme', c.id, 'degraded');
    assert.equal((await resolverWith().route(caller, message('translate')))?.peer, 'hub-c');
    await setHealth('acme', c.id, 'unreachable');
    assert.equal(await resolverWith().route(caller, message('translate')), undefined);
  });

  it("does not see another tenant's private or tenant record, and sees a public one", async () => {
    await publish(cardOf('evil1', ['translate'], 'hub-b'), { who: other, visibility: 'private' });
    await publish(cardOf('evil2', ['translate'], 'hub-b'), { who: other, visibility: 'tenant' });
    assert.equal(await resolverWith().route(caller, message('translate')), undefined);
    const open = await publish(cardOf('evil3', ['translate'], 'hub-b'), { who: other, visibility: 'public' });
    assert.equal((await resolverWith().route(caller, message('translate')))?.recordId, open.id);
  });

  it("does not see another owner's private record of the same tenant, but its own", async () => {
    const own = await publish(cardOf('bravo', ['translate'], 'hub-b'), { visibility: 'private' });
    assert.equal(await resolverWith().route(caller, message('translate')), undefined);
    assert.equal(
      (await resolverWith().route({ tenant: 'acme', owner: 'pub' }, message('translate')))?.recordId,
      own.id,
    );
  });

  it('uses no agent that is not a configured peer of the caller’s tenant, nor one without the extension', async () => {
    await publish(cardOf('stranger', ['translate'], 'hub-unknown'));
    await publish(cardOf('elsewhere', ['translate'], 'hub-evil')); // configured, for tenant evil
    await publish(cardOf('plain', ['translate'])); // no Synapse extension
    await publish(cardOf('self', ['translate'], 'hub-self'));
    await publish(cardOf('typed', ['translate'], 'hub-b', { taskTypes: ['summarize'] })); // does not take it
    assert.equal(await resolverWith().route(caller, message('translate')), undefined);
    peers = parsePeers([peer('hub-unknown')]);
    assert.equal((await resolverWith().route(caller, message('translate')))?.peer, 'hub-unknown');
  });

  it('lets SYNAPSE_REMOTE_SKILLS win, without loading the registry', async () => {
    await publish(cardOf('bravo', ['translate'], 'hub-b'));
    const resolver = resolverWith({
      skills: parseRemoteSkills('{"translate":{"peer":"hub-s","type":"tr-2"}}'),
    });
    assert.deepEqual(await resolver.route(caller, message('translate')), {
      peer: 'hub-s',
      type: 'tr-2',
      via: 'static',
    });
    assert.equal(loads, 0);
  });

  it("leaves this hub's own skills, and messages naming none, here without loading the registry", async () => {
    await publish(cardOf('bravo', ['echo'], 'hub-b'));
    const resolver = resolverWith();
    assert.equal(await resolver.route(caller, message('echo')), undefined);
    assert.equal(
      await resolver.route(caller, { messageId: 'x', role: 'user', parts: [{ text: 'hi' }] }),
      undefined,
    );
    assert.equal(loads, 0);
    assert.equal(await resolver.route(caller, message('nobody-has-it')), undefined);
    assert.equal(loads, 1, 'loaded for a skill neither local nor static');
    assert.equal(
      await new RemoteSkillResolver({}).route(caller, message('translate')),
      undefined,
      'no registry',
    );
  });

  it('prefers healthy, then verified, then the identifier', async () => {
    const d = await publish(cardOf('delta', ['translate'], 'hub-d'));
    const c = await publish(cardOf('charlie', ['translate'], 'hub-c'));
    const b = await publish(cardOf('bravo', ['translate'], 'hub-b'));
    const pick = async () => (await resolverWith().route(caller, message('translate')))?.recordId;
    assert.equal(await pick(), b.id, 'all unknown and unsigned: the first identifier (bravo)');
    verified.add('delta');
    await service.publishVersion(
      publisher,
      d.id,
      { card: cardOf('delta', ['translate'], 'hub-d') },
      'https://delta.example',
    );
    await service.review(admin, d.id, 'approve');
    assert.equal(await pick(), d.id, 'verified before unsigned');
    await setHealth('acme', c.id, 'healthy');
    assert.equal(await pick(), c.id, 'healthy before unknown, verified or not');
    await setHealth('acme', c.id, 'degraded');
    assert.equal(await pick(), d.id, 'degraded after unknown');
  });

  it('orders candidates the same whatever order they come in', () => {
    const entry = (id: string, health: HealthStatus, verifiedBy?: string): CatalogEntry =>
      ({
        id,
        identifier: `urn:air:x:acme:${id}`,
        health,
        verification: verifiedBy
          ? { status: 'verified', kid: 'k', trustedBy: verifiedBy }
          : { status: 'unsigned' },
      }) as CatalogEntry;
    const all = [
      entry('e', 'degraded', 'k'),
      entry('a', 'unknown'),
      entry('c', 'healthy'),
      entry('b', 'healthy', 'k'),
    ];
    const ids = (list: CatalogEntry[]) => [...list].sort(preferredFirst).map((e) => e.id);
    assert.deepEqual(ids(all), ['b', 'c', 'a', 'e']);
    assert.deepEqual(ids([...all].reverse()), ['b', 'c', 'a', 'e']);
  });
});

describe('the card extension', () => {
  it('reads back what it writes, and nothing malformed', () => {
    const extension = synapseCardExtension({
      agentId: 'hub-b',
      endpoint: 'https://b.example/synapse/callback',
      taskTypes: ['echo'],
    });
    assert.equal(extension.uri, SYNAPSE_EXTENSION_URI);
    assert.equal(extension.required, false);
    const card = (params: Record<string, unknown>) => ({
      capabilities: { extensions: [{ uri: SYNAPSE_EXTENSION_URI, params }] },
    });
    assert.deepEqual(synapseParamsOf({ capabilities: { extensions: [extension] } }), {
      agentId: 'hub-b',
      endpoint: 'https://b.example/synapse/callback',
      taskTypes: ['echo'],
    });
    assert.deepEqual(synapseParamsOf(card({ agentId: 'a', endpoint: 'http://a.example/cb' })), {
      agentId: 'a',
      endpoint: 'http://a.example/cb',
    });
    for (const params of [
      { endpoint: 'https://a.example/cb' },
      { agentId: '', endpoint: 'https://a.example/cb' },
      { agentId: 'a\u0000b', endpoint: 'https://a.example/cb' },
      { agentId: 'a', endpoint: 'ftp://a.example/cb' },
      { agentId: 'a', endpoint: 'not a url' },
      { agentId: 'a', endpoint: 'https://a.example/cb', taskTypes: 'echo' },
      { agentId: 'a', endpoint: 'https://a.example/cb', taskTypes: [1] },
    ])
      assert.equal(synapseParamsOf(card(params)), undefined, JSON.stringify(params));
    assert.equal(synapseParamsOf({ capabilities: {} }), undefined);
    assert.equal(synapseParamsOf({}), undefined);
  });
});
