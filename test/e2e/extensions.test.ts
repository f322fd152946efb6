/**
 * Extension negotiation (A2A extensions, `A2A-Extensions`) against a local hub whose agent
 * declares two extensions, one required, over both bindings: the card
 * declares them, a request that leaves out the required one is refused with
 * ExtensionSupportRequiredError and runs nothing, activated ones are echoed.
 * A file of its own: the hub's handlers are per process, as in Lambda.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { SYNAPSE_EXTENSION_URI } from '../../shared/protocol/synapse/card-extension.ts';
import { BILLING_EXTENSION, TRACE_EXTENSION } from './fixtures/extension-agent.ts';

const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

const rest = async (url: string, method: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
};

describe('extension negotiation over both bindings (an agent that requires one)', () => {
  let strict: LocalHub;
  const restUrl = (path: string) => `${strict.url}/a2a/rest${path}`;
  before(async () => {
    strict = await startLocalHub({
      port: 0,
      sweepIntervalMs: 60_000,
      env: { AGENT_MODULE: new URL('./fixtures/extension-agent.ts', import.meta.url).pathname },
    });
  });
  after(async () => strict?.stop());

  it('the card declares both; a request without the required one is EXTENSION_SUPPORT_REQUIRED and runs nothing', async () => {
    const card = (await (await fetch(`${strict.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions: Array<{ uri: string; required?: boolean }> };
    };
    assert.deepEqual(
      card.capabilities.extensions.map((e) => [e.uri, e.required ?? false]),
      [
        [TRACE_EXTENSION, false],
        [BILLING_EXTENSION, true],
        // the hub's own, whatever the agent (docs/synapse-protocol.md#the-card-extension)
        [SYNAPSE_EXTENSION_URI, false],
      ],
    );
    const refused = await rest(
      restUrl('/message:send'),
      'POST',
      { message: message('x') },
      {
        'A2A-Extensions': TRACE_EXTENSION,
      },
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.status, 'FAILED_PRECONDITION');
    assert.equal(refused.json.error.details[0].reason, 'EXTENSION_SUPPORT_REQUIRED');
    assert.match(refused.json.error.message, /billing\/v2/);
    assert.equal(refused.headers.get('a2a-extensions'), null, 'nothing activated');
    const rpc = await fetch(`${strict.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: message('x') },
      }),
    });
    const rpcBody = (await rpc.json()) as { error?: { code: number } };
    assert.equal(rpcBody.error?.code, -32008);
    const listed = await rest(restUrl('/tasks'), 'GET', undefined, { 'A2A-Extensions': BILLING_EXTENSION });
    assert.equal(listed.status, 200);
    assert.equal(listed.json.tasks.length, 0, 'nothing was made');
  });

  it('activated extensions are echoed in A2A-Extensions (v0.3: X-A2A-Extensions); unknown URIs are ignored', async () => {
    const sent = await rest(
      restUrl('/message:send'),
      'POST',
      { message: message('x') },
      {
        'A2A-Extensions': `${BILLING_EXTENSION}, https://unknown.example/x, ${TRACE_EXTENSION}`,
      },
    );
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    assert.equal(sent.headers.get('a2a-extensions'), `${TRACE_EXTENSION}, ${BILLING_EXTENSION}`);
    const v03 = await fetch(`${strict.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-A2A-Extensions': BILLING_EXTENSION },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'x' }],
          },
        },
      }),
    });
    assert.equal(v03.status, 200);
    assert.equal(((await v03.json()) as { result?: { kind: string } }).result?.kind, 'task');
    assert.equal(v03.headers.get('x-a2a-extensions'), BILLING_EXTENSION);
  });
});
