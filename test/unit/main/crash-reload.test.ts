import { describe, expect, it } from 'vitest';
import { CrashReloadPolicy, crashLoopMessage } from '../../../src/main/electron/crash-reload';

describe('CrashReloadPolicy', () => {
  it('reloads up to three times within a minute, asks after that, and forgets crashes older than the minute', () => {
    let now = 0;
    const policy = new CrashReloadPolicy({ maxReloads: 3, windowMs: 60_000 }, () => now);
    expect(policy.decide('clean-exit')).toBe('ignore');
    expect([policy.decide('crashed'), policy.decide('oom'), policy.decide('killed')]).toEqual(['reload', 'reload', 'reload']);
    now = 59_999;
    expect(policy.decide('crashed')).toBe('ask');
    now = 60_000;
    expect([policy.decide('crashed'), policy.decide('crashed'), policy.decide('crashed'), policy.decide('crashed')]).toEqual([
      'reload',
      'reload',
      'reload',
      'ask',
    ]);
    policy.reset();
    expect(policy.decide('abnormal-exit')).toBe('reload');
  });

  it('asks in Czech or English', () => {
    expect(crashLoopMessage('cs-CZ').buttons).toEqual(['Načíst znovu', 'Ukončit']);
    expect(crashLoopMessage('en-GB').buttons).toEqual(['Reload', 'Quit']);
    expect(crashLoopMessage('de').message).toBe('The AgentDesk window keeps crashing.');
  });
});
