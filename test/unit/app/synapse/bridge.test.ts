import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentSkillOf, parseRemoteSkills } from '../../../../shared/app/synapse/bridge.ts';
import { RemoteSkillResolver } from '../../../../shared/app/synapse/remote-skills.ts';
import type { Message } from '../../../../shared/domain/task.ts';

const message = (text: string, skill?: string): Message => ({
  messageId: 'm1',
  role: 'user',
  parts: [{ text }],
  ...(skill ? { metadata: { 'synapse.skill': skill } } : {}),
});
const caller = { tenant: 't1', owner: 'alice' };

describe('SYNAPSE_REMOTE_SKILLS', () => {
  it('reads a peer per skill, with an optional task type (default the skill id)', () => {
    assert.deepEqual(parseRemoteSkills('{"echo":"hub-b","tr":{"peer":"hub-c","type":"translate"}}'), {
      echo: { peer: 'hub-b', type: 'echo' },
      tr: { peer: 'hub-c', type: 'translate' },
    });
    assert.deepEqual(parseRemoteSkills(undefined), {});
    assert.deepEqual(parseRemoteSkills('  '), {});
  });

  it('refuses what it cannot read, naming the place', () => {
    assert.throws(() => parseRemoteSkills('{nope'), /SYNAPSE_REMOTE_SKILLS must be JSON/);
    assert.throws(() => parseRemoteSkills('[1]'), /must be a JSON object/);
    assert.throws(() => parseRemoteSkills('{"echo":{}}'), /SYNAPSE_REMOTE_SKILLS\["echo"\] must name a peer/);
    assert.throws(() => parseRemoteSkills('{"bad id":"p"}'), /must name a peer/);
  });
});

describe('the route of a new message', () => {
  const skills = parseRemoteSkills('{"echo":"hub-b"}');
  it('by its metadata, else the agent’s skillOf; anything else stays here', async () => {
    const resolver = new RemoteSkillResolver({
      skills,
      skillOf: agentSkillOf(({ text }) => (text.startsWith('echo') ? 'echo' : undefined)),
    });
    const route = (m: Message) => resolver.route(caller, m);
    const fromMap = { peer: 'hub-b', type: 'echo', via: 'static' };
    assert.deepEqual(await route(message('x', 'echo')), fromMap);
    assert.deepEqual(await route(message('echo hi')), fromMap);
    assert.equal(await route(message('slow 3')), undefined);
    assert.equal(await route(message('echo hi', 'slow')), undefined, 'the metadata wins');
  });
  it('a skillOf that throws names no skill; no skills configured routes nothing', async () => {
    const throwing = new RemoteSkillResolver({
      skills,
      skillOf: agentSkillOf(() => {
        throw new Error('boom');
      }),
    });
    assert.equal(await throwing.route(caller, message('echo hi')), undefined);
    assert.equal(await new RemoteSkillResolver({}).route(caller, message('x', 'echo')), undefined);
  });
});
