/**
 * Push-config shapes per version: parsing the four operations' params (v1.0 flat, v0.3 nested with
 * `schemes`), and reads that never show a config's secrets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PUSH_CONFIG_LIMITS, v1Codec, v03Codec } from '../../../../shared/protocol/a2a/index.ts';
import { expectViolation } from './fixtures.ts';

const stored = {
  taskId: 't1',
  id: 'c1',
  url: 'https://hooks.example.com/a2a',
  authentication: { scheme: 'Bearer' },
};

describe('push configs over v1.0', () => {
  it('parses a flat TaskPushNotificationConfig, snake_case aliases and unknown fields included', () => {
    const cmd = v1Codec.parseCreatePushConfig({
      task_id: 't1',
      url: 'https://hooks.example.com/a2a',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
      somethingNew: 1,
    });
    assert.deepEqual(cmd, {
      taskId: 't1',
      config: {
        url: 'https://hooks.example.com/a2a',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      },
    });
  });

  it('refuses a config without url or taskId, or with an over-long url, naming the field', () => {
    expectViolation(() => v1Codec.parseCreatePushConfig({ taskId: 't1' }), 'url');
    expectViolation(() => v1Codec.parseCreatePushConfig({ url: 'https://x.example' }), 'taskId');
    const long = `https://x.example/${'a'.repeat(PUSH_CONFIG_LIMITS.urlLength)}`;
    expectViolation(() => v1Codec.parseCreatePushConfig({ taskId: 't1', url: long }), 'url');
  });

  it('get/delete take {taskId, id}; list takes paging', () => {
    assert.deepEqual(v1Codec.parsePushConfigRef({ taskId: 't1', id: 'c1' }, 'get'), {
      taskId: 't1',
      id: 'c1',
    });
    expectViolation(() => v1Codec.parsePushConfigRef({ taskId: 't1' }, 'delete'), 'id');
    assert.deepEqual(v1Codec.parseListPushConfigs({ taskId: 't1', pageSize: 5, pageToken: 'x' }), {
      taskId: 't1',
      pageSize: 5,
      pageToken: 'x',
    });
    expectViolation(() => v1Codec.parseListPushConfigs({ taskId: 't1', pageSize: 0 }), 'pageSize');
  });

  it('reads show the scheme but never the token or the credentials', () => {
    assert.deepEqual(v1Codec.encodePushConfig(stored), {
      id: 'c1',
      taskId: 't1',
      url: 'https://hooks.example.com/a2a',
      authentication: { scheme: 'Bearer' },
    });
    assert.deepEqual(v1Codec.encodePushConfigList([stored], ''), {
      configs: [v1Codec.encodePushConfig(stored)],
      nextPageToken: '',
    });
  });
});

describe('push configs over v0.3', () => {
  it('parses the nested shape; of several schemes the first is kept', () => {
    const cmd = v03Codec.parseCreatePushConfig({
      taskId: 't1',
      pushNotificationConfig: {
        id: 'c1',
        url: 'https://hooks.example.com/a2a',
        authentication: { schemes: ['Bearer', 'Basic'], credentials: 'secret' },
      },
    });
    assert.deepEqual(cmd, {
      taskId: 't1',
      config: {
        id: 'c1',
        url: 'https://hooks.example.com/a2a',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      },
    });
    expectViolation(() => v03Codec.parseCreatePushConfig({ taskId: 't1' }), 'pushNotificationConfig');
  });

  it('get names the task by `id`, the config optionally; delete requires the config id', () => {
    assert.deepEqual(v03Codec.parsePushConfigRef({ id: 't1' }, 'get'), { taskId: 't1' });
    assert.deepEqual(v03Codec.parsePushConfigRef({ id: 't1', pushNotificationConfigId: 'c1' }, 'delete'), {
      taskId: 't1',
      id: 'c1',
    });
    expectViolation(() => v03Codec.parsePushConfigRef({ id: 't1' }, 'delete'), 'pushNotificationConfigId');
    assert.deepEqual(v03Codec.parseListPushConfigs({ id: 't1' }), { taskId: 't1' });
  });

  it('reads are {taskId, pushNotificationConfig} with schemes, without secrets; a list is a bare array', () => {
    const wire = v03Codec.encodePushConfig(stored);
    assert.deepEqual(wire, {
      taskId: 't1',
      pushNotificationConfig: {
        id: 'c1',
        url: 'https://hooks.example.com/a2a',
        authentication: { schemes: ['Bearer'] },
      },
    });
    assert.deepEqual(v03Codec.encodePushConfigList([stored], 'ignored'), [wire]);
  });
});
