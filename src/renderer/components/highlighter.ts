import type { Root } from 'hast';
import { common, createLowlight } from 'lowlight';

/** Only ever imported through highlight-loader.ts (a dynamic import: its own chunk). */
const lowlight = createLowlight(common);

export function highlight(code: string, language: string): Root | undefined {
  const name = language.toLowerCase();
  if (!lowlight.registered(name)) return undefined;
  return lowlight.highlight(name, code);
}
