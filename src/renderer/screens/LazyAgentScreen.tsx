import { createElement, useEffect, useState, type ReactNode } from 'react';
import type * as AgentScreenModule from './AgentScreen';

/**
 * The agent screens (Talkie, AgentCall, plain AG-UI, A2A) and everything only they use (Markdown with
 * react-markdown and remark-gfm, cards, forms) are a chunk of their own: the first screen (Home) does
 * not wait for them to be parsed. They load once the first screen is up (usePreloadAgentScreen, when
 * the page is idle), or at once when an agent screen is wanted first (a reload on one).
 */
let loaded: typeof AgentScreenModule | undefined;
let loading: Promise<typeof AgentScreenModule> | undefined;

export function loadAgentScreen(): Promise<typeof AgentScreenModule> {
  loading ??= import('./AgentScreen').then(
    (module) => (loaded = module),
    (error: unknown) => {
      // Tried again at the next use.
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

function useAgentScreenModule(): typeof AgentScreenModule | undefined {
  const [module, setModule] = useState(loaded);
  useEffect(() => {
    if (module) return undefined;
    let active = true;
    void loadAgentScreen().then(
      (next) => active && setModule(next),
      (error: unknown) => console.error('AgentDesk could not load the agent screens', error),
    );
    return () => {
      active = false;
    };
  }, [module]);
  return module;
}

/** Loads the agent screens' chunk when the page is next idle (after the first screen is shown). */
export function usePreloadAgentScreen(): void {
  useEffect(() => {
    if (loaded) return undefined;
    const load = () => void loadAgentScreen().catch(() => undefined);
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(load, { timeout: 1000 });
      return () => cancelIdleCallback(id);
    }
    const id = setTimeout(load, 200);
    return () => clearTimeout(id);
  }, []);
}

/** AgentScreen, or `fallback` while its chunk loads; `onShown` once it rendered (the App moves focus then). */
export function LazyAgentScreen({ fallback, onShown, ...props }: AgentScreenModule.AgentScreenProps & { fallback: ReactNode; onShown: () => void }) {
  const module = useAgentScreenModule();
  useEffect(() => {
    if (module) onShown();
  }, [module, onShown]);
  return module ? createElement(module.AgentScreen, props) : fallback;
}
