/**
 * The registry's health probes end to end (docs/registry-health.md): hub A probes every 2 s
 * (REGISTRY_PROBE_PERIOD_SECONDS; the tick defaults to the period), hub B (a child process: `npm start`'s
 * entry) is published to A's registry by URL and approved. A finds B healthy (its card the same, every
 * interface answering TaskNotFound); B stops, and A's first report saying `unreachable` was taken within
 * two periods of B's stop, by the reports' own `checkedAt` (the test's deadlines are generous, they assert
 * no speed). Unreachable, B leaves search and browse unless the filter names health.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import {
  type ChildHub,
  freePort,
  idsIn,
  type Json,
  registryCall,
  shown,
  startChildHub,
  until,
} from './fixtures/registry.ts';

const PERIOD_SECONDS = 2;
/** The tick (the period itself here), a probe's own time and a poll's: a margin of several seconds. */
const DEADLINE_MS = (2 * PERIOD_SECONDS + PERIOD_SECONDS) * 1000 + 20_000;

let hubA: LocalHub;
let hubB: ChildHub | undefined;

before(async () => {
  hubB = await startChildHub(await freePort(), { PUSH_URL_ALLOWLIST: '127.0.0.1' });
  hubA = await startLocalHub({
    sweepIntervalMs: 60_000,
    env: {
      REGISTRY_PROBE_PERIOD_SECONDS: String(PERIOD_SECONDS),
      // the SSRF guard lets A fetch B's card and probe B on loopback
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      REGISTRY_CATALOG_REFRESH_MS: '0',
    },
  });
});

after(async () => {
  await hubA?.stop();
  await hubB?.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  registryCall(hubA.url, undefined, method, path, body);

const recordOf = async (id: string): Promise<Json> => {
  const reply = await call('GET', `/records/${id}`);
  assert.equal(reply.status, 200, shown(reply));
  return reply.json;
};

const searchIds = async (filter?: Record<string, unknown>) => {
  const reply = await call('POST', '/search', {
    query: { text: 'translator', ...(filter ? { filter } : {}) },
    pageSize: 100,
  });
  assert.equal(reply.status, 200, shown(reply));
  return idsIn(reply);
};

describe("B's health as A's registry probes it", () => {
  let id: string;
  let cardUrl: string;

  it("B's card is published to A by URL and approved", async () => {
    cardUrl = `${hubB!.url}/.well-known/agent-card.json`;
    const published = await call('POST', '/records', { cardUrl });
    assert.equal(published.status, 201, shown(published));
    id = published.json.id;
    assert.equal(published.json.cardUrl, cardUrl);
    assert.equal(published.json.health, 'unknown');
    const approved = await call('POST', `/records/${id}:approve`, {});
    assert.equal(approved.status, 200, shown(approved));
  });

  it('A finds B healthy: its card the same, every interface answering TaskNotFound', async () => {
    const record = await until(
      'B healthy',
      async () => {
        const r = await recordOf(id);
        return r.health === 'healthy' ? r : undefined;
      },
      DEADLINE_MS,
    );
    const report = record.healthReport;
    assert.equal(report.status, 'healthy', JSON.stringify(report));
    assert.ok(['same', 'unchanged'].includes(report.card.status), JSON.stringify(report.card));
    assert.equal(report.card.url, cardUrl);
    assert.ok(report.interfaces.length > 0);
    for (const i of report.interfaces.filter((i: Json) => i.outcome !== 'skipped')) {
      assert.equal(i.outcome, 'task-not-found', JSON.stringify(i));
      assert.ok(i.url.startsWith(hubB!.url), i.url);
    }
    assert.ok((await searchIds()).includes(id), 'healthy, B is found');
  });

  it('B stops: A marks it unreachable, first within two probe periods by the reports', async () => {
    const healthyBefore = (await recordOf(id)).healthReport;
    assert.equal(healthyBefore.status, 'healthy');
    await hubB!.stop();
    const stoppedAt = Date.now();
    hubB = undefined;
    // the first report after the stop that is not healthy (polled far faster than reports come)
    const first = await until(
      'an unreachable report',
      async () => {
        const report = (await recordOf(id)).healthReport;
        return report?.status === 'unreachable' ? report : undefined;
      },
      DEADLINE_MS,
      50,
    );
    const checkedAt = Date.parse(first.checkedAt);
    assert.ok(
      checkedAt <= stoppedAt + 2 * PERIOD_SECONDS * 1000,
      `the first unreachable report (checked at ${first.checkedAt}) came more than two periods after B stopped (${new Date(stoppedAt).toISOString()})`,
    );
    assert.ok(checkedAt > Date.parse(healthyBefore.checkedAt), 'a later report than the healthy one');
    assert.equal(first.card.status, 'failed', JSON.stringify(first.card));
    for (const i of first.interfaces.filter((i: Json) => i.outcome !== 'skipped'))
      assert.equal(i.outcome, 'failed', JSON.stringify(i));
    assert.equal((await recordOf(id)).health, 'unreachable');
  });

  it('unreachable, B is left out of search and browse unless the filter names health', async () => {
    // the catalog entry follows the record's health through the store's feed
    await until(
      'B out of search',
      async () => ((await searchIds()).includes(id) ? undefined : true),
      DEADLINE_MS,
    );
    assert.ok((await searchIds({ health: ['unreachable'] })).includes(id));
    assert.ok((await searchIds({ health: ['healthy', 'unreachable'] })).includes(id));
    assert.equal((await searchIds({ health: ['healthy'] })).includes(id), false, 'health narrows');
    const browse = await call('GET', '/agents?pageSize=100');
    assert.equal(idsIn(browse).includes(id), false, shown(browse));
    const byHealth = await call(
      'GET',
      `/agents?pageSize=100&filter=${encodeURIComponent("health = 'unreachable'")}`,
    );
    assert.equal(byHealth.status, 200, shown(byHealth));
    const entry = byHealth.json.items.find((e: Json) => e.metadata.recordId === id);
    assert.equal(entry?.metadata.health, 'unreachable', shown(byHealth));
  });
});
