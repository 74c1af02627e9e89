import { parseAccelerator, type AcceleratorProblem } from '../../shared/talkie/voice/call-shortcut';

/** What a key press names, by the key's place on the keyboard (`code`), so that Shift+2 is "2", not "@". */
const keyNames: Record<string, string> = {
  Space: 'Space',
  Enter: 'Enter',
  Backspace: 'Backspace',
  Delete: 'Delete',
  Insert: 'Insert',
  Home: 'Home',
  End: 'End',
  PageUp: 'PageUp',
  PageDown: 'PageDown',
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  Minus: 'Minus',
  NumpadAdd: 'Plus',
  NumpadSubtract: 'Minus',
  Escape: 'Escape',
};

const modifierCodes = /^(Shift|Control|Alt|Meta|OS)(Left|Right)?$/;

export type KeyCombination = { kind: 'modifiers-only' } | { kind: 'combination'; accelerator: string } | { kind: 'refused'; problem: AcceleratorProblem };

/**
 * The call shortcut a key press makes (an Electron accelerator in canonical form), or why it cannot be
 * one. `mac`: Cmd is the CommandOrControl key there, Ctrl elsewhere.
 */
export function keyCombination(event: Pick<KeyboardEvent, 'code' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>, mac: boolean): KeyCombination {
  if (modifierCodes.test(event.code)) return { kind: 'modifiers-only' };
  const letter = /^Key([A-Z])$/.exec(event.code)?.[1];
  const digit = /^(?:Digit|Numpad)(\d)$/.exec(event.code)?.[1];
  const key = letter ?? digit ?? (/^F([1-9]|1\d|2[0-4])$/.test(event.code) ? event.code : keyNames[event.code]);
  if (key === undefined) return { kind: 'refused', problem: 'unknown_part' };
  const parts = [(mac ? event.metaKey : event.ctrlKey) ? 'CommandOrControl' : '', event.altKey ? 'Alt' : '', event.shiftKey ? 'Shift' : '', key].filter(
    (part) => part !== '',
  );
  const parsed = parseAccelerator(parts.join('+'));
  return parsed.ok ? { kind: 'combination', accelerator: parsed.accelerator } : { kind: 'refused', problem: parsed.problem };
}
