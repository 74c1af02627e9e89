import { describe, expect, it } from 'vitest';
import { readDevicePolicyText } from '../../../src/shared/device-policy/read-device-policy';
import {
  compareVersions,
  inMaintenanceWindow,
  installDecision,
  nextCheckDelayMs,
  parseMaintenanceWindow,
  updateSettingsOf,
  updateTimings,
  type UpdateSettings,
} from '../../../src/shared/updates/update-rules';
import type { DevicePolicy } from '../../../src/shared/device-policy/device-policy';

/** The update rules (issue #28): the policy's `updates` keys, versions, the maintenance window, when to check and when to install. */
const key = 'MCowBQYDK2VwAyEAFcphNsoXO9YwwQxPhTUQB+e0qGBfIkfsotOwBhpODMg=';
const problem = (document: unknown) => {
  const read = readDevicePolicyText(JSON.stringify(document));
  return read.ok ? 'ok' : read.problem;
};

describe("the policy's updates keys", () => {
  it('need a feed and its key when enabled; the feed https, or http:// only where the development setting may be on', () => {
    expect(problem({ policyVersion: 1, updates: { enabled: false } })).toBe('ok');
    expect(problem({ policyVersion: 1, updates: { enabled: true } })).toBe(
      '2 problems: updates.url: is needed when updates are enabled (the feed); updates.publicKey: is needed when updates are enabled (an unsigned feed is never used)',
    );
    expect(problem({ policyVersion: 1, updates: { enabled: true, url: 'https://updates.example.com/agentdesk', publicKey: key } })).toBe('ok');
    expect(problem({ policyVersion: 1, updates: { enabled: true, url: 'http://updates.example.com/', publicKey: key } })).toContain(
      'updates.url: must be https://',
    );
    expect(problem({ policyVersion: 1, updates: { enabled: true, url: 'http://127.0.0.1:8080/', publicKey: key } })).toBe('ok');
    expect(problem({ policyVersion: 1, kiosk: true, updates: { enabled: true, url: 'http://127.0.0.1:8080/', publicKey: key } })).toContain(
      'updates.url: is http://, which needs the development setting, and this policy forces it off',
    );
    expect(problem({ policyVersion: 1, updates: { enabled: true, url: 'https://u:p@updates.example.com/', publicKey: key } })).toContain(
      'no user name, password, query or #fragment',
    );
    expect(problem({ policyVersion: 1, updates: { enabled: true, url: 'https://updates.example.com/', publicKey: 'MCowBQYDK2VwAyEA' } })).toContain(
      'updates.publicKey: must be an Ed25519 public key',
    );
  });

  it('tie the install moment to what it needs: a window for the window, a kiosk with an idle reset for the reset', () => {
    const base = { enabled: true, url: 'https://updates.example.com/', publicKey: key };
    expect(problem({ policyVersion: 1, updates: { ...base, install: 'maintenance-window' } })).toContain(
      'updates.maintenanceWindow: is needed with install "maintenance-window"',
    );
    expect(problem({ policyVersion: 1, updates: { ...base, maintenanceWindow: '02:00-04:00' } })).toContain(
      'updates.maintenanceWindow: is used only with install "maintenance-window"',
    );
    expect(problem({ policyVersion: 1, updates: { ...base, install: 'maintenance-window', maintenanceWindow: '25:00-04:00' } })).toContain(
      'updates.maintenanceWindow: Invalid string',
    );
    expect(problem({ policyVersion: 1, updates: { ...base, install: 'maintenance-window', maintenanceWindow: '23:00-05:00' } })).toBe('ok');
    expect(problem({ policyVersion: 1, updates: { ...base, install: 'idle-reset' } })).toContain(
      'updates.install: "idle-reset" needs kiosk mode and idleResetSeconds',
    );
    expect(problem({ policyVersion: 1, kiosk: true, idleResetSeconds: 120, updates: { ...base, install: 'idle-reset' } })).toBe('ok');
  });

  it('fill in their defaults: the channel latest, installed on quit, or after the idle reset in kiosk mode; off means nothing is read', () => {
    const policy = (extra: Partial<DevicePolicy>): DevicePolicy => ({
      policyVersion: 1,
      updates: { enabled: true, url: 'https://u.example.com/', publicKey: key },
      ...extra,
    });
    expect(updateSettingsOf(policy({}))).toEqual({ url: 'https://u.example.com/', publicKey: key, channel: 'latest', install: 'on-quit' });
    expect(updateSettingsOf(policy({ kiosk: true }))).toMatchObject({ install: 'idle-reset' });
    expect(
      updateSettingsOf(
        policy({
          updates: {
            enabled: true,
            url: 'https://u.example.com/',
            publicKey: key,
            install: 'maintenance-window',
            maintenanceWindow: '23:30-01:15',
            channel: 'beta',
          },
        }),
      ),
    ).toMatchObject({ channel: 'beta', window: { start: 23 * 60 + 30, end: 75 } });
    expect(updateSettingsOf(policy({ updates: { enabled: false, url: 'https://u.example.com/', publicKey: key } }))).toBeUndefined();
    expect(updateSettingsOf({ policyVersion: 1 })).toBeUndefined();
    expect(updateSettingsOf(undefined)).toBeUndefined();
  });
});

