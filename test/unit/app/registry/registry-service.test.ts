/**
 * The registry's management side (shared/app/registry/registry-service.ts) on the in-memory store: publish
 * by URL or inline, versions, review, deprecation, who may do what, and that a refusal writes nothing.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { InMemoryRegistryStore } from '../../../../shared/adapters/memory/registry-store.ts';
import { RegistryError, type RegistryErrorCode } from '../../../../shared/app/registry/errors.ts';
import {
  type CardHandling,
  identifierOf,
  RegistryService,
} from '../../../../shared/app/registry/registry-service.ts';
import type { Principal } from '../../../../shared/domain/principal.ts';
import type { CatalogEntry, RegistryCard } from '../../../../shared/domain/registry/record.ts';

const cardOf = (name = 'Weather', version = '1.0.0'): RegistryCard => ({
  name,
  description: 'Forecasts',
  supportedInterfaces: [
    { url: 'https://weather.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  version,
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'forecast', name: 'Forecast', description: 'Forecasts', tags: ['weather'] }],
});

const alice: Principal = { tenant: 'acme', owner: 'alice', rights: ['read', 'write'], scheme: 'api-key' };
const bob: Principal = { tenant: 'acme', owner: 'bob', rights: ['read', 'write'], scheme: 'api-key' };
const admin: Principal = {
  tenant: 'acme',
  owner: 'root',
  rights: ['read', 'write', 'approve'],
  scheme: 'api-key',
};
const mallory: Principal = {
  tenant: 'evil',
  owner: 'mallory',
  rights: ['read', 'write', 'approve'],
  scheme: 'api-key',
};
const reader: Principal = { tenant: 'acme', owner: 'carol', rights: ['read'], scheme: 'api-key' };

/** Cards by URL, served from a map; everything with a `name` string is a card. */
const handlingOf = (served: Map<string, string>): CardHandling => ({
  normalise: (raw) =>
    typeof raw === 'object' && raw !== null && typeof (raw as RegistryCard).name === 'string'
      ? { ok: true, card: raw as RegistryCard, shape: '1.0' }
      : { ok: false, errors: ['name: required'] },
  fetch: async (url) => {
    const body = served.get(url);
    return body === undefined ? { ok: false, error: 'HTTP 404' } : { ok: true, body, etag: '"e1"' };
  },
  verify: async () => ({ status: 'unsigned' }),
});

const rejectsWith = (p: Promise<unknown>, code: RegistryErrorCode, pattern?: RegExp) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof RegistryError, String(e));
    assert.equal(e.errorCode, code);
    if (pattern) assert.match(e.message + e.details.join(' '), pattern);
    return true;
  });

