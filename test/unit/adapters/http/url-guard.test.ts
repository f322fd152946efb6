/**
 * The push-URL guard (docs/ssrf.md): hostile URLs refused at create time (no DNS), with the reason
 * the API returns; legitimate ones accepted and normalized; the allowlist; the send-time check of
 * resolved addresses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import {
  addressProblem,
  type PushTarget,
  parseAllowlist,
  UrlGuard,
  urlGuardFromEnv,
} from '../../../../shared/adapters/http/url-guard.ts';

const guard = new UrlGuard();

/** [url, what the reason must say]: every one must be refused by the default (production) guard. */
const HOSTILE: ReadonlyArray<readonly [string, RegExp]> = [
  // loopback, in every spelling the URL parser turns into 127.0.0.1
  ['https://127.0.0.1/', /loopback/],
  ['http://127.0.0.1/', /loopback/],
  ['https://127.0.0.1:8443/hook', /loopback/],
  ['https://2130706433/', /host 127\.0\.0\.1 is a loopback/],
  ['https://0177.0.0.1/', /host 127\.0\.0\.1 is a loopback/],
  ['https://0x7f.1/', /host 127\.0\.0\.1 is a loopback/],
  ['https://0x7f000001/', /host 127\.0\.0\.1 is a loopback/],
  ['https://017700000001/', /host 127\.0\.0\.1 is a loopback/],
  ['https://127.1/', /host 127\.0\.0\.1 is a loopback/],
  ['https://127.0.0.1./', /loopback/],
  ['https://%31%32%37.0.0.1/', /loopback/],
  ['https://127\u30020\u30020\u30021/', /loopback/],
  ['https://\u2460\u2461\u2466.0.0.1/', /loopback/],
  ['https://[::1]/', /loopback/],
  // names that are local by definition
  ['https://localhost/', /local or special-use name \(\.localhost\)/],
  ['https://LOCALHOST./', /\.localhost/],
  ['https://api.localhost/', /\.localhost/],
  ['https://metadata.google.internal/computeMetadata/v1/', /\.internal/],
  ['https://instance-data.ec2.internal/latest/', /\.internal/],
  ['https://printer.local/', /\.local\b/],
  ['https://kubernetes.default.svc/', /\.svc/],
  ['https://api.default.svc.cluster.local/', /\.local\b/],
  ['https://router.home.arpa/', /\.arpa/],
  ['https://1.0.0.127.in-addr.arpa/', /\.arpa/],
  ['https://hooks.example/', /\.example/],
  ['https://x.onion/', /\.onion/],
  ['https://metadata/', /single-label/],
  ['https://webhook-receiver/', /single-label/],
  // unspecified, private, shared, link-local (cloud metadata), unique-local
  ['https://0/', /unspecified/],
  ['https://0.0.0.0/', /unspecified/],
  ['https://[::]/', /unspecified/],
  ['https://10.0.0.5/', /private address/],
  ['https://172.16.0.1/', /private address/],
  ['https://172.31.255.255/', /private address/],
  ['https://192.168.1.1/', /private address/],
  ['https://100.64.0.1/', /carrier-grade NAT/],
  ['https://100.100.100.200/', /carrier-grade NAT/],
  ['https://169.254.169.254/latest/meta-data/', /link-local/],
  ['https://169.254.170.2/v2/credentials', /link-local/],
  ['https://[fe80::1]/', /link-local/],
  ['https://[fd00:ec2::254]/', /unique-local/],
  ['https://[fc00::1]/', /unique-local/],
  ['https://[fec0::1]/', /site-local/],
  // multicast, broadcast, reserved, documentation, benchmarking
  ['https://224.0.0.1/', /multicast/],
  ['https://[ff02::1]/', /multicast/],
  ['https://255.255.255.255/', /broadcast/],
  ['https://240.0.0.1/', /reserved/],
  ['https://192.0.2.10/', /reserved or documentation/],
  ['https://198.51.100.1/', /reserved or documentation/],
  ['https://203.0.113.7/', /reserved or documentation/],
  ['https://198.18.0.1/', /reserved/],
  ['https://192.0.0.8/', /reserved/],
  ['https://[2001:db8::1]/', /reserved or documentation/],
  ['https://[2001:2::1]/', /benchmarking/],
  ['https://[100::1]/', /discard/],
  // IPv4 inside IPv6
  ['https://[::ffff:127.0.0.1]/', /loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
  ['https://[::ffff:7f00:1]/', /IPv4-mapped 127\.0\.0\.1/],
  ['https://[::ffff:169.254.169.254]/', /link-local address \(IPv4-mapped 169\.254\.169\.254\)/],
  ['https://[::ffff:10.0.0.1]/', /private address \(IPv4-mapped 10\.0\.0\.1\)/],
  ['https://[::127.0.0.1]/', /IPv4-compatible/],
  ['https://[64:ff9b::a9fe:a9fe]/', /link-local address \(NAT64 of 169\.254\.169\.254\)/],
  ['https://[64:ff9b::7f00:1]/', /NAT64 of 127\.0\.0\.1/],
  ['https://[64:ff9b:1::a00:1]/', /NAT64|unicast/],
  ['https://[2002:7f00:1::]/', /6to4/],
  ['https://[2002:a9fe:a9fe::1]/', /6to4/],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /Teredo/],
  ['https://[::ffff:0:7f00:1]/', /IPv4-translated/],
  // userinfo tricks
  ['https://evil.com@127.0.0.1/', /user name or password/],
  ['https://user:pass@example.com/', /user name or password/],
  ['https://user@example.com/', /user name or password/],
  ['https://:secret@example.com/', /user name or password/],
  ['https://127.0.0.1#@evil.com/', /loopback|fragment/],
  ['https://evil.com#@127.0.0.1/', /fragment/],
  ['https://evil.com\\@127.0.0.1/', /backslash/],
  ['https:/\\127.0.0.1/', /backslash/],
  ['https:127.0.0.1/', /absolute URL/],
  ['https:///127.0.0.1/', /absolute URL/],
  // schemes
  ['http://example.com/hook', /plain http is allowed only for allowlisted hosts/],
  ['ftp://example.com/', /scheme "ftp"/],
  ['file:///etc/passwd', /scheme "file"/],
  ['gopher://127.0.0.1:6379/_FLUSHALL', /scheme "gopher"/],
  ['javascript:alert(1)', /scheme "javascript"/],
  ['data:text/plain,hi', /scheme "data"/],
  ['ws://example.com/', /scheme "ws"/],
  ['//example.com/hook', /not an absolute URL/],
  ['/hook', /not an absolute URL/],
  // ports
  ['https://example.com:25/', /port 25 is not allowed/],
  ['https://example.com:22/', /port 22/],
  ['https://example.com:0/', /port 0/],
  ['https://example.com:6667/', /port 6667/],
  ['https://example.com:99999/', /not a valid URL/],
  // form
  ['', /empty/],
  ['not-a-url', /not an absolute URL/],
  ['not a url', /whitespace/],
  [' https://example.com/', /whitespace/],
  ['https://example.com/\n', /whitespace/],
  ['https://exa\tmple.com/', /whitespace/],
  ['https://example.com/\u0000', /control/],
  [`https://example.com/${'a'.repeat(2100)}`, /longer than 2048/],
  ['https://a..b.com/', /not a valid DNS name/],
  [`https://${'a'.repeat(64)}.com/`, /not a valid DNS name/],
  [`https://${Array.from({ length: 60 }, () => 'abcd').join('.')}.com/`, /longer than 253/],
  ['https://ex_ample.com!/', /not a valid DNS name|not a valid URL/],
];

