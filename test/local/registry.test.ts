/**
 * The registry on the running local hub, as `npm start` has it: the hub's own card published and approved
 * at start (findable at once, its health probed on the hub's schedule), and the registry's lifecycle events
 * on the bus, relayed from the table's stream like the tasks' (source `synapse.registry`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BusEvent } from '../../local/event-bus.ts';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { REGISTRY_EVENT_SOURCE, RegistryDetailType } from '../../shared/app/registry/events.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const until = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('the registry on the local hub', () => {
  let hub: LocalHub;
  const events: BusEvent[] = [];
  before(async () => {
    hub = await startLocalHub({
      env: { REGISTRY_PROBE_PERIOD_SECONDS: '1', REGISTRY_CATALOG_REFRESH_MS: '0' },
      onLifecycleEvent: (e) => events.push(e),
    });
  });
  after(async () => {
    await hub?.stop();
  });

  const post = async (path: string, body: unknown) =>
    fetch(`${hub.url}${path}`, { method: 'POST', body: JSON.stringify(body) });

  test("finds the hub's own agent at once, approved, and probes it healthy", async () => {
    const found = (await (await post('/registry/search', { query: { text: 'demo echo' } })).json()) as {
      results: { displayName: string; score: number; metadata: { recordId: string } }[];
    };
    assert.equal(found.results[0]?.displayName, 'Synapse demo agent');
    assert.equal(found.results[0]?.score, 100);
    const id = found.results[0]!.metadata.recordId;
    const record = await until('a healthy probe', async () => {
      const r = (await (await fetch(`${hub.url}/registry/records/${id}`)).json()) as {
        state: string;
        health: string;
        healthReport?: { interfaces: { outcome: string }[] };
      };
      return r.health === 'healthy' ? r : undefined;
    });
    assert.equal(record.state, 'APPROVED');
    // signed with the key set the hub serves, which its registry trusts for its own host
    const version = (await (await fetch(`${hub.url}/registry/records/${id}/versions/1`)).json()) as {
      verification: { status: string; trustedBy?: string };
    };
    assert.equal(version.verification.status, 'verified', JSON.stringify(version.verification));
    assert.ok(
      record.healthReport!.interfaces.every((i) => i.outcome === 'task-not-found'),
      'each interface answered TaskNotFound',
    );
  });

  test("explores the catalog: facet counts per entry, in ARD's shape; a bad facet is refused", async () => {
    const res = await post('/registry/explore', {
      resultType: { facets: [{ field: 'skills.tags' }, { field: 'capabilities.streaming' }] },
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      resultType: string;
      facets: Record<string, { buckets: { value: string; count: number }[] }>;
    };
    assert.equal(body.resultType, 'facets');
    assert.deepEqual(body.facets['capabilities.streaming']?.buckets, [{ value: 'true', count: 1 }]);
    assert.ok(body.facets['skills.tags']?.buckets.some((b) => b.value === 'echo' && b.count === 1));
    const bad = await post('/registry/explore', { resultType: { facets: [{ field: 'nope' }] } });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { errorCode: string }).errorCode, 'INVALID_ARGUMENT');
  });

  test('puts each review step on the bus, from the stream', async () => {
    const card = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    const created = (await (
      await post('/registry/records', { card: { ...card, name: 'Second agent' }, visibility: 'tenant' })
    ).json()) as { id: string };
    const approved = await post(`/registry/records/${created.id}:approve`, { note: 'fine' });
    assert.equal(approved.status, 200);
    const mine = () =>
      events.filter((e) => e.source === REGISTRY_EVENT_SOURCE && e.detail.recordId === created.id);
    await until('the approval event', async () =>
      mine().some((e) => e.detailType === RegistryDetailType.Approved) ? true : undefined,
    );
    assert.deepEqual(
      mine().map((e) => [e.detailType, e.detail.state]),
      [
        [RegistryDetailType.Submitted, 'PENDING_APPROVAL'],
        [RegistryDetailType.Approved, 'APPROVED'],
      ],
    );
    assert.equal(mine()[1]?.detail.identifier, `urn:air:127.0.0.1:default:second-agent`);
  });
});