describe('RegistryService', () => {
  let store: InMemoryRegistryStore;
  let served: Map<string, string>;
  let service: RegistryService;
  let applied: CatalogEntry[];
  let now: number;

  beforeEach(() => {
    store = new InMemoryRegistryStore();
    served = new Map();
    applied = [];
    now = Date.parse('2026-12-01T00:00:00.000Z');
    let n = 0;
    service = new RegistryService(
      store,
      handlingOf(served),
      {
        now: () => {
          now += 1000;
          return new Date(now);
        },
      },
      () => `rec-${++n}`,
      (e) => applied.push(e),
    );
  });

  const feed = async () => (await store.catalogChanges()).entries;

  it('publishes a card by URL: fetched, kept with its ETag, pending approval, not yet in the catalog', async () => {
    served.set('https://weather.example/.well-known/agent-card.json', JSON.stringify(cardOf()));
    const record = await service.publish(alice, {
      cardUrl: 'https://weather.example/.well-known/agent-card.json',
      visibility: 'public',
    });
    assert.equal(record.state, 'PENDING_APPROVAL');
    assert.equal(record.identifier, 'urn:air:weather.example:acme:weather');
    assert.equal(record.cardUrl, 'https://weather.example/.well-known/agent-card.json');
    const version = await service.getVersion(alice, record.id, 1);
    assert.deepEqual(version.source, {
      kind: 'url',
      url: 'https://weather.example/.well-known/agent-card.json',
      etag: '"e1"',
    });
    assert.deepEqual(version.card, cardOf());
    assert.deepEqual(await feed(), []);
  });

  it('approval puts the version live; a new version is reviewed while the approved one stays live', async () => {
    const record = await service.publish(alice, { card: cardOf(), visibility: 'public' });
    const approved = await service.review(admin, record.id, 'approve', { version: 1, note: 'looks fine' });
    assert.equal(approved.state, 'APPROVED');
    assert.equal(approved.liveVersion, 1);
    assert.deepEqual(
      approved.reviews.map((r) => [r.version, r.decision, r.by, r.note]),
      [[1, 'approved', 'root', 'looks fine']],
    );
    assert.equal(applied.length, 1, 'the entry is applied to this container at once');
    assert.equal((await feed())[0]?.card.version, '1.0.0');

    const edited = await service.publishVersion(alice, record.id, { card: cardOf('Weather', '2.0.0') });
    assert.equal(edited.state, 'PENDING_APPROVAL');
    assert.equal(edited.latestVersion, 2);
    assert.equal(edited.liveVersion, 1, 'version 1 stays live');
    assert.equal((await feed()).length, 1, 'the catalog unchanged while version 2 is reviewed');

    // a reviewer who read version 1 cannot approve version 2 by mistake
    await rejectsWith(
      service.review(admin, record.id, 'approve', { version: 1 }),
      'FAILED_PRECONDITION',
      /version/,
    );
    const rejected = await service.review(admin, record.id, 'reject', { note: 'no' });
    assert.equal(rejected.state, 'REJECTED');
    assert.equal(rejected.liveVersion, 1, 'a rejected edit leaves the approved version live');
    const entries = await feed();
    assert.equal(entries.at(-1)?.card.version, '1.0.0');
  });

  it('a draft stays out of review until submitted', async () => {
    const record = await service.publish(alice, { card: cardOf(), draft: true });
    assert.equal(record.state, 'DRAFT');
    await rejectsWith(service.review(admin, record.id, 'approve'), 'FAILED_PRECONDITION', /DRAFT/);
    assert.equal((await service.submit(alice, record.id)).state, 'PENDING_APPROVAL');
    assert.equal((await service.review(admin, record.id, 'approve')).state, 'APPROVED');
  });

  it('deprecation retires the live entry for good', async () => {
    const record = await service.publish(alice, { card: cardOf(), visibility: 'public' });
    await service.review(admin, record.id, 'approve');
    const deprecated = await service.deprecate(alice, record.id, { note: 'replaced' });
    assert.equal(deprecated.state, 'DEPRECATED');
    assert.equal((await feed()).at(-1)?.state, 'DEPRECATED');
    assert.deepEqual(deprecated.reviews.at(-1), {
      version: 1,
      decision: 'deprecated',
      by: 'alice',
      at: deprecated.updatedAt,
      note: 'replaced',
    });
    await rejectsWith(
      service.publishVersion(alice, record.id, { card: cardOf() }),
      'FAILED_PRECONDITION',
      /DEPRECATED/,
    );
    await rejectsWith(service.submit(alice, record.id), 'FAILED_PRECONDITION');
  });

  it('approving needs the approve right; another publisher of the tenant cannot touch the record', async () => {
    const record = await service.publish(alice, { card: cardOf() });
    await assert.rejects(service.review(alice, record.id, 'approve'), /approve access/);
    await rejectsWith(service.publishVersion(bob, record.id, { card: cardOf() }), 'NOT_FOUND');
    await rejectsWith(service.deprecate(bob, record.id), 'NOT_FOUND');
    await rejectsWith(service.get(bob, record.id), 'NOT_FOUND');
    await assert.rejects(service.publish(reader, { card: cardOf('Other') }), /write access/);
    const after = await store.getRecord('acme', record.id);
    assert.equal(after?.revision, 1, 'nothing written');
    assert.equal(after?.state, 'PENDING_APPROVAL');
  });

  it("another tenant never reads or reviews a tenant's record, even with every right", async () => {
    const record = await service.publish(alice, { card: cardOf(), visibility: 'private' });
    await rejectsWith(service.get(mallory, record.id), 'NOT_FOUND');
    await rejectsWith(service.review(mallory, record.id, 'approve'), 'NOT_FOUND');
    assert.deepEqual((await service.list(mallory, { pageSize: 10 })).records, []);
    assert.equal((await store.getRecord('acme', record.id))?.state, 'PENDING_APPROVAL');
  });

  it("lists the records a caller manages: a publisher its own, a reviewer the tenant's", async () => {
    await service.publish(alice, { card: cardOf('A') });
    await service.publish(bob, { card: cardOf('B') });
    assert.deepEqual(
      (await service.list(alice, { pageSize: 10 })).records.map((r) => r.name),
      ['A'],
    );
    assert.deepEqual(
      (await service.list(admin, { pageSize: 10 })).records.map((r) => r.name),
      ['B', 'A'],
    );
  });

  it('refuses a bad card with every problem named, and writes nothing', async () => {
    await rejectsWith(service.publish(alice, { card: { nope: true } }), 'INVALID_ARGUMENT', /name: required/);
    await rejectsWith(service.publish(alice, {}), 'INVALID_ARGUMENT', /either cardUrl/);
    await rejectsWith(
      service.publish(alice, { card: cardOf(), cardUrl: 'https://x.example/card' }),
      'INVALID_ARGUMENT',
      /either cardUrl/,
    );
    await rejectsWith(
      service.publish(alice, { cardUrl: 'https://nowhere.example/card.json' }),
      'INVALID_ARGUMENT',
      /could not be fetched \(HTTP 404\)/,
    );
    served.set('https://x.example/card.json', '<html>');
    await rejectsWith(
      service.publish(alice, { cardUrl: 'https://x.example/card.json' }),
      'INVALID_ARGUMENT',
      /not JSON/,
    );
    await rejectsWith(
      service.publish(alice, { card: cardOf(), visibility: 'everyone' as never }),
      'INVALID_ARGUMENT',
      /visibility/,
    );
    assert.deepEqual((await store.listRecords('acme', { limit: 10 })).records, []);
  });

  it('refuses a second record under a taken identifier, pointing the tenant at the first', async () => {
    const first = await service.publish(alice, { card: cardOf() });
    await rejectsWith(service.publish(alice, { card: cardOf() }), 'ALREADY_EXISTS', new RegExp(first.id));
    assert.equal((await store.listRecords('acme', { limit: 10 })).records.length, 1);
  });

  it("publishes the hub's own card approved at once, and writes nothing when it is unchanged", async () => {
    const url = 'https://hub.example/.well-known/agent-card.json';
    const first = await service.publishOwn('default', url, cardOf('Synapse hub'));
    assert.equal(first.state, 'APPROVED');
    assert.equal(first.visibility, 'public');
    assert.equal(first.identifier, identifierOf(url, 'default', 'Synapse hub'));
    assert.equal(first.cardUrl, url, "probed where it was fetched from, not at its interfaces' origin");
    const again = await service.publishOwn('default', url, cardOf('Synapse hub'));
    assert.equal(again.revision, first.revision, 'unchanged: nothing written');
    const changed = await service.publishOwn('default', url, cardOf('Synapse hub', '2.0.0'));
    assert.equal(changed.liveVersion, 2);
    assert.equal(changed.state, 'APPROVED');
  });

  it('names agents with an ARD identifier', () => {
    assert.equal(
      identifierOf('https://Agents.Example.com:8443/card', 'Team A/B', 'Weather Bot 2!'),
      'urn:air:agents.example.com:team-a-b:weather-bot-2',
    );
    assert.match(
      identifierOf('http://127.0.0.1:8080/', 'default', '???'),
      /^urn:air:127\.0\.0\.1:default:agent$/,
    );
  });
});
