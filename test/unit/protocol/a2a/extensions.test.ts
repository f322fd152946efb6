import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activatedExtensionsHeader,
  activateExtensions,
  requestedExtensions,
} from '../../../../shared/protocol/a2a/extensions.ts';
import { A2AProtocolError, ERROR_CODES } from '../../../../shared/protocol/a2a/index.ts';

const TRACE = 'https://ext.example/trace/v1';
const BILLING = 'https://ext.example/billing/v2';
const DECLARED = [{ uri: TRACE }, { uri: BILLING, required: true }];

describe('extension negotiation', () => {
  it('reads a comma-separated list, blanks dropped, duplicates once', () => {
    assert.deepEqual(requestedExtensions(` ${TRACE} ,, ${BILLING},${TRACE}`), [TRACE, BILLING]);
    assert.deepEqual(requestedExtensions(undefined), []);
    assert.deepEqual(requestedExtensions(' , '), []);
  });

  it('activates the declared ones asked for, in the card order, and ignores unknown URIs and other versions', () => {
    const activated = activateExtensions(DECLARED, {
      'a2a-extensions': `${BILLING}, https://ext.example/trace/v2, https://unknown.example/x`,
      'x-a2a-extensions': TRACE,
    });
    assert.deepEqual(activated, [TRACE, BILLING]);
    assert.deepEqual(activateExtensions(undefined, { 'a2a-extensions': TRACE }), []);
  });

  it('refuses a request that leaves out a required extension with -32008 naming it', () => {
    for (const headers of [
      {},
      { 'a2a-extensions': TRACE },
      { 'a2a-extensions': 'https://ext.example/billing/v1' },
    ]) {
      assert.throws(
        () => activateExtensions(DECLARED, headers),
        (e: unknown) =>
          e instanceof A2AProtocolError &&
          e.code === ERROR_CODES.EXTENSION_SUPPORT_REQUIRED &&
          e.message.includes(BILLING) &&
          !e.message.includes(TRACE),
      );
    }
  });

  it('echoes what was activated in the header of the request version, nothing when none', () => {
    assert.deepEqual(activatedExtensionsHeader('1.0', [TRACE, BILLING]), {
      'a2a-extensions': `${TRACE}, ${BILLING}`,
    });
    assert.deepEqual(activatedExtensionsHeader('0.3', [TRACE]), { 'x-a2a-extensions': TRACE });
    assert.deepEqual(activatedExtensionsHeader('1.0', []), {});
  });
});
