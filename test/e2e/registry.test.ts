/**
 * The agent registry end to end on the local runtime with authentication on (local/hub.ts, the
 * authorizer, API keys made with the admin CLI): publishing and review (docs/registry.md#publishing-and-review),
 * visibility across principals and tenants, every refusal writing nothing, and a v0.3 card normalised
 * to v1.0. Registry calls are plain fetch (ARD's HTTP API, shared/app/registry/http-api.ts).
 *
 * Principals: acme/pub (read, write), acme/admin (read, write, approve), acme/reader (read),
 * evil/mallory (every right).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { type AuthCli, authCli } from './fixtures/auth.ts';
import {
  idsIn,
  type Json,
  type Reply,
  registryCall,
  registrySnapshot,
  shown,
  v1Card,
} from './fixtures/registry.ts';

let hub: LocalHub;
let cli: AuthCli;
const who = { pub: '', admin: '', reader: '', evil: '' };

before(async () => {
  hub = await startLocalHub({
    sweepIntervalMs: 60_000,
    auth: { throttle: { rateLimit: 10_000, burstLimit: 10_000 } },
    env: {
      // every request reads the catalog's feed: what one call wrote, the next one finds
      REGISTRY_CATALOG_REFRESH_MS: '0',
    },
  });
  cli = authCli(hub);
  await cli.addTenant('acme');
  await cli.addTenant('evil');
  who.pub = (await cli.createKey('acme', 'pub', 'read,write')).key;
  who.admin = (await cli.createKey('acme', 'admin', 'read,write,approve')).key;
  who.reader = (await cli.createKey('acme', 'reader', 'read')).key;
  who.evil = (await cli.createKey('evil', 'mallory', 'read,write,approve')).key;
});

after(async () => {
  cli?.close();
  await hub?.stop();
});

const call = (credential: string | undefined, method: string, path: string, body?: unknown) =>
  registryCall(hub.url, credential, method, path, body);

const search = (credential: string, text: string, filter?: Record<string, unknown>) =>
  call(credential, 'POST', '/search', { query: { text, ...(filter ? { filter } : {}) }, pageSize: 100 });

const browse = (credential: string, query = '') => call(credential, 'GET', `/agents?pageSize=100${query}`);

const aiCatalog = () => call(undefined, 'GET', '/.well-known/ai-catalog.json');

/** The answer, failing the test unless its status is `status`. */
const expect = (reply: Reply, status: number): Json => {
  assert.equal(reply.status, status, shown(reply));
  return reply.json;
};

/** ARD's error body: `{errorCode, message[, details]}` and nothing else. */
const assertArdError = (reply: Reply, status: number, errorCode: string) => {
  assert.equal(reply.status, status, shown(reply));
  assert.equal(reply.json?.errorCode, errorCode, shown(reply));
  assert.equal(typeof reply.json.message, 'string');
  assert.ok(reply.json.message.length > 0);
  for (const key of Object.keys(reply.json))
    assert.ok(['errorCode', 'message', 'details'].includes(key), key);
};

const resultOf = (reply: Reply, id: string): Json =>
  (reply.json?.results ?? reply.json?.items ?? reply.json?.entries ?? []).find(
    (e: Json) => e.metadata?.recordId === id,
  );