describe('push URL guard, at create time (no DNS)', () => {
  it('has a table of at least 30 hostile URLs', () => {
    assert.ok(HOSTILE.length >= 30, `${HOSTILE.length} hostile URLs`);
  });

  for (const [url, reason] of HOSTILE) {
    it(`refuses ${JSON.stringify(url.length > 80 ? `${url.slice(0, 77)}...` : url)}`, () => {
      const verdict = guard.check(url);
      assert.equal(verdict.ok, false, `accepted ${url}`);
      if (!verdict.ok) assert.match(verdict.reason, reason);
    });
  }

  const LEGIT: ReadonlyArray<readonly [string, string]> = [
    ['https://example.com/hook', 'https://example.com/hook'],
    ['https://Hooks.Example.COM:8443/a2a?task=1', 'https://hooks.example.com:8443/a2a?task=1'],
    ['https://example.com:443/x', 'https://example.com/x'],
    ['https://8.8.8.8/push', 'https://8.8.8.8/push'],
    ['https://[2606:4700:4700::1111]/push', 'https://[2606:4700:4700::1111]/push'],
    ['https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/'],
    ['https://[64:ff9b::808:808]/', 'https://[64:ff9b::808:808]/'],
    ['https://bücher.de/hook', 'https://xn--bcher-kva.de/hook'],
    ['https://webhooks.example.co.uk/a2a/v1', 'https://webhooks.example.co.uk/a2a/v1'],
    ['https://hook.example.com:8080/', 'https://hook.example.com:8080/'],
    ['HTTPS://EXAMPLE.COM/Path', 'https://example.com/Path'],
  ];
  for (const [url, normalized] of LEGIT) {
    it(`accepts ${url} as ${normalized}`, () => {
      assert.deepEqual(guard.check(url), { ok: true, url: normalized });
    });
  }

  it('refuses every address of the refused ranges (property)', () => {
    const v4 = (cidr: string) => {
      const [base, bits] = ipaddr.IPv4.parseCIDR(cidr);
      const start = base.toByteArray().reduce((n, b) => n * 256 + b, 0);
      return fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((offset) => {
        const n = start + offset;
        return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
      });
    };
    const ranges = [
      '0.0.0.0/8',
      '10.0.0.0/8',
      '100.64.0.0/10',
      '127.0.0.0/8',
      '169.254.0.0/16',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '224.0.0.0/4',
      '240.0.0.0/4',
    ];
    fc.assert(
      fc.property(fc.oneof(...ranges.map(v4)), (address) => {
        assert.ok(addressProblem(ipaddr.parse(address)), address);
        assert.equal(guard.check(`https://${address}/`).ok, false, address);
        assert.equal(guard.check(`https://[::ffff:${address}]/`).ok, false, address);
      }),
    );
  });
});

