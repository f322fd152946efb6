/**
 * The webhook sender's decisions that need no receiver: URLs refused before or after DNS (with an
 * injected resolver, so nothing is ever connected to), DNS failures and timeouts, Retry-After.
 * Deliveries to a real receiver are in test/integration/adapters/http/webhook-sender.test.ts.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, it } from 'node:test';
import { parseAllowlist, UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import {
  HttpWebhookSender,
  MAX_RETRY_AFTER_SECONDS,
  parseRetryAfter,
} from '../../../../shared/adapters/http/webhook-sender.ts';

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** A resolver from a fixed table that records what it was asked. */
const fakeDns = (table: Record<string, LookupAddress[]>) => {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answer = table[hostname];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return { asked, resolve };
};

const body = JSON.stringify({ statusUpdate: { taskId: 't1' } });

describe('webhook sender: refusals (nothing is connected to)', () => {
  it('refuses a name that resolves to a private or metadata address, after asking DNS once', async () => {
    const dns = fakeDns({
      'private.example.com': [v4('10.0.0.1')],
      'metadata.example.com': [v4('169.254.169.254')],
      'mixed.example.com': [v4('93.184.216.34'), v4('127.0.0.1')],
      'v6.example.com': [v6('2606:4700::1'), v6('::1')],
      'mapped.example.com': [v6('::ffff:10.0.0.1')],
    });
    const sender = new HttpWebhookSender({ guard: new UrlGuard(), resolve: dns.resolve, timeoutMs: 2000 });
    const cases = [
      ['https://private.example.com/hook', 'URL refused: resolves to a private address (10.0.0.1)'],
      ['https://metadata.example.com/', 'URL refused: resolves to a link-local address (169.254.169.254)'],
      ['https://mixed.example.com/', 'URL refused: resolves to a loopback address (127.0.0.1)'],
      ['https://v6.example.com/', 'URL refused: resolves to a loopback address (::1)'],
      [
        'https://mapped.example.com/',
        'URL refused: resolves to a private address (IPv4-mapped 10.0.0.1) (::ffff:10.0.0.1)',
      ],
    ] as const;
    for (const [url, error] of cases) {
      const result = await sender.post({ url, body });
      assert.equal(result.outcome, 'final', url);
      assert.equal(result.error, error);
      assert.equal(result.status, undefined);
      assert.equal(result.address, undefined);
      assert.ok(result.latencyMs < 1000);
    }
    assert.deepEqual(dns.asked, [
      'private.example.com',
      'metadata.example.com',
      'mixed.example.com',
      'v6.example.com',
      'mapped.example.com',
    ]);
  });

  it('refuses a name resolving to 127.0.0.1 even when plain http is allowed', async () => {
    const dns = fakeDns({ 'rebind.example.com': [v4('127.0.0.1')] });
    const sender = new HttpWebhookSender({ guard: new UrlGuard({ allowHttp: true }), resolve: dns.resolve });
    const result = await sender.post({ url: 'http://rebind.example.com:8080/', body });
    assert.deepEqual(
      { outcome: result.outcome, error: result.error },
      { outcome: 'final', error: 'URL refused: resolves to a loopback address (127.0.0.1)' },
    );
  });

  it('refuses localhost, literal private addresses and bad URLs without asking DNS', async () => {
    const dns = fakeDns({ localhost: [v4('127.0.0.1')] });
    const sender = new HttpWebhookSender({ guard: new UrlGuard(), resolve: dns.resolve });
    for (const url of [
      'https://localhost/',
      'http://localhost:8080/',
      'https://127.0.0.1/',
      'https://[::ffff:127.0.0.1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://evil.com@127.0.0.1/',
      'http://example.com/',
      'file:///etc/passwd',
    ]) {
      const result = await sender.post({ url, body });
      assert.equal(result.outcome, 'final', url);
      assert.match(result.error ?? '', /^URL refused: /);
    }
    assert.deepEqual(dns.asked, []);
  });

  it('does not trust a name the allowlist does not name, even if its address is allowlisted elsewhere', async () => {
    const dns = fakeDns({ 'hook.example.com': [v4('10.9.9.9')] });
    const guard = new UrlGuard({ allowlist: parseAllowlist('10.0.0.0/16') });
    const result = await new HttpWebhookSender({ guard, resolve: dns.resolve }).post({
      url: 'https://hook.example.com/',
      body,
    });
    assert.equal(result.outcome, 'final');
    assert.match(result.error ?? '', /private address \(10\.9\.9\.9\)/);
  });
});

describe('webhook sender: DNS trouble is retried', () => {
  it('retries when the name does not resolve', async () => {
    const sender = new HttpWebhookSender({ guard: new UrlGuard(), resolve: fakeDns({}).resolve });
    const result = await sender.post({ url: 'https://gone.example.com/', body });
    assert.equal(result.outcome, 'retry');
    assert.match(result.error ?? '', /^DNS lookup failed: .*ENOTFOUND/);
  });

  it('retries when DNS does not answer within the timeout', async () => {
    const sender = new HttpWebhookSender({
      guard: new UrlGuard(),
      resolve: () => new Promise(() => {}),
      timeoutMs: 50,
    });
    const result = await sender.post({ url: 'https://slow-dns.example.com/', body });
    assert.equal(result.outcome, 'retry');
    assert.equal(result.error, 'timed out after 50 ms (DNS)');
    assert.ok(result.latencyMs >= 45 && result.latencyMs < 1000, `${result.latencyMs} ms`);
  });
});

describe('Retry-After', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');
  it('reads delay-seconds and HTTP dates, capped, and ignores the unreadable', () => {
    assert.equal(parseRetryAfter('7', now, 900), 7);
    assert.equal(parseRetryAfter(' 0 ', now, 900), 0);
    assert.equal(parseRetryAfter('100000', now, 900), 900);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now, 900), 30);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:00 GMT', now, 900), 0);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now, 900), 0);
    assert.equal(parseRetryAfter('Fri, 02 Jan 2026 00:00:00 GMT', now, 900), 900);
    for (const bad of [undefined, '', '-5', '1.5', '7s', 'soon', '2026-01-02']) {
      assert.equal(parseRetryAfter(bad, now, 900), undefined, String(bad));
    }
    assert.equal(MAX_RETRY_AFTER_SECONDS, 900);
  });
});
