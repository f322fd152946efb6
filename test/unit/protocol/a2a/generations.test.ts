/**
 * Generations on the wire (A2A dev-1.1, a2aproject/A2A#1810; docs/generations.md): `ifGenerationMatch`
 * and `currentGeneration` parsed as ProtoJSON int64 (string or number, camelCase or snake_case) only when
 * generations are on, ignored unread when off; `generation` written as an int64 string in v1.0 and a number
 * in v0.3, only when asked for; TaskGenerationMismatchError's codes and HTTP mapping; the card's extension.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hubCard } from '../../../../shared/app/a2a/card.ts';
import { GenerationMismatchError } from '../../../../shared/domain/errors.ts';
import {
  GENERATIONS_EXTENSION_URI,
  generationsEnabled,
} from '../../../../shared/protocol/a2a/generations.ts';
import { fromDomainError, v1Codec, v03Codec } from '../../../../shared/protocol/a2a/index.ts';
import { restErrorBody, restStatusOf } from '../../../../shared/protocol/a2a/rest.ts';
import { SYNAPSE_EXTENSION_URI } from '../../../../shared/protocol/synapse/card-extension.ts';
import { expectProtocolError, expectViolation, head } from './fixtures.ts';

const message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], taskId: 't1' };
const on = { generations: true };
const view = { head: head({ version: 7 }), history: [], artifacts: [] };

describe('parsing ifGenerationMatch and currentGeneration', () => {
  it('v1.0: a string or a number, camelCase or snake_case', () => {
    for (const configuration of [
      { ifGenerationMatch: '7' },
      { ifGenerationMatch: 7 },
      { if_generation_match: '7' },
    ]) {
      assert.equal(v1Codec.parseSendMessage({ message, configuration }, on).ifGenerationMatch, 7);
    }
    for (const extra of [{ currentGeneration: '12' }, { current_generation: 12 }]) {
      assert.equal(v1Codec.parseGetTask({ id: 't1', ...extra }, on).currentGeneration, 12);
    }
    assert.equal(
      v1Codec.parseSendMessage({ message, configuration: { ifGenerationMatch: '0' } }, on).ifGenerationMatch,
      0,
    );
  });

  it('v0.3 (the card declares the extension to both): the same fields', () => {
    const v03Message = {
      messageId: 'm1',
      role: 'user',
      kind: 'message',
      parts: [{ kind: 'text', text: 'hi' }],
    };
    const cmd = v03Codec.parseSendMessage(
      { message: v03Message, configuration: { ifGenerationMatch: 3 } },
      on,
    );
    assert.equal(cmd.ifGenerationMatch, 3);
    assert.equal(v03Codec.parseGetTask({ id: 't1', currentGeneration: '4' }, on).currentGeneration, 4);
  });

  it('a value that is no generation is -32602 naming the field', () => {
    for (const bad of ['abc', -1, '-1', 1.5, '99999999999999999999', true, {}]) {
      expectViolation(
        () => v1Codec.parseSendMessage({ message, configuration: { ifGenerationMatch: bad } }, on),
        'configuration.ifGenerationMatch',
      );
      expectViolation(
        () => v1Codec.parseGetTask({ id: 't1', currentGeneration: bad }, on),
        'currentGeneration',
      );
    }
    // ProtoJSON: both spellings of one field is an error
    expectProtocolError(
      () =>
        v1Codec.parseSendMessage(
          { message, configuration: { ifGenerationMatch: 1, if_generation_match: 1 } },
          on,
        ),
      -32602,
    );
  });

  it('off (the default): unknown fields, ignored unread, whatever their value', () => {
    for (const value of [7, 'abc', -1]) {
      const cmd = v1Codec.parseSendMessage({ message, configuration: { ifGenerationMatch: value } });
      assert.equal(cmd.ifGenerationMatch, undefined);
      assert.equal(v1Codec.parseGetTask({ id: 't1', currentGeneration: value }).currentGeneration, undefined);
      assert.equal(
        v1Codec.parseSendMessage(
          { message, configuration: { if_generation_match: value } },
          { generations: false },
        ).ifGenerationMatch,
        undefined,
      );
    }
  });
});

describe('encoding generation', () => {
  it('v1.0: a ProtoJSON int64, a decimal string, on the Task only when asked for', () => {
    assert.equal(v1Codec.encodeGetResult(view, { includeArtifacts: true, generation: true }).generation, '7');
    assert.equal('generation' in v1Codec.encodeGetResult(view, { includeArtifacts: true }), false);
    const listed = v1Codec.encodeListResult(
      { tasks: [view], nextPageToken: '', pageSize: 50, totalSize: 1 },
      { includeArtifacts: false, generation: true },
    );
    assert.equal(listed.tasks[0]?.generation, '7');
    // a listing that could not tell the version shows none (never a made-up 0)
    const unknown = { ...view, head: { ...view.head, version: undefined } };
    assert.equal(
      'generation' in v1Codec.encodeTask(unknown, { includeArtifacts: false, generation: true }),
      false,
    );
  });

  it('v1.0 stream updates carry it when given; v0.3 writes a JSON number', () => {
    const status = {
      kind: 'status-update' as const,
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_WORKING' as const, timestamp: '2025-01-01T00:00:00.000Z' },
      final: false,
    };
    assert.deepEqual(
      (v1Codec.encodeStreamEvent({ ...status, generation: 9 }) as { statusUpdate: { generation?: string } })
        .statusUpdate.generation,
      '9',
    );
    assert.equal(
      'generation' in (v1Codec.encodeStreamEvent(status) as { statusUpdate: object }).statusUpdate,
      false,
    );
    const artifact = {
      kind: 'artifact-update' as const,
      taskId: 't1',
      contextId: 'c1',
      artifact: { artifactId: 'a1', parts: [{ text: 'x' }] },
      generation: 10,
    };
    assert.equal(
      (v1Codec.encodeStreamEvent(artifact) as { artifactUpdate: { generation?: string } }).artifactUpdate
        .generation,
      '10',
    );
    assert.equal(v03Codec.encodeGetResult(view, { includeArtifacts: true, generation: true }).generation, 7);
    assert.equal(
      (v03Codec.encodeStreamEvent({ ...status, generation: 9 }) as { generation?: number }).generation,
      9,
    );
  });
});

describe('TaskGenerationMismatchError', () => {
  it('-32010, ErrorInfo TASK_GENERATION_MISMATCH with both generations; HTTP 409 ABORTED', () => {
    const err = fromDomainError(new GenerationMismatchError('t1', 3, 5));
    assert.equal(err.code, -32010);
    assert.equal(err.reason, 'TASK_GENERATION_MISMATCH');
    assert.deepEqual(err.metadata, { taskId: 't1', expectedGeneration: '3', generation: '5' });
    // our issue: 409 (gRPC ABORTED's canonical mapping), not the PR text's 412
    assert.deepEqual(restStatusOf(err), { http: 409, status: 'ABORTED' });
    const body = restErrorBody(err);
    assert.equal(body.error.code, 409);
    assert.equal(body.error.status, 'ABORTED');
    assert.deepEqual(
      (body.error.details as Array<{ reason: string }>)[0]?.reason,
      'TASK_GENERATION_MISMATCH',
    );
    const fresh = fromDomainError(new GenerationMismatchError(undefined, 4, 0));
    assert.deepEqual(fresh.metadata, { expectedGeneration: '4', generation: '0' });
    assert.match(fresh.message, /new task/);
  });
});

describe('the setting and the card', () => {
  it('A2A_GENERATIONS: on / true / 1 turn it on; unset or anything else is off', () => {
    assert.equal(generationsEnabled({}), false);
    for (const v of ['on', 'ON', 'true', '1', ' on '])
      assert.equal(generationsEnabled({ A2A_GENERATIONS: v }), true);
    for (const v of ['off', '0', '', 'yes please'])
      assert.equal(generationsEnabled({ A2A_GENERATIONS: v }), false);
  });

  it('on: the extension, not required, in the v1.0 card and the v0.3 one; off: absent', () => {
    const agent = {
      name: 'a',
      description: 'd',
      version: '1',
      skills: [],
      extensions: [{ uri: 'urn:own', required: false }],
    };
    for (const version of ['1.0', '0.3'] as const) {
      const card = hubCard({ agent, publicUrl: 'https://hub.example', version, generations: true });
      const extensions = card.capabilities.extensions ?? [];
      assert.deepEqual(
        extensions.map((e) => e.uri),
        ['urn:own', GENERATIONS_EXTENSION_URI, SYNAPSE_EXTENSION_URI],
      );
      const ours = extensions.find((e) => e.uri === GENERATIONS_EXTENSION_URI);
      assert.equal(ours?.required, false);
      assert.match(ours?.description ?? '', /generation/);
      const off = hubCard({ agent, publicUrl: 'https://hub.example', version, generations: false });
      assert.deepEqual(
        (off.capabilities.extensions ?? []).map((e) => e.uri),
        ['urn:own', SYNAPSE_EXTENSION_URI],
      );
    }
  });
});
