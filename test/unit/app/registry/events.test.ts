/** The registry's lifecycle events (shared/app/registry/events.ts), from the changes the stream shows. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  REGISTRY_EVENT_SOURCE,
  RegistryDetailType,
  registryEventsOf,
} from '../../../../shared/app/registry/events.ts';
import type { CatalogEntry } from '../../../../shared/domain/registry/record.ts';
import type { StoredRecord } from '../../../../shared/ports/registry-store.ts';
import { catalogEntry } from '../../../support/catalog-entry.ts';

const record = (over: Partial<StoredRecord> = {}): StoredRecord => ({
  tenant: 'acme',
  id: 'rec-1',
  identifier: 'urn:air:a.example:acme:weather',
  owner: 'alice',
  name: 'Weather',
  visibility: 'public',
  state: 'DRAFT',
  latestVersion: 1,
  health: 'unknown',
  reviews: [],
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  revision: 1,
  ...over,
});

const entry = (over: Partial<CatalogEntry> = {}): CatalogEntry =>
  catalogEntry(
    'rec-1',
    {
      name: 'Weather',
      description: 'd',
      supportedInterfaces: [],
      version: '1',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    },
    {
      identifier: 'urn:air:a.example:acme:weather',
      health: 'unknown',
      updatedAt: '2026-12-01T00:00:00.000Z',
      ...over,
    },
  );

const typesOf = (before: StoredRecord | undefined, after: StoredRecord) =>
  registryEventsOf({ kind: 'record', ...(before ? { before } : {}), after }).map((e) => e.detailType);

describe('registry lifecycle events', () => {
  it('one per review step: submitted, approved, rejected, deprecated; none for a draft', () => {
    assert.deepEqual(typesOf(undefined, record({ state: 'DRAFT' })), []);
    assert.deepEqual(typesOf(undefined, record({ state: 'PENDING_APPROVAL' })), [
      RegistryDetailType.Submitted,
    ]);
    assert.deepEqual(
      typesOf(record({ state: 'DRAFT' }), record({ state: 'PENDING_APPROVAL', revision: 2 })),
      [RegistryDetailType.Submitted],
    );
    assert.deepEqual(
      typesOf(record({ state: 'PENDING_APPROVAL' }), record({ state: 'APPROVED', revision: 2 })),
      [RegistryDetailType.Approved],
    );
    assert.deepEqual(
      typesOf(record({ state: 'PENDING_APPROVAL' }), record({ state: 'REJECTED', revision: 2 })),
      [RegistryDetailType.Rejected],
    );
    assert.deepEqual(typesOf(record({ state: 'APPROVED' }), record({ state: 'DEPRECATED', revision: 2 })), [
      RegistryDetailType.Deprecated,
    ]);
    // a new version submitted while another waits is submitted again
    assert.deepEqual(
      typesOf(
        record({ state: 'PENDING_APPROVAL', latestVersion: 1 }),
        record({ state: 'PENDING_APPROVAL', latestVersion: 2, revision: 2 }),
      ),
      [RegistryDetailType.Submitted],
    );
    // a health write of the record alone is no review step
    assert.deepEqual(
      typesOf(record({ state: 'APPROVED' }), record({ state: 'APPROVED', health: 'healthy' })),
      [],
    );
  });

  it('carry the source, a unique id per change, and what a consumer routes on', () => {
    const [event] = registryEventsOf({
      kind: 'record',
      before: record({ state: 'PENDING_APPROVAL' }),
      after: record({
        state: 'APPROVED',
        revision: 7,
        liveVersion: 1,
        updatedAt: '2026-12-02T00:00:00.000Z',
      }),
    });
    assert.equal(event?.source, REGISTRY_EVENT_SOURCE);
    assert.equal(event?.id, 'rec-1:7');
    assert.equal(event?.time, '2026-12-02T00:00:00.000Z');
    assert.deepEqual(event?.detail, {
      tenant: 'acme',
      recordId: 'rec-1',
      identifier: 'urn:air:a.example:acme:weather',
      name: 'Weather',
      visibility: 'public',
      state: 'APPROVED',
      version: 1,
      liveVersion: 1,
    });
  });

  it("a live agent's health change, and nothing when it stays or the entry is new or retired", () => {
    const changed = registryEventsOf({
      kind: 'entry',
      before: entry({ health: 'healthy' }),
      after: entry({ health: 'unreachable', updatedAt: '2026-12-02T00:00:00.000Z' }),
    });
    assert.deepEqual(
      changed.map((e) => [e.detailType, e.id, e.detail.health, e.detail.previousHealth]),
      [[RegistryDetailType.HealthChanged, 'rec-1:health:2026-12-02T00:00:00.000Z', 'unreachable', 'healthy']],
    );
    assert.deepEqual(registryEventsOf({ kind: 'entry', before: entry(), after: entry() }), []);
    assert.deepEqual(registryEventsOf({ kind: 'entry', after: entry({ health: 'healthy' }) }), []);
    assert.deepEqual(
      registryEventsOf({
        kind: 'entry',
        before: entry(),
        after: entry({ state: 'DEPRECATED', health: 'healthy' }),
      }),
      [],
    );
  });
});