describe('publishing and review', () => {
  let id: string;
  const v1 = v1Card('Barometer Oracle', { description: 'Forecasts barometric pressure, version one' });

  it('a publisher publishes a card inline: 201, pending approval, nothing live, not found', async () => {
    const body = expect(await call(who.pub, 'POST', '/records', { card: v1, visibility: 'public' }), 201);
    id = body.id;
    assert.match(id, /^[A-Za-z0-9-]{1,64}$/);
    assert.equal(body.state, 'PENDING_APPROVAL');
    assert.equal(body.latestVersion, 1);
    assert.equal(body.liveVersion, undefined);
    assert.equal(body.visibility, 'public');
    assert.equal(body.name, 'Barometer Oracle');
    assert.equal(idsIn(await search(who.pub, 'barometer')).includes(id), false);
    assert.equal(idsIn(await aiCatalog()).includes(id), false);
  });

  it('the publisher cannot approve: 403 in ARD error shape, and the record is still pending', async () => {
    const before = await registrySnapshot(hub);
    const refused = await call(who.pub, 'POST', `/records/${id}:approve`, {});
    assertArdError(refused, 403, 'PERMISSION_DENIED');
    assert.equal(await registrySnapshot(hub), before);
    assert.equal(expect(await call(who.pub, 'GET', `/records/${id}`), 200).state, 'PENDING_APPROVAL');
  });

  it("the tenant's admin approves it: live, and search, browse and the ai-catalog find version 1", async () => {
    const approved = expect(await call(who.admin, 'POST', `/records/${id}:approve`, { version: 1 }), 200);
    assert.equal(approved.state, 'APPROVED');
    assert.equal(approved.liveVersion, 1);
    assert.equal(approved.reviews.at(-1).decision, 'approved');
    const hit = resultOf(await search(who.pub, 'barometer'), id);
    assert.ok(hit, 'search finds the approved record');
    assert.equal(hit.data.description, v1.description);
    assert.equal(hit.metadata.recordVersion, 1);
    assert.equal(typeof hit.score, 'number');
    assert.ok(resultOf(await browse(who.pub), id), 'browse lists it');
    assert.ok(resultOf(await aiCatalog(), id), 'the public ai-catalog lists it');
  });

  it('a new version keeps the approved one live until it is approved; a rejection leaves it', async () => {
    const v2 = { ...v1, description: 'Forecasts barometric pressure, version two' };
    const published = expect(await call(who.pub, 'POST', `/records/${id}/versions`, { card: v2 }), 201);
    assert.equal(published.state, 'PENDING_APPROVAL');
    assert.equal(published.latestVersion, 2);
    assert.equal(published.liveVersion, 1);
    let hit = resultOf(await search(who.pub, 'barometer'), id);
    assert.equal(hit?.data.description, v1.description, 'version 1 stays what search shows');
    assert.equal(hit.metadata.recordVersion, 1);
    // the record shows both: the version under review and the live one
    const shownRecord = expect(await call(who.admin, 'GET', `/records/${id}`), 200);
    assert.equal(shownRecord.latest.version, 2);
    assert.equal(shownRecord.latest.card.description, v2.description);
    assert.equal(shownRecord.live.version, 1);

    const rejected = expect(
      await call(who.admin, 'POST', `/records/${id}:reject`, { version: 2, note: 'not yet' }),
      200,
    );
    assert.equal(rejected.state, 'REJECTED');
    assert.equal(rejected.liveVersion, 1);
    assert.deepEqual(
      { decision: rejected.reviews.at(-1).decision, note: rejected.reviews.at(-1).note },
      { decision: 'rejected', note: 'not yet' },
    );
    hit = resultOf(await search(who.pub, 'barometer'), id);
    assert.equal(hit?.data.description, v1.description, 'the rejection leaves version 1 live');
    assert.equal(resultOf(await aiCatalog(), id)?.data.description, v1.description);
  });

  it('a third version, approved, replaces version 1 in search', async () => {
    const v3 = { ...v1, description: 'Forecasts barometric pressure, version three' };
    expect(await call(who.pub, 'POST', `/records/${id}/versions`, { card: v3 }), 201);
    const approved = expect(await call(who.admin, 'POST', `/records/${id}:approve`, { version: 3 }), 200);
    assert.equal(approved.liveVersion, 3);
    const hit = resultOf(await search(who.pub, 'barometer'), id);
    assert.equal(hit?.data.description, v3.description);
    assert.equal(hit.metadata.recordVersion, 3);
  });

  it('deprecated, it leaves search, browse and the ai-catalog', async () => {
    const deprecated = expect(
      await call(who.pub, 'POST', `/records/${id}:deprecate`, { note: 'retired' }),
      200,
    );
    assert.equal(deprecated.state, 'DEPRECATED');
    assert.equal(resultOf(await search(who.pub, 'barometer'), id), undefined);
    assert.equal(resultOf(await browse(who.pub), id), undefined);
    assert.equal(resultOf(await aiCatalog(), id), undefined);
    assertArdError(await call(who.pub, 'GET', `/agents/${id}`), 404, 'NOT_FOUND');
    // retired for good: no approval brings it back
    assertArdError(await call(who.admin, 'POST', `/records/${id}:approve`, {}), 400, 'FAILED_PRECONDITION');
  });
});

