/**
 * The probe against the real local hub (which passes the A2A TCK): the TaskNotFound forms the probe
 * expects are what a real A2A server answers in each binding and version its card declares, its card
 * answers 304 to its own ETag, and a hub that demands credentials is alive (auth required).
 * The HttpClient here is a minimal one on fetch: the probe's requests are what is under test, not the
 * SSRF guard (shared/adapters/http/guarded-client.ts has its own tests).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../../../local/hub.ts';
import { cardUrlOf, probeAgent } from '../../../../shared/app/registry/probe.ts';
import { cardDigest } from '../../../../shared/domain/registry/health.ts';
import type { CatalogEntry, RegistryCard } from '../../../../shared/domain/registry/record.ts';
import type { HttpClient } from '../../../../shared/ports/http-client.ts';

const fetchClient: HttpClient = {
  async request(req) {
    const started = performance.now();
    try {
      const res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(req.timeoutMs ?? 5000),
      });
      const body = await res.text();
      const latencyMs = Math.round(performance.now() - started);
      if (req.maxBytes !== undefined && Buffer.byteLength(body) > req.maxBytes)
        return { ok: false, kind: 'failed', error: `answer over ${req.maxBytes} bytes`, latencyMs };
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      return { ok: true, status: res.status, headers, body, latencyMs };
    } catch (e) {
      return {
        ok: false,
        kind: 'failed',
        error: String(e),
        latencyMs: Math.round(performance.now() - started),
      };
    }
  },
};

/** The catalog entry of a hub, as the registry would hold it after publishing its well-known card. */
const entryOf = (card: RegistryCard, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: 'rec-hub',
  identifier: 'urn:air:synapse:local:hub',
  tenant: 'default',
  owner: 'tester',
  visibility: 'public',
  state: 'APPROVED',
  version: 1,
  card,
  verification: { status: 'unsigned' },
  health: 'unknown',
  updatedAt: new Date().toISOString(),
  ...extra,
});

const fetchCard = async (hub: LocalHub) => {
  const res = await fetch(`${hub.url}/.well-known/agent-card.json`);
  assert.equal(res.status, 200);
  return { card: (await res.json()) as RegistryCard, etag: res.headers.get('etag') ?? undefined };
};

describe('probing the local hub', () => {
  let hub: LocalHub;
  let published: { card: RegistryCard; etag?: string };

  before(async () => {
    hub = await startLocalHub({ port: 0, host: '127.0.0.1', sweepIntervalMs: 60_000 });
    published = await fetchCard(hub);
  });
  after(async () => hub?.stop());

  it('declares JSON-RPC 1.0 and 0.3 and HTTP+JSON 1.0, each answering TaskNotFound: healthy', async () => {
    const entry = entryOf(published.card, { cardUrl: `${hub.url}/.well-known/agent-card.json` });
    const report = await probeAgent({
      entry,
      liveCardDigest: cardDigest(published.card),
      http: fetchClient,
      now: () => new Date(),
      timeoutMs: 5000,
    });
    assert.deepEqual(
      report.interfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.outcome, i.error]),
      [
        ['JSONRPC', '1.0', 'task-not-found', undefined],
        ['HTTP+JSON', '1.0', 'task-not-found', undefined],
        ['JSONRPC', '0.3', 'task-not-found', undefined],
      ],
    );
    assert.equal(report.card.status, 'same');
    assert.equal(report.card.etag, published.etag);
    assert.equal(report.status, 'healthy');
  });

  it('answers 304 to the card ETag, found at the well-known URL of the first interface origin', async () => {
    assert.ok(published.etag, 'the hub sends an ETag');
    const entry = entryOf(published.card);
    assert.equal(cardUrlOf(entry), `${hub.url}/.well-known/agent-card.json`);
    const report = await probeAgent({
      entry,
      cardEtag: published.etag,
      liveCardDigest: cardDigest(published.card),
      http: fetchClient,
      now: () => new Date(),
      timeoutMs: 5000,
    });
    assert.equal(report.card.status, 'unchanged');
    assert.equal(report.card.httpStatus, 304);
    assert.equal(report.status, 'healthy');
  });

  it('reports drift when the live version is another card', async () => {
    const report = await probeAgent({
      entry: entryOf(published.card),
      liveCardDigest: cardDigest({ ...published.card, description: 'what was approved' }),
      http: fetchClient,
      now: () => new Date(),
      timeoutMs: 5000,
    });
    assert.equal(report.card.status, 'drifted');
    assert.equal(report.status, 'degraded');
  });
});

describe('probing a local hub that demands credentials', () => {
  let hub: LocalHub;

  before(async () => {
    hub = await startLocalHub({
      port: 0,
      host: '127.0.0.1',
      sweepIntervalMs: 60_000,
      auth: { throttle: false },
    });
  });
  after(async () => hub?.stop());

  it('gets a 401 challenge on every interface: alive, auth required, healthy', async () => {
    const { card } = await fetchCard(hub);
    const report = await probeAgent({
      entry: entryOf(card),
      liveCardDigest: cardDigest(card),
      http: fetchClient,
      now: () => new Date(),
      timeoutMs: 5000,
    });
    assert.deepEqual(
      report.interfaces.map((i) => [i.outcome, i.httpStatus]),
      [
        ['auth-required', 401],
        ['auth-required', 401],
        ['auth-required', 401],
      ],
    );
    assert.equal(report.status, 'healthy');
  });
});
