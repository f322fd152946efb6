/**
 * The catalog index (shared/app/registry/catalog-index.ts) on the labelled fixture cards and on small
 * hand-made ones: text ranks the right agent first and scores in 0–100; filters are exact (OR within a
 * key, AND across); the caller's visibility rule, unhealthy entries and DEPRECATED ones are honoured;
 * pages are complete, never repeat, survive a change between pages and refuse another query's token;
 * facets count entries, not skills; browse orders by name or time with the id as the last word; the
 * catalog entry JSON has ARD's shape.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CatalogIndex,
  toCatalogEntryJson,
  toSearchResultJson,
} from '../../../../shared/app/registry/catalog-index.ts';
import { ValidationError } from '../../../../shared/domain/errors.ts';
import { parseFilter } from '../../../../shared/domain/registry/filter.ts';
import type { CatalogEntry } from '../../../../shared/domain/registry/record.ts';
import { fixtureEntries } from '../../../bench/registry-precision.ts';
import { catalogEntry } from '../../../support/catalog-entry.ts';

const everyone = () => true;
const filterOf = (raw: unknown) => {
  const parsed = parseFilter(raw);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.filter;
};

function fixtureIndex(): CatalogIndex {
  const index = new CatalogIndex();
  for (const entry of fixtureEntries()) index.upsert(entry);
  return index;
}

/** A small card whose name, skill and tag are the words given. */
function entry(id: string, name: string, words: string, overrides: Partial<CatalogEntry> = {}): CatalogEntry {
  return catalogEntry(
    id,
    {
      name,
      description: `${name}: ${words}`,
      supportedInterfaces: [
        { url: `https://example.com/${id}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      version: '1.0.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: `${id}-skill`, name: words, description: words, tags: words.split(' ') }],
    },
    { identifier: `urn:air:example.com:agents:${id}`, ...overrides },
  );
}

describe('CatalogIndex.search', () => {
  it('ranks the agent a query means first, with integer scores from 0 to 100, best first', () => {
    const index = fixtureIndex();
    const parcel = index.search({ text: 'track my parcel delivery', visibleTo: everyone, pageSize: 10 });
    assert.equal(parcel.results[0]?.entry.id, 'parcelpath');
    const { results } = index.search({ text: 'weather', visibleTo: everyone, pageSize: 10 });
    assert.ok(results.length > 3);
    for (const hit of results) assert.ok(Number.isInteger(hit.score) && hit.score >= 0 && hit.score <= 100);
    const scores = results.map((hit) => hit.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.ok(scores[0]! > scores.at(-1)!, 'a weaker match scores lower');
  });

  it('finds plurals and word stems of what the card says (flights → flight, convert → conversion)', () => {
    const index = fixtureIndex();
    const flights = index.search({ text: 'flights to Rome', visibleTo: everyone, pageSize: 3 });
    assert.equal(flights.results[0]?.entry.id, 'skyroute-flights');
    const fx = index.search({ text: 'currency convert', visibleTo: everyone, pageSize: 3 });
    assert.equal(fx.results[0]?.entry.id, 'fxrate-converter');
  });

  it('gives 100 only to an entry matching every term, and drops entries under the relevance cutoff', () => {
    const index = new CatalogIndex();
    index.upsert(entry('a', 'Harbour Tides', 'harbour tides'));
    index.upsert(entry('b', 'Tides Only', 'tides'));
    const { results } = index.search({ text: 'harbour tides', visibleTo: everyone });
    assert.equal(results[0]?.entry.id, 'a');
    assert.equal(results[0]?.score, 100);
    for (const hit of results.slice(1)) assert.ok(hit.score < 60, `half the terms at most: ${hit.score}`);
    assert.deepEqual(index.search({ text: 'volcano', visibleTo: everyone }).results, []);
  });

  it('applies the filter exactly: OR within a key, AND across keys', () => {
    const index = fixtureIndex();
    const ids = (raw: unknown, text = 'appointment booking') =>
      index
        .search({ text, filter: filterOf(raw), visibleTo: everyone, pageSize: 100 })
        .results.map((h) => h.entry.id);
    assert.deepEqual(ids({ 'skills.tags': 'dental' }), ['smiledesk']);
    assert.deepEqual(
      new Set(ids({ 'skills.tags': ['dental', 'veterinary'] })),
      new Set(['smiledesk', 'vetvisit']),
    );
    assert.deepEqual(
      ids({ 'skills.tags': ['dental', 'veterinary'], 'provider.organization': 'PawsCare Clinics' }),
      ['vetvisit'],
    );
    const pushOnly = ids({ 'capabilities.pushNotifications': 'true' }, 'weather');
    assert.ok(pushOnly.length > 0);
    for (const id of pushOnly) assert.equal(index.get(id)?.card.capabilities.pushNotifications, true, id);
  });

  it('shows only what the caller may see', () => {
    const index = new CatalogIndex();
    index.upsert(entry('pub', 'Public Tides', 'tides', { visibility: 'public' }));
    index.upsert(entry('mine', 'Tenant Tides', 'tides', { visibility: 'tenant', tenant: 'acme' }));
    index.upsert(entry('theirs', 'Other Tides', 'tides', { visibility: 'tenant', tenant: 'globex' }));
    const asAcme = (e: CatalogEntry) => e.visibility === 'public' || e.tenant === 'acme';
    const ids = index.search({ text: 'tides', visibleTo: asAcme }).results.map((h) => h.entry.id);
    assert.deepEqual(new Set(ids), new Set(['pub', 'mine']));
  });

  it('leaves unreachable entries out unless asked, and keeps degraded ones', () => {
    const index = new CatalogIndex();
    index.upsert(entry('up', 'Tides Up', 'tides'));
    index.upsert(entry('slow', 'Tides Slow', 'tides', { health: 'degraded' }));
    index.upsert(entry('down', 'Tides Down', 'tides', { health: 'unreachable' }));
    const ids = (includeUnhealthy?: boolean) =>
      new Set(
        index.search({ text: 'tides', visibleTo: everyone, includeUnhealthy }).results.map((h) => h.entry.id),
      );
    assert.deepEqual(ids(), new Set(['up', 'slow']));
    assert.deepEqual(ids(true), new Set(['up', 'slow', 'down']));
  });

  it('drops a DEPRECATED upsert and a removal from every read, and replaces an updated card', () => {
    const index = new CatalogIndex();
    index.upsert(entry('a', 'Harbour Tides', 'tides'));
    index.upsert(entry('b', 'Surf Tides', 'tides'));
    index.upsert({ ...entry('a', 'Harbour Tides', 'tides'), state: 'DEPRECATED' });
    index.remove('b');
    index.remove('never-there');
    assert.equal(index.size, 0);
    assert.equal(index.get('a'), undefined);
    assert.deepEqual(index.search({ text: 'tides', visibleTo: everyone }).results, []);
    assert.equal(index.browse({ visibleTo: everyone }).total, 0);
    index.upsert(entry('c', 'Old Name', 'tides'));
    index.upsert(entry('c', 'New Name', 'glaciers'));
    assert.equal(index.size, 1);
    assert.deepEqual(index.search({ text: 'tides', visibleTo: everyone }).results, []);
    assert.equal(
      index.search({ text: 'glaciers', visibleTo: everyone }).results[0]?.entry.card.name,
      'New Name',
    );
  });

  it('pages through every result once, in the same order as one big page', () => {
    const index = fixtureIndex();
    const request = { text: 'weather', visibleTo: everyone };
    const all = index.search({ ...request, pageSize: 100 }).results.map((h) => h.entry.id);
    assert.ok(all.length > 6, `enough results for three pages: ${all.length}`);
    const paged: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = index.search({ ...request, pageSize: 3, pageToken });
      assert.ok(page.results.length <= 3);
      paged.push(...page.results.map((h) => h.entry.id));
      pageToken = page.pageToken;
    } while (pageToken !== undefined);
    assert.deepEqual(paged, all);
  });

  it('breaks ties deterministically by name then id', () => {
    const index = new CatalogIndex();
    for (const id of ['c', 'a', 'b']) index.upsert(entry(id, 'Same Tides', 'tides'));
    const ids = index.search({ text: 'tides', visibleTo: everyone }).results.map((h) => h.entry.id);
    assert.deepEqual(ids, ['a', 'b', 'c']);
  });

  it('refuses a bad page token, another query’s token, and bad sizes as validation errors', () => {
    const index = fixtureIndex();
    const first = index.search({ text: 'weather', visibleTo: everyone, pageSize: 2 });
    assert.ok(first.pageToken);
    for (const pageToken of ['not a token!', 'eyJ2IjoxfQ', Buffer.from('[1,2]').toString('base64url')]) {
      assert.throws(
        () => index.search({ text: 'weather', visibleTo: everyone, pageToken }),
        (e: unknown) => e instanceof ValidationError && e.field === 'pageToken',
        pageToken,
      );
    }
    assert.throws(
      () => index.search({ text: 'travel', visibleTo: everyone, pageToken: first.pageToken }),
      /belongs to another query/,
    );
    assert.throws(
      () => index.browse({ visibleTo: everyone, pageToken: first.pageToken }),
      /pageToken/,
      'a search token is not a browse token',
    );
    assert.throws(() => index.search({ text: 'weather', visibleTo: everyone, pageSize: 101 }), /pageSize/);
    assert.throws(() => index.search({ text: '   ', visibleTo: everyone }), /query.text: is required/);
  });
});

describe('CatalogIndex.explore', () => {
  it('counts matching entries per value, once per entry, best-filled buckets first', () => {
    const index = new CatalogIndex();
    const twoWeatherSkills = entry('a', 'A', 'weather');
    twoWeatherSkills.card.skills.push({
      id: 'a2',
      name: 'Radar',
      description: 'radar',
      tags: ['weather', 'radar'],
    });
    index.upsert(twoWeatherSkills);
    index.upsert(entry('b', 'B', 'weather'));
    index.upsert(entry('c', 'C', 'finance', { health: 'unreachable' }));
    index.upsert(entry('d', 'D', 'finance'));
    index.upsert(entry('e', 'E', 'travel'));
    const response = index.explore({
      facets: [{ field: 'skills.tags' }, { field: 'type' }, { field: 'health' }],
      visibleTo: everyone,
    });
    assert.equal(response.resultType, 'facets');
    assert.deepEqual(response.facets['skills.tags'], {
      buckets: [
        { value: 'weather', count: 2 },
        { value: 'finance', count: 1 },
        { value: 'radar', count: 1 },
        { value: 'travel', count: 1 },
      ],
    });
    assert.deepEqual(response.facets.type, {
      buckets: [{ value: 'application/a2a-agent-card+json', count: 4 }],
    });
    assert.deepEqual(response.facets.health, { buckets: [{ value: 'healthy', count: 4 }] });
  });

  it('narrows by text and filter, and applies limit, minCount and otherCount', () => {
    const index = fixtureIndex();
    const weather = index.explore({
      text: 'weather forecast',
      filter: filterOf({ 'capabilities.streaming': 'true' }),
      facets: [{ field: 'provider.organization' }],
      visibleTo: everyone,
    });
    const orgs = weather.facets['provider.organization']!.buckets.map((b) => b.value);
    assert.ok(orgs.includes('SkyCast Labs'), orgs.join());
    assert.ok(!orgs.includes('PollenPal'), 'not streaming');
    const capped = index.explore({
      facets: [{ field: 'provider.organization', limit: 3 }],
      visibleTo: everyone,
    });
    const facet = capped.facets['provider.organization']!;
    assert.equal(facet.buckets.length, 3);
    const shown = facet.buckets.reduce((sum, b) => sum + b.count, 0);
    assert.equal(facet.otherCount, index.size - shown, 'one organisation per entry: the rest are other');
    const popular = index.explore({
      facets: [{ field: 'provider.organization', minCount: 3 }],
      visibleTo: everyone,
    });
    for (const bucket of popular.facets['provider.organization']!.buckets) assert.ok(bucket.count >= 3);
  });

  it('refuses a facet field it cannot aggregate', () => {
    const index = new CatalogIndex();
    assert.throws(
      () => index.explore({ facets: [{ field: 'colour' }], visibleTo: everyone }),
      (e: unknown) => e instanceof ValidationError && e.field === 'resultType.facets[0].field',
    );
    assert.throws(() => index.explore({ facets: [], visibleTo: everyone }), /resultType.facets/);
  });
});

describe('CatalogIndex.browse', () => {
  const dated = (id: string, name: string, updatedAt: string) => entry(id, name, 'x', { updatedAt });

  it('orders by name (case aside) then id by default, or by time either way', () => {
    const index = new CatalogIndex();
    index.upsert(dated('3', 'beta', '2026-03-01T00:00:00Z'));
    index.upsert(dated('1', 'Alpha', '2026-01-01T00:00:00Z'));
    index.upsert(dated('2', 'Alpha', '2026-05-01T00:00:00Z'));
    index.upsert(dated('4', 'Gamma', '2026-02-01T00:00:00Z'));
    const ids = (orderBy?: Parameters<CatalogIndex['browse']>[0]['orderBy']) =>
      index.browse({ visibleTo: everyone, orderBy }).items.map((e) => e.id);
    assert.deepEqual(ids(), ['1', '2', '3', '4']);
    assert.deepEqual(ids([{ field: 'updatedAt', direction: 'DESC' }]), ['2', '3', '4', '1']);
    assert.deepEqual(ids([{ field: 'displayName', direction: 'DESC' }]), ['4', '3', '1', '2']);
    assert.deepEqual(
      ids([
        { field: 'displayName', direction: 'ASC' },
        { field: 'updatedAt', direction: 'DESC' },
      ]),
      ['2', '1', '3', '4'],
    );
  });

  it('pages completely with a total, and an entry added mid-way neither repeats nor hides the rest', () => {
    const index = fixtureIndex();
    const first = index.browse({ visibleTo: everyone, pageSize: 50 });
    assert.equal(first.items.length, 50);
    assert.equal(first.total, index.size);
    index.upsert(entry('aaa-early', 'AAA Early Bird', 'x'));
    const seen = first.items.map((e) => e.id);
    let pageToken = first.pageToken;
    while (pageToken !== undefined) {
      const page = index.browse({ visibleTo: everyone, pageSize: 50, pageToken });
      seen.push(...page.items.map((e) => e.id));
      pageToken = page.pageToken;
    }
    assert.equal(new Set(seen).size, seen.length, 'no entry twice');
    assert.equal(seen.length, index.size - 1, 'every entry but the one added before the cursor');
  });

  it('filters, hides what the caller may not see, and refuses a page size over 100', () => {
    const index = fixtureIndex();
    const page = index.browse({
      filter: filterOf({ 'supportedInterfaces.protocolBinding': 'GRPC' }),
      visibleTo: (e) => e.card.provider?.organization !== 'SkyCast Labs',
      pageSize: 100,
    });
    assert.ok(page.total > 0 && page.total === page.items.length);
    for (const e of page.items) {
      assert.ok(e.card.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC'));
      assert.notEqual(e.card.provider?.organization, 'SkyCast Labs');
    }
    assert.throws(() => index.browse({ visibleTo: everyone, pageSize: 101 }), /pageSize/);
  });
});

describe('CatalogIndex.browse, its matches kept per visibility key', () => {
  it('answers each visibility key with its own matches, and every change is seen at once', () => {
    const index = new CatalogIndex();
    index.upsert(entry('a', 'Alpha', 'x'));
    index.upsert(entry('b', 'Beta', 'x', { tenant: 'other' }));
    const acme = { visibleTo: (e: CatalogEntry) => e.tenant === 'acme', visibilityKey: 'acme' };
    const all = { visibleTo: everyone, visibilityKey: 'everyone' };
    const ids = (request: typeof acme) => index.browse(request).items.map((e) => e.id);
    assert.deepEqual(ids(acme), ['a']);
    assert.deepEqual(ids(all), ['a', 'b']);
    assert.deepEqual(ids(acme), ['a'], 'kept: the same answer');
    index.upsert(entry('c', 'Charlie', 'x'));
    assert.deepEqual(ids(acme), ['a', 'c'], 'an upsert is seen');
    index.upsert(entry('a', 'Alpha', 'x', { state: 'DEPRECATED' }));
    assert.deepEqual(ids(acme), ['c'], 'a retirement is seen');
    assert.equal(index.browse(acme).total, 1);
    index.remove('c');
    assert.deepEqual(ids(all), ['b'], 'a removal is seen');
  });
});

describe('CatalogIndex.search and explore, the ranking kept per visibility key', () => {
  it('answers each visibility key with its own hits, a health change is seen, and every change at once', () => {
    const index = new CatalogIndex();
    index.upsert(entry('a', 'Alpha', 'tides'));
    index.upsert(entry('b', 'Beta', 'tides', { tenant: 'other' }));
    const acme = { visibleTo: (e: CatalogEntry) => e.tenant === 'acme', visibilityKey: 'acme' };
    const all = { visibleTo: everyone, visibilityKey: 'everyone' };
    const ids = (caller: typeof acme, text = 'tides') =>
      index
        .search({ text, ...caller })
        .results.map((hit) => hit.entry.id)
        .sort();
    assert.deepEqual(ids(acme), ['a']);
    assert.deepEqual(ids(all), ['a', 'b']);
    assert.deepEqual(ids(acme), ['a'], 'kept: the same answer');
    assert.deepEqual(ids(acme, 'Tides'), ['a'], 'another text is ranked on its own');
    index.upsert(entry('c', 'Charlie', 'tides'));
    assert.deepEqual(ids(acme), ['a', 'c'], 'an upsert is seen');
    index.upsert(entry('a', 'Alpha', 'tides', { health: 'unreachable' }));
    assert.deepEqual(ids(acme), ['c'], 'an agent turned unreachable leaves');
    const facet = (caller: typeof acme) =>
      index.explore({ text: 'tides', facets: [{ field: 'skills.tags' }], ...caller }).facets['skills.tags']!
        .buckets;
    assert.deepEqual(facet(all), [{ value: 'tides', count: 2 }], 'explore counts the same ranking');
    index.remove('c');
    assert.deepEqual(ids(all), ['b'], 'a removal is seen');
    assert.deepEqual(facet(all), [{ value: 'tides', count: 1 }]);
  });
});

describe('toCatalogEntryJson', () => {
  it('is an ARD catalog entry: the card inline, tags deduped, skill ids as capabilities, flat metadata', () => {
    const e = entry('rec-9', 'Harbour Tides', 'tides', {
      verification: { status: 'verified', kid: 'k1', trustedBy: 'acme' },
      cardUrl: 'https://example.com/.well-known/agent-card.json',
    });
    e.card.skills.push({ id: 'surf', name: 'Surf', description: 'surf', tags: ['tides', 'surf'] });
    const json = toCatalogEntryJson(e, 'https://hub.example.com/registry');
    assert.equal(json.identifier, 'urn:air:example.com:agents:rec-9');
    assert.equal(json.displayName, 'Harbour Tides');
    assert.equal(json.type, 'application/a2a-agent-card+json');
    assert.equal(json.data, e.card);
    assert.deepEqual(json.tags, ['tides', 'surf']);
    assert.deepEqual(json.capabilities, ['rec-9-skill', 'surf']);
    assert.equal(json.version, '1.0.0');
    assert.equal(json.updatedAt, e.updatedAt);
    assert.equal(json.metadata.verified, true);
    assert.equal(json.metadata.health, 'healthy');
    assert.equal(json.metadata.cardUrl, 'https://example.com/.well-known/agent-card.json');
    assert.equal('url' in json, false, 'url and data are exclusive');
    for (const value of Object.values(json.metadata)) assert.ok(value === null || typeof value !== 'object');
    assert.match(json.identifier, /^urn:air:[a-zA-Z0-9.-]+(:[a-zA-Z0-9._-]+)+$/);
    const result = toSearchResultJson({ entry: e, score: 87 }, 'https://hub.example.com/registry');
    assert.equal(result.score, 87);
    assert.equal(result.source, 'https://hub.example.com/registry');
  });
});
