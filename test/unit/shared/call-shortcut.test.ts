import { describe, expect, it } from 'vitest';
import { acceleratorSchema, callShortcut, callShortcutLabel, parseAccelerator } from '../../../src/shared/talkie/voice/call-shortcut';

describe('the call shortcut (an Electron accelerator)', () => {
  it('reads modifiers in any order and writes them in one canonical order', () => {
    expect(parseAccelerator('Shift+CommandOrControl+Space')).toEqual({ ok: true, accelerator: 'CommandOrControl+Shift+Space' });
    expect(parseAccelerator('Alt + Shift + K')).toEqual({ ok: true, accelerator: 'Alt+Shift+K' });
    expect(parseAccelerator('F13')).toEqual({ ok: true, accelerator: 'F13' });
    expect(parseAccelerator(callShortcut)).toEqual({ ok: true, accelerator: callShortcut });
  });

  it('refuses what would take a plain key from every program, Escape, unknown parts and two keys', () => {
    expect(parseAccelerator('T')).toEqual({ ok: false, problem: 'no_modifier' });
    expect(parseAccelerator('Space')).toEqual({ ok: false, problem: 'no_modifier' });
    expect(parseAccelerator('Shift+Escape')).toEqual({ ok: false, problem: 'escape' });
    expect(parseAccelerator('Ctrl+T')).toEqual({ ok: false, problem: 'unknown_part' });
    expect(parseAccelerator('Super+T')).toEqual({ ok: false, problem: 'unknown_part' });
    expect(parseAccelerator('CommandOrControl+T+U')).toEqual({ ok: false, problem: 'no_key' });
    expect(parseAccelerator('CommandOrControl+Shift')).toEqual({ ok: false, problem: 'no_key' });
    expect(parseAccelerator('')).toEqual({ ok: false, problem: 'empty' });
    expect(parseAccelerator('CommandOrControl++T')).toEqual({ ok: false, problem: 'empty' });
    expect(parseAccelerator('F25')).toEqual({ ok: false, problem: 'unknown_part' });
  });

  it('saves only the canonical form', () => {
    expect(acceleratorSchema.safeParse('CommandOrControl+Alt+T').success).toBe(true);
    expect(acceleratorSchema.safeParse('Alt+CommandOrControl+T').success).toBe(false);
    expect(acceleratorSchema.safeParse('T').success).toBe(false);
  });

  it('names the keys as each system does', () => {
    expect(callShortcutLabel('linux')).toBe('Ctrl+Shift+Space');
    expect(callShortcutLabel('win32', 'CommandOrControl+Alt+T')).toBe('Ctrl+Alt+T');
    expect(callShortcutLabel('darwin', 'CommandOrControl+Alt+T')).toBe('Cmd+Option+T');
  });
});
