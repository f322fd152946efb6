/**
 * The probe's settings: the defaults, a tick derived from the period, a tick that must divide it, and
 * errors that name the variable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_PROBE_TIMEOUT_MS,
  probeScheduleFrom,
  probeTimeoutMsFrom,
} from '../../../shared/config/registry-probe.ts';
import { ConfigError } from '../../../shared/config/settings.ts';

describe('registry probe settings', () => {
  it('default to an hourly probe on a 15-minute tick, with a 5 s timeout', () => {
    assert.deepEqual(probeScheduleFrom({}), { periodSeconds: 3600, tickSeconds: 900 });
    assert.equal(probeTimeoutMsFrom({}), DEFAULT_PROBE_TIMEOUT_MS);
    assert.equal(DEFAULT_PROBE_TIMEOUT_MS, 5000);
  });

  it('derive the tick from a small period (tests), and take a tick that divides it', () => {
    assert.deepEqual(probeScheduleFrom({ REGISTRY_PROBE_PERIOD_SECONDS: '6' }), {
      periodSeconds: 6,
      tickSeconds: 6,
    });
    assert.deepEqual(
      probeScheduleFrom({ REGISTRY_PROBE_PERIOD_SECONDS: '6', REGISTRY_PROBE_TICK_SECONDS: '2' }),
      {
        periodSeconds: 6,
        tickSeconds: 2,
      },
    );
    assert.equal(probeTimeoutMsFrom({ REGISTRY_PROBE_TIMEOUT_MS: '250' }), 250);
  });

  it('refuse a tick that does not divide the period, or a bad value, naming the variable', () => {
    assert.throws(
      () => probeScheduleFrom({ REGISTRY_PROBE_PERIOD_SECONDS: '3600', REGISTRY_PROBE_TICK_SECONDS: '700' }),
      /REGISTRY_PROBE_TICK_SECONDS \(700\) must divide REGISTRY_PROBE_PERIOD_SECONDS \(3600\)/,
    );
    assert.throws(
      () => probeScheduleFrom({ REGISTRY_PROBE_PERIOD_SECONDS: '0', REGISTRY_PROBE_TICK_SECONDS: '901' }),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.problems.length === 2 &&
        /^REGISTRY_PROBE_PERIOD_SECONDS must be/.test(e.problems[0]!) &&
        /^REGISTRY_PROBE_TICK_SECONDS must be a whole number of seconds from 1 to 900/.test(e.problems[1]!),
    );
    assert.throws(
      () => probeTimeoutMsFrom({ REGISTRY_PROBE_TIMEOUT_MS: '5s' }),
      /REGISTRY_PROBE_TIMEOUT_MS must be/,
    );
  });
});
