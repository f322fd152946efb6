/**
 * DNS pinning keeps TLS honest: the sender connects to the vetted address but sends SNI and Host for
 * the URL's host name and verifies the certificate against that name. The receiver is an https
 * server on 127.0.0.1 with a throwaway certificate made by openssl.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllowlist, UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../../../../shared/adapters/http/webhook-sender.ts';

const selfSigned = (dir: string, name: string) => {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name}`,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
};

// openssl is on every machine these tests run on (Debian); without it the suite fails rather than skips
describe('webhook sender over https with a pinned address', () => {
  let dir: string;
  let server: https.Server;
  let port: number;
  let cert: Buffer;
  const servernames: Array<string | undefined> = [];
  const hosts: Array<string | undefined> = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'synapse-tls-'));
    const pair = selfSigned(dir, 'hook.example.com');
    cert = pair.cert;
    server = https.createServer({ key: pair.key, cert: pair.cert }, (req, res) => {
      hosts.push(req.headers.host);
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    server.on('secureConnection', (socket) => {
      servernames.push((socket as unknown as { servername?: string }).servername);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const pinnedTo127 = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
  const guard = new UrlGuard({ allowlist: parseAllowlist('127.0.0.1/32') });

  it('sends SNI and Host for the name and verifies the certificate against it', async () => {
    const sender = new HttpWebhookSender({ guard, resolve: pinnedTo127, ca: cert });
    const result = await sender.post({ url: `https://hook.example.com:${port}/push`, body: '{}' });
    assert.equal(result.outcome, 'delivered', result.error);
    assert.equal(result.address, '127.0.0.1');
    assert.deepEqual(servernames, ['hook.example.com']);
    assert.deepEqual(hosts, [`hook.example.com:${port}`]);
  });

  it('refuses a certificate for another name (retry: a connection failure)', async () => {
    const sender = new HttpWebhookSender({ guard, resolve: pinnedTo127, ca: cert });
    const result = await sender.post({ url: `https://other.example.com:${port}/push`, body: '{}' });
    assert.equal(result.outcome, 'retry');
    assert.match(result.error ?? '', /connection failed: .*(altnames|ERR_TLS_CERT_ALTNAME_INVALID)/);
  });

  it('refuses an untrusted certificate (no extra CA)', async () => {
    const sender = new HttpWebhookSender({ guard, resolve: pinnedTo127 });
    const result = await sender.post({ url: `https://hook.example.com:${port}/push`, body: '{}' });
    assert.equal(result.outcome, 'retry');
    assert.match(result.error ?? '', /connection failed: .*self[- ]signed/i);
  });
});