describe('push URL allowlist', () => {
  const allow = (list: string, over: { allowHttp?: boolean } = {}) =>
    new UrlGuard({ allowlist: parseAllowlist(list), ...over });

  it('is empty by default: the env guard refuses loopback', () => {
    assert.equal(urlGuardFromEnv({}).check('http://127.0.0.1:8080/').ok, false);
  });

  it('lets an allowlisted address through, over http too', () => {
    const g = allow('127.0.0.1');
    assert.deepEqual(g.check('http://127.0.0.1:8080/hook'), { ok: true, url: 'http://127.0.0.1:8080/hook' });
    assert.equal(g.check('https://127.0.0.1/').ok, true);
    assert.equal(g.check('http://2130706433:8080/').ok, true, 'any spelling of the address');
    assert.equal(g.check('http://127.0.0.2/').ok, false);
  });

  it('matches host:port entries on the port (the default port when the URL has none)', () => {
    const g = urlGuardFromEnv({ PUSH_URL_ALLOWLIST: 'localhost:8080, [::1]:9000 example.com:80' });
    assert.equal(g.check('http://localhost:8080/').ok, true);
    assert.equal(g.check('http://LOCALHOST.:8080/').ok, true);
    assert.equal(g.check('http://localhost:9090/').ok, false);
    assert.equal(g.check('http://[::1]:9000/').ok, true);
    assert.equal(g.check('http://[::1]:9001/').ok, false);
    assert.equal(g.check('http://example.com/').ok, true);
    assert.equal(g.check('http://example.com:8080/').ok, false);
  });

  it('lets a CIDR through and nothing outside it', () => {
    const g = allow('10.0.0.0/8,fd00::/8');
    assert.equal(g.check('https://10.1.2.3/').ok, true);
    assert.equal(g.check('https://[::ffff:10.1.2.3]/').ok, true);
    assert.equal(g.check('https://[fd12::1]/').ok, true);
    assert.equal(g.check('https://11.0.0.1/').ok, true, 'public anyway');
    assert.equal(g.check('https://192.168.0.1/').ok, false);
    assert.equal(g.check('http://11.0.0.1/').ok, false, 'http only for allowlisted destinations');
  });

  it('matches *.suffix entries on subdomains only', () => {
    const g = allow('*.dev.internal');
    assert.equal(g.check('http://hooks.dev.internal/').ok, true);
    assert.equal(g.check('http://dev.internal/').ok, false);
    assert.equal(g.check('http://evildev.internal/').ok, false);
  });

  it('never lifts the form rules (userinfo, scheme, fragment, length)', () => {
    const g = allow('127.0.0.1 localhost');
    assert.equal(g.check('http://evil.com@127.0.0.1/').ok, false);
    assert.equal(g.check('http://user:pass@localhost/').ok, false);
    assert.equal(g.check('ftp://127.0.0.1/').ok, false);
    assert.equal(g.check('http://127.0.0.1/#x').ok, false);
    assert.equal(g.check(`http://127.0.0.1/${'a'.repeat(2100)}`).ok, false);
  });

  it('allowHttp accepts http to public destinations only', () => {
    const g = allow('', { allowHttp: true });
    assert.equal(g.check('http://example.com/').ok, true);
    assert.equal(g.check('http://127.0.0.1/').ok, false);
    assert.equal(urlGuardFromEnv({ PUSH_URL_ALLOW_HTTP: 'true' }).check('http://example.com/').ok, true);
  });

  it('refuses unreadable entries as a configuration error', () => {
    for (const bad of [
      '10.0.0.0/33',
      'http://x/',
      'user@host',
      'host/path',
      'a b/c',
      'host:0',
      'host:70000',
      ':80',
    ]) {
      assert.throws(() => parseAllowlist(bad), /PUSH_URL_ALLOWLIST/, bad);
    }
  });
});

