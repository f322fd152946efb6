/**
 * The registry's filters (shared/domain/registry/filter.ts): ARD's `query.filter` object is checked key
 * by key with every problem named, matched OR within a key and AND across keys; the browse expression
 * parses to the same object and points at the token it could not take; `orderBy` takes the two fields.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_ORDER_BY,
  FILTER_KEYS,
  matchesFilter,
  parseFilter,
  parseFilterExpression,
  parseOrderBy,
  valuesOf,
} from '../../../../shared/domain/registry/filter.ts';
import type { CatalogEntry } from '../../../../shared/domain/registry/record.ts';
import { catalogEntry } from '../../../support/catalog-entry.ts';

const entry = (overrides: Partial<CatalogEntry> = {}): CatalogEntry =>
  catalogEntry(
    'rec-1',
    {
      name: 'Acme Weather',
      description: 'Forecasts',
      supportedInterfaces: [
        { url: 'https://acme.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://acme.com/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ],
      provider: { organization: 'Acme', url: 'https://acme.com' },
      version: '1.0.0',
      capabilities: { streaming: true, extensions: [{ uri: 'https://acme.com/ext/trace' }] },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['application/json'],
      skills: [
        { id: 'forecast', name: 'Forecast', description: 'd', tags: ['weather', 'forecast'] },
        { id: 'radar', name: 'Radar', description: 'd', tags: ['weather'], inputModes: ['image/png'] },
      ],
    },
    {
      identifier: 'urn:air:acme.com:agents:weather',
      verification: { status: 'verified', kid: 'k1', trustedBy: 'acme' },
      ...overrides,
    },
  );

const parsed = (raw: unknown) => {
  const result = parseFilter(raw);
  assert.ok(result.ok, JSON.stringify(result));
  return result.filter;
};

describe('parseFilter', () => {
  it('takes a string as a one-value list and absent as the empty filter', () => {
    assert.deepEqual(parsed({ 'skills.tags': 'weather' }), { 'skills.tags': ['weather'] });
    assert.deepEqual(parsed(undefined), {});
    assert.deepEqual(parsed(null), {});
  });

  it('names every unknown key and every bad value, not only the first', () => {
    const result = parseFilter({
      colour: 'red',
      'skills.tags': [1, 'ok', null],
      'capabilities.streaming': 'yes',
      health: 'sick',
      'provider.organization': { a: 1 },
    });
    assert.equal(result.ok, false);
    if (result.ok) return;
    const text = result.errors.join('\n');
    assert.match(text, /filter\["colour"\]: unknown filter key/);
    assert.match(text, /filter\["skills.tags"\]\[0\]: must be a string, not number/);
    assert.match(text, /filter\["skills.tags"\]\[2\]: must be a string, not null/);
    assert.match(text, /filter\["capabilities.streaming"\]: must be "true" or "false", not "yes"/);
    assert.match(text, /filter\["health"\]: must be one of unknown, healthy, degraded, unreachable/);
    assert.match(text, /filter\["provider.organization"\]: must be a string or an array of strings/);
    assert.equal(result.errors.length, 6);
  });

  it('refuses a filter that is not an object', () => {
    for (const raw of ['skills.tags=x', 3, ['a']]) {
      const result = parseFilter(raw);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.errors[0]!, /filter: must be an object/);
    }
  });

  it('holds the limits: 20 keys, 50 values a key, 256 characters a value, at least one value', () => {
    const tooManyKeys = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'x']));
    const keys = parseFilter(tooManyKeys);
    assert.ok(!keys.ok && keys.errors[0]!.includes('has 21 keys; at most 20'));
    const values = parseFilter({ 'skills.tags': Array.from({ length: 51 }, (_, i) => `t${i}`) });
    assert.ok(!values.ok && values.errors[0]!.includes('has 51 values; at most 50'));
    const long = parseFilter({ 'skills.id': ['x'.repeat(257)] });
    assert.ok(!long.ok && long.errors[0]!.includes('[0]: is 257 characters; at most 256'));
    assert.ok(parseFilter({ 'skills.id': ['x'.repeat(256)] }).ok);
    const empty = parseFilter({ 'skills.id': [] });
    assert.ok(!empty.ok && empty.errors[0]!.includes('at least one value'));
  });

  it('lower-cases booleans and takes card paths through `data.` too', () => {
    assert.deepEqual(parsed({ verified: 'TRUE', 'data.capabilities.streaming': ['False'] }), {
      verified: ['true'],
      'capabilities.streaming': ['false'],
    });
    assert.equal(parseFilter({ 'data.health': 'healthy' }).ok, false, 'catalog terms are not card paths');
  });

  it('supports at least the keys the registry documents', () => {
    for (const key of [
      'type',
      'verified',
      'health',
      'visibility',
      'skills.tags',
      'skills.id',
      'skills.name',
      'provider.organization',
      'capabilities.streaming',
      'capabilities.pushNotifications',
      'capabilities.extensions.uri',
      'supportedInterfaces.protocolBinding',
      'supportedInterfaces.protocolVersion',
      'defaultInputModes',
      'defaultOutputModes',
      'skills.inputModes',
      'skills.outputModes',
    ]) {
      assert.ok((FILTER_KEYS as string[]).includes(key), key);
    }
  });
});

describe('matchesFilter', () => {
  const matches = (raw: unknown, e = entry()) => matchesFilter(e, parsed(raw));

  it('ORs values within a key and ANDs keys', () => {
    assert.equal(matches({ 'skills.tags': ['finance', 'forecast'] }), true);
    assert.equal(matches({ 'skills.tags': ['finance', 'travel'] }), false);
    assert.equal(matches({ 'skills.tags': 'weather', 'provider.organization': 'Acme' }), true);
    assert.equal(matches({ 'skills.tags': 'weather', 'provider.organization': 'Globex' }), false);
    assert.equal(matches({}), true);
  });

  it('matches exactly and case-sensitively, booleans aside', () => {
    assert.equal(matches({ 'provider.organization': 'acme' }), false);
    assert.equal(matches({ 'skills.name': 'Forecast' }), true);
    assert.equal(matches({ 'skills.name': 'Fore' }), false);
    assert.equal(matches({ 'capabilities.streaming': 'True' }), true);
  });

  it('reads a missing capability as false and a skill without modes as the card defaults', () => {
    assert.equal(matches({ 'capabilities.pushNotifications': 'false' }), true);
    assert.equal(matches({ 'capabilities.pushNotifications': 'true' }), false);
    assert.deepEqual(valuesOf(entry(), 'skills.inputModes'), ['text/plain', 'image/png']);
    assert.equal(matches({ 'skills.outputModes': 'application/json' }), true);
  });

  it('reaches interfaces, extensions and the catalog terms', () => {
    assert.equal(matches({ 'supportedInterfaces.protocolBinding': 'HTTP+JSON' }), true);
    assert.equal(matches({ 'supportedInterfaces.protocolBinding': 'GRPC' }), false);
    assert.equal(matches({ 'supportedInterfaces.protocolVersion': '0.3' }), true);
    assert.equal(matches({ 'capabilities.extensions.uri': 'https://acme.com/ext/trace' }), true);
    assert.equal(matches({ type: 'application/a2a-agent-card+json' }), true);
    assert.equal(matches({ type: 'application/mcp-server-card+json' }), false);
    assert.equal(matches({ publisher: 'acme.com' }), true);
    assert.equal(matches({ verified: 'true' }), true);
    assert.equal(matches({ verified: 'true' }, entry({ verification: { status: 'unsigned' } })), false);
    assert.equal(matches({ health: ['degraded', 'healthy'], visibility: 'public' }), true);
    assert.equal(matches({ visibility: 'tenant' }), false);
  });
});

describe('parseFilterExpression', () => {
  it('turns = and IN clauses joined by AND into the filter object', () => {
    const result = parseFilterExpression(
      "skills.tags = 'weather' and provider.organization IN ('Acme', 'O''Brien Ltd') AND capabilities.streaming = 'TRUE'",
    );
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.filter, {
      'skills.tags': ['weather'],
      'provider.organization': ['Acme', "O'Brien Ltd"],
      'capabilities.streaming': ['true'],
    });
    const empty = parseFilterExpression('   ');
    assert.ok(empty.ok && Object.keys(empty.filter).length === 0);
  });

  it('names the position and the token it could not take', () => {
    const cases: [string, RegExp][] = [
      ["skills.tags == 'x'", /position 14: expected a quoted value \('…'\), found "="/],
      ['skills.tags = weather', /position 15: expected a quoted value \('…'\), found "weather"/],
      [
        "skills.tags = 'a' OR health = 'healthy'",
        /position 19: expected AND or the end of the expression, found "OR"/,
      ],
      ["skills.tags IN ('a' 'b')", /position 21: expected ',' or '\)', found "'b'"/],
      ["skills.tags = 'a' AND", /position 22: expected a field name, found the end of the expression/],
      ["skills.tags = 'open", /position 15: the quoted value is not closed/],
      ["skills.tags ~ 'a'", /position 13: unexpected character "~"/],
      [
        "skills.tags = 'a' AND skills.tags = 'b'",
        /position 23: "skills.tags" is already constrained at position 1/,
      ],
    ];
    for (const [expression, error] of cases) {
      const result = parseFilterExpression(expression);
      assert.equal(result.ok, false, expression);
      if (!result.ok) assert.match(result.errors.join('\n'), error, expression);
    }
  });

  it('checks keys and values as the filter object does, with the clause position', () => {
    const result = parseFilterExpression("health = 'ok' AND colour = 'red'");
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.match(result.errors.join('\n'), /filter\["health"\]: must be one of .* \(at position 1\)/);
    assert.match(result.errors.join('\n'), /filter\["colour"\]: unknown filter key .*\(at position 19\)/);
  });
});

describe('parseOrderBy', () => {
  it('takes displayName and updatedAt, each ASC or DESC, default by name', () => {
    assert.deepEqual(parseOrderBy(undefined), { ok: true, value: DEFAULT_ORDER_BY });
    assert.deepEqual(parseOrderBy('updatedAt desc, displayName'), {
      ok: true,
      value: [
        { field: 'updatedAt', direction: 'DESC' },
        { field: 'displayName', direction: 'ASC' },
      ],
    });
  });

  it('refuses other fields, directions and repeats', () => {
    const result = parseOrderBy('name, updatedAt SIDEWAYS, displayName, displayName DESC');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.match(result.errors[0]!, /"name" is not a field to order by/);
    assert.match(result.errors[1]!, /after updatedAt expected ASC or DESC, found "SIDEWAYS"/);
    assert.match(result.errors[2]!, /displayName is given twice/);
  });
});
