import type { Root } from 'hast';

/** Highlights `code` as `language`; undefined when lowlight does not know the language. */
export type Highlighter = (code: string, language: string) => Root | undefined;

let loading: Promise<Highlighter> | undefined;

/**
 * lowlight and its grammars, loaded the first time a code block with a language renders: a
 * dynamic import, so they are a chunk of their own and the renderer's entry chunk stays without them.
 */
export function loadHighlighter(): Promise<Highlighter> {
  loading ??= import('./highlighter').then((module) => module.highlight);
  return loading;
}