describe('push URL guard, at send time (resolved addresses)', () => {
  const target = (g: UrlGuard, url: string): PushTarget => {
    const verdict = g.inspect(url);
    assert.ok(verdict.ok, url);
    return verdict.target;
  };

  it('accepts a name whose addresses are all public', () => {
    assert.deepEqual(guard.checkResolved(target(guard, 'https://hook.example.com/'), ['93.184.216.34']), {
      ok: true,
    });
  });

  it('refuses a name when any address is not public, naming it', () => {
    const t = target(guard, 'https://hook.example.com/');
    assert.deepEqual(guard.checkResolved(t, ['93.184.216.34', '10.0.0.5']), {
      ok: false,
      reason: 'resolves to a private address (10.0.0.5)',
    });
    for (const [address, reason] of [
      ['127.0.0.1', /loopback/],
      ['169.254.169.254', /link-local/],
      ['::1', /loopback/],
      ['::ffff:127.0.0.1', /IPv4-mapped 127\.0\.0\.1/],
      ['fe80::1%eth0', /link-local/],
      ['fd00:ec2::254', /unique-local/],
      ['not-an-address', /cannot be read/],
    ] as const) {
      const verdict = guard.checkResolved(t, [address]);
      assert.equal(verdict.ok, false, address);
      if (!verdict.ok) assert.match(verdict.reason, reason);
    }
    assert.equal(guard.checkResolved(t, []).ok, false);
  });

  it('trusts what an allowlisted name resolves to, and allowlisted ranges for any name', () => {
    const g = new UrlGuard({ allowlist: parseAllowlist('localhost, 10.0.0.0/8'), allowHttp: false });
    assert.equal(g.checkResolved(target(g, 'http://localhost:3000/'), ['127.0.0.1', '::1']).ok, true);
    const named = target(g, 'https://hook.example.com/');
    assert.equal(g.checkResolved(named, ['10.2.3.4']).ok, true);
    assert.equal(g.checkResolved(named, ['10.2.3.4', '192.168.0.1']).ok, false);
  });
});
