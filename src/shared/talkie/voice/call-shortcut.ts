import { z } from 'zod';

/**
 * The voice call's global shortcut: a key combination main listens for while a call is connected,
 * also when AgentDesk is in the background (Electron's globalShortcut). Operating systems report only
 * the press of such a key, never its release, so it toggles (see `shortcut` in voice-call.ts) rather
 * than being held. It is taken from the system only for the length of a connected call.
 *
 * Written as an Electron accelerator in one canonical form: the modifiers in the order
 * CommandOrControl, Alt, Shift, then one key. At least one modifier, unless the key is a
 * function key (a bare letter would be taken from every program while the call lasts).
 */

/** Ctrl+Shift+Space (Cmd+Shift+Space on macOS): the default. */
export const callShortcut = 'CommandOrControl+Shift+Space';

/** Ctrl (Cmd on macOS), Alt (Option), Shift: the ones that mean the same key on every system. */
export const acceleratorModifiers = ['CommandOrControl', 'Alt', 'Shift'] as const;
export type AcceleratorModifier = (typeof acceleratorModifiers)[number];

const namedKeys = [
  'Space',
  'Tab',
  'Enter',
  'Backspace',
  'Delete',
  'Insert',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Up',
  'Down',
  'Left',
  'Right',
  'Plus',
  'Minus',
  'Escape',
] as const;
const functionKey = /^F([1-9]|1\d|2[0-4])$/;
const isKey = (key: string): boolean => /^[A-Z0-9]$/.test(key) || functionKey.test(key) || (namedKeys as readonly string[]).includes(key);

export type AcceleratorProblem = 'empty' | 'unknown_part' | 'no_key' | 'no_modifier' | 'escape';

/** The canonical accelerator for `text` (parts in any order, case as written by Electron), or why it is not one. */
export function parseAccelerator(text: string): { ok: true; accelerator: string } | { ok: false; problem: AcceleratorProblem } {
  const parts = text.split('+').map((part) => part.trim());
  if (text.trim() === '' || parts.some((part) => part === '')) return { ok: false, problem: 'empty' };
  const found = new Set<AcceleratorModifier>();
  let key: string | undefined;
  for (const part of parts) {
    const modifier = acceleratorModifiers.find((name) => name === part);
    if (modifier) {
      found.add(modifier);
      continue;
    }
    if (!isKey(part) || key !== undefined) return { ok: false, problem: isKey(part) ? 'no_key' : 'unknown_part' };
    key = part;
  }
  if (key === undefined) return { ok: false, problem: 'no_key' };
  if (key === 'Escape') return { ok: false, problem: 'escape' };
  if (found.size === 0 && !functionKey.test(key)) return { ok: false, problem: 'no_modifier' };
  return { ok: true, accelerator: [...acceleratorModifiers.filter((name) => found.has(name)), key].join('+') };
}

/** A saved accelerator: only the canonical form of a valid one. */
export const acceleratorSchema = z
  .string()
  .max(80)
  .refine((text) => {
    const parsed = parseAccelerator(text);
    return parsed.ok && parsed.accelerator === text;
  }, 'not a key combination AgentDesk can use as the call shortcut');

const macNames: Record<string, string> = { CommandOrControl: 'Cmd', Alt: 'Option' };
const otherNames: Record<string, string> = { CommandOrControl: 'Ctrl' };

/** The shortcut as people read it on their system (`darwin`: Cmd, Option). */
export function callShortcutLabel(platform: string, accelerator: string = callShortcut): string {
  const names = platform === 'darwin' ? macNames : otherNames;
  return accelerator
    .split('+')
    .map((part) => names[part] ?? part)
    .join('+');
}