describe('versions', () => {
  it('compare as semantic versions: a pre-release before its release, numbers below words, build metadata ignored', () => {
    const ordered = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '1.10.0',
      '2.0.0',
    ];
    for (let index = 1; index < ordered.length; index++) {
      expect(compareVersions(ordered[index - 1]!, ordered[index]!), `${ordered[index - 1]} < ${ordered[index]}`).toBeLessThan(0);
      expect(compareVersions(ordered[index]!, ordered[index - 1]!)).toBeGreaterThan(0);
    }
    expect(compareVersions('1.2.3', 'v1.2.3+build.7')).toBe(0);
    expect(compareVersions('1.2', '1.2.0')).toBeUndefined();
    expect(compareVersions('1.2.3', 'latest')).toBeUndefined();
  });
});

describe('the maintenance window', () => {
  it('is local minutes, may pass midnight, and is never open when it has no length', () => {
    const night = parseMaintenanceWindow('23:00-05:00')!;
    expect(night).toEqual({ start: 1380, end: 300 });
    expect([22 * 60 + 59, 23 * 60, 0, 4 * 60 + 59, 5 * 60, 12 * 60].map((minute) => inMaintenanceWindow(night, minute))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
    const day = parseMaintenanceWindow('02:00-04:00')!;
    expect([119, 120, 239, 240].map((minute) => inMaintenanceWindow(day, minute))).toEqual([false, true, true, false]);
    expect(inMaintenanceWindow(parseMaintenanceWindow('03:00-03:00')!, 180)).toBe(false);
    expect(parseMaintenanceWindow('3:00-4:00')).toBeUndefined();
  });
});

describe('when to check and when to install', () => {
  it('checks a while after start, then every few hours, sooner after a failure, never while an update is on its way or waits', () => {
    expect(nextCheckDelayMs({ phase: 'idle', checks: 0 })).toBe(updateTimings.firstCheckMs);
    expect(nextCheckDelayMs({ phase: 'idle', checks: 3 })).toBe(updateTimings.everyMs);
    expect(nextCheckDelayMs({ phase: 'refused', checks: 3 })).toBe(updateTimings.everyMs);
    expect(nextCheckDelayMs({ phase: 'failed', checks: 3 })).toBe(updateTimings.retryMs);
    for (const phase of ['checking', 'downloading', 'ready', 'installing'] as const) expect(nextCheckDelayMs({ phase, checks: 1 })).toBeUndefined();
  });

  it("installs only at the mode's moment and never during a conversation", () => {
    const at = (hours: number) => new Date(2026, 11, 5, hours, 0, 0);
    const quiet = { busy: false, lastActivityAt: undefined };
    const busy = { busy: true, lastActivityAt: at(2).getTime() };
    const mode = (install: UpdateSettings['install']): UpdateSettings => ({
      url: 'https://u.example.com/',
      publicKey: key,
      channel: 'latest',
      install,
      window: { start: 60, end: 240 },
    });
    expect(installDecision(mode('on-quit'), 'quit', at(12), busy)).toEqual({ install: true });
    expect(installDecision(mode('on-quit'), 'tick', at(2), quiet)).toMatchObject({ install: false });
    expect(installDecision(mode('idle-reset'), 'idle-reset', at(12), quiet)).toEqual({ install: true });
    expect(installDecision(mode('idle-reset'), 'idle-reset', at(12), busy)).toMatchObject({ install: false });
    expect(installDecision(mode('idle-reset'), 'quit', at(12), quiet)).toMatchObject({ install: false });
    expect(installDecision(mode('maintenance-window'), 'tick', at(2), quiet)).toEqual({ install: true });
    expect(installDecision(mode('maintenance-window'), 'tick', at(5), quiet)).toMatchObject({ install: false, reason: 'outside the maintenance window' });
    expect(installDecision(mode('maintenance-window'), 'tick', at(2), busy)).toMatchObject({ install: false, reason: 'a conversation is going on' });
    expect(installDecision(mode('maintenance-window'), 'tick', at(2), { busy: false, lastActivityAt: at(2).getTime() - 60_000 })).toMatchObject({
      install: false,
      reason: 'a conversation was active in the last 10 minutes',
    });
    expect(installDecision(mode('maintenance-window'), 'quit', at(2), quiet)).toMatchObject({ install: false });
  });
});
