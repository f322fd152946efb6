/**
 * The fault layer's decisions (local/faults/layer.ts) and its setting (shared/config/faults.ts): FAULTS
 * parsed or refused; the same seed gives the same faults to the same sequence of calls, another seed other
 * ones; the run's rate shared among the kinds that fit a place, a kind's own rate honoured; nothing once
 * turned off; an invocation that dies fails its later calls and its end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultLayer, FunctionDiedError } from '../../../local/faults/layer.ts';
import { FAULT_KINDS, type FaultKind, parseFaultSpec } from '../../../shared/config/faults.ts';

const layer = (text: string) => {
  const spec = parseFaultSpec(text);
  assert.ok(spec, text);
  return new FaultLayer(spec);
};

const SDK: FaultKind[] = ['throttle', 'server-error', 'timeout', 'ambiguous'];

describe('FAULTS', () => {
  it('is seed:rate[:kinds], the rate a fraction or a percentage, each kind with its own rate or none', () => {
    const all = parseFaultSpec('7:5%');
    assert.equal(all?.seed, 7);
    assert.equal(all?.rate, 0.05);
    assert.deepEqual([...(all?.kinds.keys() ?? [])], Object.keys(FAULT_KINDS));
    const some = parseFaultSpec('7:0.2:throttle,ambiguous=0.1');
    assert.equal(some?.rate, 0.2);
    assert.deepEqual(
      [...(some?.kinds ?? [])],
      [
        ['throttle', undefined],
        ['ambiguous', 0.1],
      ],
    );
  });

  it('refuses anything else', () => {
    for (const bad of [
      '5%',
      'x:5%',
      '7:120%',
      '7:-1',
      '7:0.1:nonsense',
      '7:0.1:throttle=2',
      '7:0.1:throttle:x',
      '7:%',
    ])
      assert.equal(parseFaultSpec(bad), undefined, bad);
  });
});

describe('the fault layer', () => {
  const places = Array.from(
    { length: 2000 },
    (_, i) => `sdk:DynamoDB.${['GetItem', 'PutItem', 'Query'][i % 3]}`,
  );
  const run = (l: FaultLayer) => places.map((p) => l.pick(p, SDK) ?? '-');

  it('replays: the same seed, the same faults for the same calls; another seed, others', () => {
    assert.deepEqual(run(layer('42:20%')), run(layer('42:20%')));
    assert.notDeepEqual(run(layer('42:20%')), run(layer('43:20%')));
  });

  it("gives a place a fault at the run's rate, shared evenly among the kinds that fit there", () => {
    const l = layer('1:20%');
    const picks = Array.from({ length: 20_000 }, () => l.pick('sdk:SQS.SendMessage', SDK));
    const faulted = picks.filter(Boolean).length / picks.length;
    assert.ok(faulted > 0.18 && faulted < 0.22, String(faulted));
    const counts = l.counts();
    for (const kind of SDK) assert.ok(counts[kind] > 800 && counts[kind] < 1200, `${kind}: ${counts[kind]}`);
    assert.equal(counts['function-dies'], 0, 'a kind that does not fit the place is never given there');
  });

  it("honours a kind's own rate and leaves out the kinds not named", () => {
    const l = layer('1:0:ambiguous=0.5');
    const picks = Array.from({ length: 4000 }, () => l.pick('sdk:DynamoDB.PutItem', SDK));
    assert.deepEqual([...new Set(picks)].sort(), ['ambiguous', undefined].sort());
    const share = picks.filter(Boolean).length / picks.length;
    assert.ok(share > 0.45 && share < 0.55, String(share));
  });

  it('gives nothing once turned off, and keeps what it counted', () => {
    const l = layer('1:100%');
    assert.ok(l.pick('sdk:DynamoDB.GetItem', SDK));
    l.disable();
    assert.equal(l.pick('sdk:DynamoDB.GetItem', SDK), undefined);
    assert.equal(
      Object.values(l.counts()).reduce((a, b) => a + b, 0),
      1,
    );
  });

  it('kills an invocation at one of its calls: that call and every later one fail, and so does its end', async () => {
    const l = layer('3:100%:function-dies');
    let calls = 0;
    let failedFrom: number | undefined;
    await assert.rejects(
      l.invoke('executor', async () => {
        for (let i = 1; i <= 10; i++) {
          try {
            l.checkAlive();
            calls++;
          } catch (e) {
            assert.ok(e instanceof FunctionDiedError);
            failedFrom ??= i;
          }
        }
        return 'handled its errors and returned';
      }),
      FunctionDiedError,
    );
    assert.ok(failedFrom !== undefined && failedFrom >= 1 && failedFrom <= 6, String(failedFrom));
    assert.equal(calls, failedFrom - 1, 'the calls before it succeeded, none after');
  });

  it('lets an invocation it does not kill run as it would', async () => {
    const l = layer('3:0%');
    assert.equal(
      await l.invoke('executor', async () => {
        l.checkAlive();
        return 'done';
      }),
      'done',
    );
  });
});