describe('visibility', () => {
  const ids = { public: '', tenant: '', private: '' };

  before(async () => {
    for (const [visibility, name] of [
      ['public', 'Tidal Almanac'],
      ['tenant', 'Tidal Harbourmaster'],
      ['private', 'Tidal Ledger'],
    ] as const) {
      const body = expect(await call(who.pub, 'POST', '/records', { card: v1Card(name), visibility }), 201);
      ids[visibility] = body.id;
    }
    // the private one stays pending for now: evil's attempt to approve it comes first
    for (const v of ['public', 'tenant'] as const)
      expect(await call(who.admin, 'POST', `/records/${ids[v]}:approve`, {}), 200);
  });

  it("evil cannot read, approve or deprecate acme's private record: 404, and nothing changes", async () => {
    const before = await registrySnapshot(hub);
    const record = expect(await call(who.pub, 'GET', `/records/${ids.private}`), 200);
    assert.equal(record.state, 'PENDING_APPROVAL');
    assertArdError(await call(who.evil, 'GET', `/records/${ids.private}`), 404, 'NOT_FOUND');
    assertArdError(await call(who.evil, 'GET', `/records/${ids.private}/versions/1`), 404, 'NOT_FOUND');
    assertArdError(await call(who.evil, 'POST', `/records/${ids.private}:approve`, {}), 404, 'NOT_FOUND');
    assertArdError(await call(who.evil, 'POST', `/records/${ids.private}:reject`, {}), 404, 'NOT_FOUND');
    assertArdError(await call(who.evil, 'POST', `/records/${ids.private}:deprecate`, {}), 404, 'NOT_FOUND');
    assertArdError(
      await call(who.evil, 'POST', `/records/${ids.private}/versions`, { card: v1Card('Tidal Ledger') }),
      404,
      'NOT_FOUND',
    );
    // …and is told exactly what a random id earns
    const random = await call(who.evil, 'GET', `/records/${crypto.randomUUID()}`);
    assert.equal(random.status, 404);
    assert.equal(await registrySnapshot(hub), before);
    const after = expect(await call(who.pub, 'GET', `/records/${ids.private}`), 200);
    assert.deepEqual(after, record);
    assert.equal(
      expect(await call(who.evil, 'GET', '/records?pageSize=100'), 200).records.length,
      0,
      "evil's list holds none of acme's records",
    );
  });

  it("approved by acme's admin, the private record is live", async () => {
    expect(await call(who.admin, 'POST', `/records/${ids.private}:approve`, {}), 200);
  });

  it('public is in the ai-catalog without credentials; tenant and private are not', async () => {
    const catalog = await aiCatalog();
    assert.equal(catalog.status, 200, shown(catalog));
    assert.equal(catalog.json.specVersion, '1.0');
    assert.ok(resultOf(catalog, ids.public), shown(catalog));
    assert.equal(resultOf(catalog, ids.public).metadata.visibility, 'public');
    assert.equal(resultOf(catalog, ids.tenant), undefined);
    assert.equal(resultOf(catalog, ids.private), undefined);
  });

  it('evil finds the public record only: search, browse and by id', async () => {
    const found = idsIn(await search(who.evil, 'tidal'));
    assert.ok(found.includes(ids.public), found.join());
    assert.equal(found.includes(ids.tenant), false);
    assert.equal(found.includes(ids.private), false);
    const listed = idsIn(await browse(who.evil));
    assert.ok(listed.includes(ids.public));
    assert.equal(listed.includes(ids.tenant), false);
    assert.equal(listed.includes(ids.private), false);
    expect(await call(who.evil, 'GET', `/agents/${ids.public}`), 200);
    assertArdError(await call(who.evil, 'GET', `/agents/${ids.tenant}`), 404, 'NOT_FOUND');
    assertArdError(await call(who.evil, 'GET', `/agents/${ids.private}`), 404, 'NOT_FOUND');
    // a filter naming the visibility changes nothing of what evil may see
    const byFilter = idsIn(await search(who.evil, 'tidal', { visibility: ['tenant', 'private'] }));
    assert.deepEqual(byFilter, []);
  });

  it("another acme caller finds public and tenant, not another's private; its admin neither", async () => {
    for (const caller of [who.reader, who.admin]) {
      const found = idsIn(await search(caller, 'tidal'));
      assert.ok(found.includes(ids.public) && found.includes(ids.tenant), found.join());
      assert.equal(found.includes(ids.private), false);
      assert.equal(idsIn(await browse(caller)).includes(ids.private), false);
      assertArdError(await call(caller, 'GET', `/agents/${ids.private}`), 404, 'NOT_FOUND');
    }
  });

  it('the publisher finds all three', async () => {
    const found = idsIn(await search(who.pub, 'tidal'));
    for (const id of Object.values(ids)) assert.ok(found.includes(id), found.join());
    const mine = expect(await call(who.pub, 'GET', `/agents/${ids.private}`), 200);
    assert.equal(mine.metadata.visibility, 'private');
  });
});

