import { describe, expect, it } from 'vitest';
import { kioskKeyAction, kioskKeyBlocked, type KioskKeyInput } from '../../../src/shared/device-policy/kiosk-keys';

const press = (key: string, modifiers: Partial<Omit<KioskKeyInput, 'key' | 'type'>> = {}, type = 'keyDown'): KioskKeyInput => ({
  type,
  key,
  control: false,
  alt: false,
  shift: false,
  meta: false,
  ...modifiers,
});

describe('the keys a kiosk window swallows', () => {
  it('on Windows and Linux: Alt+F4, Ctrl+F4, Ctrl+W, Ctrl+Q, F11 and the developer tools keys', () => {
    for (const platform of ['win32', 'linux']) {
      expect(kioskKeyAction(press('F4', { alt: true }), platform)).toBe('close-window');
      expect(kioskKeyAction(press('F4', { control: true }), platform)).toBe('close-window');
      expect(kioskKeyAction(press('w', { control: true }), platform)).toBe('close-window');
      expect(kioskKeyAction(press('W', { control: true, shift: true }), platform)).toBe('close-window');
      expect(kioskKeyAction(press('q', { control: true }), platform)).toBe('quit');
      expect(kioskKeyAction(press('F11'), platform)).toBe('full-screen');
      expect(kioskKeyAction(press('F12'), platform)).toBe('devtools');
      expect(kioskKeyAction(press('I', { control: true, shift: true }), platform)).toBe('devtools');
      // Cmd (the Windows key) is not the primary modifier here.
      expect(kioskKeyAction(press('q', { meta: true }), platform)).toBeUndefined();
    }
  });

  it('on macOS: the same with Cmd, and Cmd+Ctrl+F, Cmd+H, Cmd+M, Cmd+Option+I', () => {
    expect(kioskKeyAction(press('w', { meta: true }), 'darwin')).toBe('close-window');
    expect(kioskKeyAction(press('q', { meta: true }), 'darwin')).toBe('quit');
    expect(kioskKeyAction(press('q', { control: true }), 'darwin')).toBe('quit');
    expect(kioskKeyAction(press('f', { meta: true, control: true }), 'darwin')).toBe('full-screen');
    expect(kioskKeyAction(press('h', { meta: true }), 'darwin')).toBe('hide');
    expect(kioskKeyAction(press('m', { meta: true }), 'darwin')).toBe('hide');
    expect(kioskKeyAction(press('i', { meta: true, alt: true }), 'darwin')).toBe('devtools');
    expect(kioskKeyAction(press('F4', { alt: true }), 'darwin')).toBe('close-window');
    // Cmd+H is just H elsewhere.
    expect(kioskKeyAction(press('h', { meta: true }), 'linux')).toBeUndefined();
  });

  it('lets typing, editing and the app’s own keys through', () => {
    for (const platform of ['win32', 'linux', 'darwin']) {
      for (const input of [
        press('w'),
        press('q'),
        press('Q', { shift: true }),
        press('F4'),
        press('Enter'),
        press('Escape'),
        press('Tab'),
        press('a', { control: true }),
        press('c', { control: true }),
        press('v', { meta: true }),
        press('F5'),
        press('ArrowLeft', { alt: true }),
      ]) {
        expect(kioskKeyAction(input, platform), `${platform} ${JSON.stringify(input)}`).toBeUndefined();
      }
    }
    // Not key presses at all.
    expect(kioskKeyAction(press('w', { control: true }, 'mouseDown'), 'linux')).toBeUndefined();
    // Both halves of a blocked press are swallowed.
    expect(kioskKeyAction(press('F11', {}, 'keyUp'), 'linux')).toBe('full-screen');
  });

  it('blocks only in kiosk mode and only until the administrator unlocks', () => {
    const altF4 = press('F4', { alt: true });
    expect(kioskKeyBlocked(altF4, { platform: 'linux', kiosk: true, adminUnlocked: false })).toBe('close-window');
    expect(kioskKeyBlocked(altF4, { platform: 'linux', kiosk: true, adminUnlocked: true })).toBeUndefined();
    expect(kioskKeyBlocked(altF4, { platform: 'linux', kiosk: false, adminUnlocked: false })).toBeUndefined();
  });
});
