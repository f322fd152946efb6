/**
 * Push signing from the environment (signerFromEnv, what the delivery worker
 * and the JWKS function call): inline keys, the Secrets Manager secret (here a
 * local HTTP stand-in for its GetSecretValue, reached through the SDK), and the
 * Secrets Manager adapters' request shapes.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ResourceNotFoundException, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  generateSigningKey,
  SecretsManagerKeys,
  SecretsManagerVersions,
  SIGNING_KEYS_ENV,
  SIGNING_SECRET_ENV,
  serializeKeySet,
  signerFromEnv,
  signingKeysFromEnv,
} from '../../../../shared/adapters/keys/index.ts';
import { type SigningJwk, SigningKeysUnavailableError } from '../../../../shared/domain/push-signing.ts';

let server: Server;
let secretValue = '{"keys":[]}';
const requests: { target: string | undefined; body: Record<string, unknown> }[] = [];
let key: SigningJwk;

before(async () => {
  key = await generateSigningKey();
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      requests.push({ target: req.headers['x-amz-target'] as string | undefined, body: JSON.parse(body) });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          ARN: 'arn:x',
          Name: 'keys',
          SecretString: secretValue,
          VersionStages: ['AWSCURRENT'],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
});
after(() => server.close());

describe('signer from the environment', () => {
  it('signs with PUSH_SIGNING_KEYS, the issuer from PUBLIC_URL; one signer per configuration', async () => {
    const env = { [SIGNING_KEYS_ENV]: serializeKeySet({ keys: [key] }), PUBLIC_URL: 'http://127.0.0.1:8080' };
    const signer = signerFromEnv(env);
    assert.equal(signerFromEnv({ ...env }), signer);
    const jwt = await signer.sign({ taskId: 't', body: '{}', audience: 'https://r.example' });
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(await signer.jwks()), {
      issuer: 'http://127.0.0.1:8080',
    });
    assert.equal(payload.taskId, 't');
    const other = await generateSigningKey();
    const next = signerFromEnv({ ...env, [SIGNING_KEYS_ENV]: serializeKeySet({ keys: [other] }) });
    assert.notEqual(next, signer, 'other keys, another signer');
    assert.equal(
      decodeProtectedHeader(await next.sign({ taskId: 't', body: '', audience: 'a' })).kid,
      other.kid,
    );
  });

  it('reports bad inline keys by the variable name, without the value', async () => {
    const bad = `{"keys":[{"d":"${String(key.d)}"`;
    await assert.rejects(signingKeysFromEnv({ [SIGNING_KEYS_ENV]: bad }).load(), (e: Error) => {
      assert.match(e.message, /PUSH_SIGNING_KEYS is not valid JSON/);
      assert.ok(!e.message.includes(String(key.d)));
      return true;
    });
  });

  it('needs one of the two variables', () => {
    assert.throws(() => signerFromEnv({}), /PUSH_SIGNING_KEYS or PUSH_SIGNING_SECRET_ARN/);
  });

  it('reads the secret (AWSCURRENT) through Secrets Manager; empty until the first rotation', async () => {
    const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:keys-AbCdEf';
    const env = { [SIGNING_SECRET_ENV]: arn, PUBLIC_URL: 'https://hub.example' };
    secretValue = '{"keys":[]}';
    await assert.rejects(signerFromEnv(env).jwks(), SigningKeysUnavailableError);
    secretValue = serializeKeySet({ keys: [key] });
    const jwks = await signerFromEnv(env).jwks();
    assert.equal(jwks.keys[0]?.kid, key.kid);
    const jwt = await signerFromEnv(env).sign({ taskId: 't', body: 'b', audience: 'https://r.example' });
    assert.equal(decodeProtectedHeader(jwt).kid, key.kid);
    const reads = requests.filter((r) => r.target === 'secretsmanager.GetSecretValue');
    assert.equal(reads.length, 2, 'the empty answer was not cached; the set was, for sign()');
    assert.deepEqual(reads[0]!.body, { SecretId: arn, VersionStage: 'AWSCURRENT' });
    assert.equal(signingKeysFromEnv(env), signingKeysFromEnv({ ...env }), 'one cached source per secret');
  });
});

describe('Secrets Manager adapters', () => {
  const fakeClient = (answer: (input: Record<string, unknown>, name: string) => unknown) => {
    const sent: { name: string; input: Record<string, unknown> }[] = [];
    const client = {
      send: async (command: { input: Record<string, unknown>; constructor: { name: string } }) => {
        sent.push({ name: command.constructor.name, input: command.input });
        return answer(command.input, command.constructor.name);
      },
    } as unknown as SecretsManagerClient;
    return { client, sent };
  };

  it('SecretsManagerKeys reads AWSCURRENT and parses it', async () => {
    const { client, sent } = fakeClient(() => ({ SecretString: serializeKeySet({ keys: [key] }) }));
    const set = await new SecretsManagerKeys(client, 'keys').load();
    assert.equal(set.keys[0]!.kid, key.kid);
    assert.deepEqual(sent, [
      { name: 'GetSecretValueCommand', input: { SecretId: 'keys', VersionStage: 'AWSCURRENT' } },
    ]);
  });

  it('SecretsManagerVersions: describe, get (missing version → undefined), put, move', async () => {
    const { client, sent } = fakeClient((input, name) => {
      if (name === 'DescribeSecretCommand')
        return { RotationEnabled: true, VersionIdsToStages: { v1: ['AWSCURRENT'] } };
      if (name === 'GetSecretValueCommand' && input.VersionId === 'missing') {
        throw new ResourceNotFoundException({ message: 'no such version', $metadata: {} });
      }
      if (name === 'GetSecretValueCommand') return { SecretString: 'value' };
      return {};
    });
    const store = new SecretsManagerVersions(client);
    assert.deepEqual(await store.describe('s'), { rotationEnabled: true, versions: { v1: ['AWSCURRENT'] } });
    assert.equal(await store.getValue('s', { stage: 'AWSPENDING', versionId: 'missing' }), undefined);
    assert.equal(await store.getValue('s', { stage: 'AWSCURRENT' }), 'value');
    await store.putValue('s', 'v2', '{"keys":[]}', ['AWSPENDING']);
    await store.moveStage('s', 'AWSCURRENT', 'v2', 'v1');
    assert.deepEqual(sent.slice(3), [
      {
        name: 'PutSecretValueCommand',
        input: {
          SecretId: 's',
          ClientRequestToken: 'v2',
          SecretString: '{"keys":[]}',
          VersionStages: ['AWSPENDING'],
        },
      },
      {
        name: 'UpdateSecretVersionStageCommand',
        input: {
          SecretId: 's',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: 'v2',
          RemoveFromVersionId: 'v1',
        },
      },
    ]);
  });
});
