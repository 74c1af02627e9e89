import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdminPinError, hashAdminPin, verifyAdminPin } from '../../../src/main/policy/admin-pin';
import { AdminPinGate } from '../../../src/main/policy/admin-pin-gate';
import { parseAdminPinHash } from '../../../src/shared/device-policy/admin-pin-hash';
import { Notices } from '../../../src/main/store/notices';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('the admin PIN hash', () => {
  it('is a salted scrypt hash with its parameters in the string, verified only by the same PIN', async () => {
    const first = await hashAdminPin('2468');
    const second = await hashAdminPin('2468');
    expect(first).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(second).not.toBe(first); // a fresh salt each time
    expect(await verifyAdminPin('2468', first)).toBe(true);
    expect(await verifyAdminPin('2468', second)).toBe(true);
    expect(await verifyAdminPin('2469', first)).toBe(false);
    expect(await verifyAdminPin('24680', first)).toBe(false);
    expect(await verifyAdminPin('', first)).toBe(false);
  });

  it('verifies a hash made with other parameters (they travel in the string)', async () => {
    const stronger = await hashAdminPin('open sesame', { ln: 14, r: 16, p: 2 });
    expect(parseAdminPinHash(stronger)).toMatchObject({ ln: 14, r: 16, p: 2 });
    expect(await verifyAdminPin('open sesame', stronger)).toBe(true);
    expect(await verifyAdminPin('open sesamE', stronger)).toBe(false);
  });

  it('refuses a PIN too short, too long or with control characters, and parameters a policy would refuse', async () => {
    await expect(hashAdminPin('123')).rejects.toThrow(AdminPinError);
    await expect(hashAdminPin('1'.repeat(65))).rejects.toThrow('at most 64');
    await expect(hashAdminPin('12\n34')).rejects.toThrow('control characters');
    await expect(hashAdminPin('2468', { ln: 12 })).rejects.toThrow('outside what a policy accepts');
    await expect(verifyAdminPin('2468', 'plain text')).rejects.toThrow(AdminPinError);
  });
});

describe('the admin PIN lockout', () => {
  async function gate(file: string, pinHash: string, clock: { now: number }) {
    return AdminPinGate.open({ file, pinHash, notices: new Notices(), now: () => clock.now });
  }

  it('gives five free wrong tries, then locks for a doubling wait; a locked try is not checked, even with the right PIN', async () => {
    const pinHash = await hashAdminPin('2468', { ln: 14 });
    const clock = { now: Date.parse('2026-12-02T10:00:00Z') };
    const pins = await gate(join(await tempDir(), 'admin-pin-lockout.json'), pinHash, clock);
    for (const left of [4, 3, 2, 1]) expect(await pins.unlock('0000')).toEqual({ unlocked: false, reason: 'wrong', retryAfterSeconds: 0, freeTriesLeft: left });
    expect(await pins.unlock('0000')).toEqual({ unlocked: false, reason: 'wrong', retryAfterSeconds: 30, freeTriesLeft: 0 });
    expect(await pins.unlock('2468')).toEqual({ unlocked: false, reason: 'locked', retryAfterSeconds: 30, freeTriesLeft: 0 });
    clock.now += 29_000;
    expect(await pins.unlock('2468')).toMatchObject({ unlocked: false, reason: 'locked', retryAfterSeconds: 1 });
    clock.now += 1_000;
    expect(await pins.unlock('1111')).toEqual({ unlocked: false, reason: 'wrong', retryAfterSeconds: 60, freeTriesLeft: 0 });
    clock.now += 60_000;
    expect(await pins.unlock('2468')).toEqual({ unlocked: true });
    // A right PIN clears the count: five free tries again.
    expect(await pins.unlock('0000')).toMatchObject({ reason: 'wrong', retryAfterSeconds: 0, freeTriesLeft: 4 });
  });

  it('keeps the lockout across a restart (saved in the user-data folder)', async () => {
    const pinHash = await hashAdminPin('2468', { ln: 14 });
    const clock = { now: Date.parse('2026-12-02T10:00:00Z') };
    const file = join(await tempDir(), 'admin-pin-lockout.json');
    const first = await gate(file, pinHash, clock);
    for (let i = 0; i < 5; i += 1) await first.unlock('0000');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ schemaVersion: 1, failures: 5, lockedUntil: '2026-12-02T10:00:30.000Z' });
    const restarted = await gate(file, pinHash, clock);
    expect(await restarted.unlock('2468')).toEqual({ unlocked: false, reason: 'locked', retryAfterSeconds: 30, freeTriesLeft: 0 });
    clock.now += 30_000;
    expect(await restarted.unlock('0000')).toMatchObject({ reason: 'wrong', retryAfterSeconds: 60 });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ schemaVersion: 1, failures: 6, lockedUntil: '2026-12-02T10:01:30.000Z' });
  });

  it('never waits longer than the longest wait when the clock is set back', async () => {
    const pinHash = await hashAdminPin('2468', { ln: 14 });
    const clock = { now: Date.parse('2026-12-02T10:00:00Z') };
    const pins = await gate(join(await tempDir(), 'admin-pin-lockout.json'), pinHash, clock);
    for (let i = 0; i < 5; i += 1) await pins.unlock('0000');
    clock.now -= 30 * 24 * 3600_000;
    expect(pins.retryAfterSeconds()).toBe(3600);
  });

  it('counts tries made at the same time one by one', async () => {
    const pinHash = await hashAdminPin('2468', { ln: 14 });
    const clock = { now: Date.parse('2026-12-02T10:00:00Z') };
    const pins = await gate(join(await tempDir(), 'admin-pin-lockout.json'), pinHash, clock);
    const answers = await Promise.all(Array.from({ length: 7 }, () => pins.unlock('0000')));
    expect(answers.map((answer) => (answer.unlocked ? 'unlocked' : answer.reason))).toEqual(['wrong', 'wrong', 'wrong', 'wrong', 'wrong', 'locked', 'locked']);
  });
});