describe('refusals write nothing', () => {
  /** Runs `refuse`, then checks the registry's items are exactly as before. */
  const refusal = async (refuse: () => Promise<void>) => {
    const before = await registrySnapshot(hub);
    const listBefore = expect(await call(who.pub, 'GET', '/records?pageSize=100'), 200);
    await refuse();
    assert.equal(await registrySnapshot(hub), before, 'the refusal wrote to the registry');
    assert.deepEqual(expect(await call(who.pub, 'GET', '/records?pageSize=100'), 200), listBefore);
  };

  it('a card missing fields: 400 naming each of them', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/records', {
        card: { name: 'Half a card', skills: [{ id: 's', name: 'S' }], supportedInterfaces: [] },
      });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      const details: string[] = reply.json.details;
      for (const field of [
        'description',
        'version',
        'capabilities',
        'defaultInputModes',
        'defaultOutputModes',
        'skills[0].description',
        'skills[0].tags',
        'supportedInterfaces',
      ])
        assert.ok(
          details.some((d) => d.startsWith(`${field}:`)),
          `details name ${field}: ${JSON.stringify(details)}`,
        );
    }));

  it('a body that is not JSON: 400', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/records', { raw: '{"card": {"name": "oops"' });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      assert.match(reply.json.message, /not JSON/);
    }));

  it('a publish request with an unknown member: 400 naming it', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/records', { card: v1Card('Stray'), colour: 'red' });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      assert.ok(JSON.stringify(reply.json.details).includes('colour'), shown(reply));
    }));

  it('a v0.2 card: 400 naming its protocolVersion', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/records', {
        card: {
          protocolVersion: '0.2.5',
          name: 'Old Timer',
          description: 'An agent of A2A 0.2',
          url: 'https://old.example.com/a2a',
          version: '1.0.0',
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
        },
      });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      assert.ok(
        reply.json.details.some((d: string) => d.includes('protocolVersion') && d.includes('0.2.5')),
        shown(reply),
      );
    }));

  it('a body over 96 KiB: 413', () =>
    refusal(async () => {
      const card = { ...v1Card('Verbose'), description: 'x'.repeat(97 * 1024) };
      const reply = await call(who.pub, 'POST', '/records', { card });
      assertArdError(reply, 413, 'PAYLOAD_TOO_LARGE');
    }));

  it('no credentials: 401 with a challenge', () =>
    refusal(async () => {
      const reply = await call(undefined, 'POST', '/records', { card: v1Card('Anonymous') });
      assert.equal(reply.status, 401, shown(reply));
      assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer/);
      const read = await call(undefined, 'POST', '/search', { query: { text: 'tidal' } });
      assert.equal(read.status, 401, shown(read));
      assert.match(read.headers.get('www-authenticate') ?? '', /^Bearer/);
    }));

  it('a bad key: 401', () =>
    refusal(async () => {
      const reply = await call('syn_not-a-key', 'POST', '/records', { card: v1Card('Forged') });
      assert.equal(reply.status, 401, shown(reply));
    }));

  it('a caller with the read right only: 403', () =>
    refusal(async () => {
      assertArdError(
        await call(who.reader, 'POST', '/records', { card: v1Card('Read Only') }),
        403,
        'PERMISSION_DENIED',
      );
    }));

  it('a card URL the SSRF guard refuses: 400 saying refused', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/records', { cardUrl: 'http://169.254.169.254/latest' });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      assert.match(reply.json.message, /refused/i);
      assert.match(reply.json.message, /^cardUrl:/);
    }));

  it('a search filter with an unknown key: 400 naming it', () =>
    refusal(async () => {
      const reply = await call(who.pub, 'POST', '/search', {
        query: { text: 'tidal', filter: { colour: ['red'], health: ['sick'] } },
      });
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      const details: string[] = reply.json.details;
      assert.ok(
        details.some((d) => d.includes('colour') && d.includes('unknown')),
        shown(reply),
      );
      assert.ok(
        details.some((d) => d.includes('health') && d.includes('sick')),
        shown(reply),
      );
    }));

  it('a bad browse filter expression: 400 with the position', () =>
    refusal(async () => {
      const reply = await browse(who.pub, `&filter=${encodeURIComponent("tags = 'a' OR tags = 'b'")}`);
      assertArdError(reply, 400, 'INVALID_ARGUMENT');
      assert.ok(
        reply.json.details.some((d: string) => /position 12\b/.test(d) && d.includes('OR')),
        `OR (position 12) is named: ${shown(reply)}`,
      );
      const unquoted = await browse(who.pub, `&filter=${encodeURIComponent('tags = weather')}`);
      assertArdError(unquoted, 400, 'INVALID_ARGUMENT');
      assert.ok(
        unquoted.json.details.some((d: string) => /position 8\b/.test(d)),
        shown(unquoted),
      );
    }));

  it('pageSize 101: 400 on list, browse and search', () =>
    refusal(async () => {
      for (const reply of [
        await call(who.pub, 'GET', '/records?pageSize=101'),
        await call(who.pub, 'GET', '/agents?pageSize=101'),
        await call(who.pub, 'POST', '/search', { query: { text: 'tidal' }, pageSize: 101 }),
      ]) {
        assertArdError(reply, 400, 'INVALID_ARGUMENT');
        assert.match(reply.json.message, /^pageSize: /, shown(reply));
        assert.doesNotMatch(reply.json.message, /^pageSize: pageSize/, 'the field is named once');
      }
    }));

  it('a bad pageToken: 400 on list, browse and search', () =>
    refusal(async () => {
      for (const reply of [
        await call(who.pub, 'GET', '/records?pageToken=not%20a%20token'),
        await call(who.pub, 'GET', '/agents?pageToken=bm90LWEtdG9rZW4'),
        await call(who.pub, 'POST', '/search', { query: { text: 'tidal' }, pageToken: 'bm90LWEtdG9rZW4' }),
      ]) {
        assertArdError(reply, 400, 'INVALID_ARGUMENT');
        assert.match(reply.json.message, /^pageToken: /, shown(reply));
        assert.doesNotMatch(reply.json.message, /^pageToken: pageToken/, 'the field is named once');
      }
    }));

  it('an unknown route: 404', () =>
    refusal(async () => {
      assertArdError(await call(who.pub, 'GET', '/nowhere'), 404, 'NOT_FOUND');
      assertArdError(
        await call(who.admin, 'POST', `/records/${crypto.randomUUID()}:bless`, {}),
        404,
        'NOT_FOUND',
      );
      assertArdError(
        await call(who.admin, 'POST', `/records/${crypto.randomUUID()}:approve`, {}),
        404,
        'NOT_FOUND',
      );
    }));

  it('a wrong method: 405 with Allow', () =>
    refusal(async () => {
      const getSearch = await call(who.pub, 'GET', '/search');
      assert.equal(getSearch.status, 405, shown(getSearch));
      assert.equal(getSearch.headers.get('allow'), 'POST');
      const deleteRecords = await call(who.pub, 'DELETE', '/records');
      assert.equal(deleteRecords.status, 405, shown(deleteRecords));
      assert.equal(deleteRecords.headers.get('allow'), 'GET, POST');
      const postCatalog = await registryCall(hub.url, undefined, 'POST', '/.well-known/ai-catalog.json', {});
      // the gateway's answer: the route is GET only (AWS itself would answer 403, local/http-gateway.ts)
      assert.equal(postCatalog.status, 405, shown(postCatalog));
      assert.equal(postCatalog.headers.get('allow'), 'GET');
    }));
});

describe('a v0.3 card', () => {
  const v03 = {
    protocolVersion: '0.3.0',
    name: 'Glacier Surveyor',
    description: 'Surveys glacier retreat from satellite imagery (an A2A 0.3 agent).',
    url: 'https://glacier.example.com/a2a/v1',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: 'https://glacier.example.com/a2a/v1', transport: 'JSONRPC' },
      { url: 'https://glacier.example.com/a2a/rest', transport: 'HTTP+JSON' },
    ],
    version: '0.9.0',
    capabilities: { streaming: true, stateTransitionHistory: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'survey',
        name: 'Survey a glacier',
        description: 'Measures how far a glacier retreated',
        tags: ['glaciology', 'imagery'],
      },
    ],
  };
  let id: string;

  it('is accepted inline and kept normalised: shape 0.3, the v1.0 card, the original', async () => {
    const body = expect(await call(who.pub, 'POST', '/records', { card: v03, visibility: 'tenant' }), 201);
    id = body.id;
    const version = expect(await call(who.pub, 'GET', `/records/${id}/versions/1`), 200);
    assert.equal(version.shape, '0.3');
    assert.deepEqual(version.original, v03);
    const card = version.card;
    assert.equal(card.name, v03.name);
    assert.equal(card.url, undefined, 'the v0.3 top-level url is not a v1.0 field');
    assert.equal(card.protocolVersion, undefined);
    assert.deepEqual(
      card.supportedInterfaces.map((i: Json) => [i.url, i.protocolBinding, i.protocolVersion]),
      [
        ['https://glacier.example.com/a2a/v1', 'JSONRPC', '0.3'],
        ['https://glacier.example.com/a2a/rest', 'HTTP+JSON', '0.3'],
      ],
    );
    assert.equal(card.capabilities.stateTransitionHistory, undefined);
    assert.equal(version.verification.status, 'unsigned');
  });

  it('approved, search finds it with its v1.0 card', async () => {
    expect(await call(who.admin, 'POST', `/records/${id}:approve`, {}), 200);
    const hit = resultOf(await search(who.reader, 'glacier'), id);
    assert.ok(hit, 'search finds the v0.3 card');
    assert.equal(hit.data.supportedInterfaces[0].protocolVersion, '0.3');
    const byBinding = await search(who.reader, 'glacier', { 'supportedInterfaces.protocolVersion': '0.3' });
    assert.ok(resultOf(byBinding, id), shown(byBinding));
  });
});
