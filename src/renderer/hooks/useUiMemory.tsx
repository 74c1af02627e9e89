import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import { Listeners } from '../../shared/base/listeners';
import { maxDraftChars, type UiScreen } from '../../shared/ipc/ui-memory-schemas';
import { call } from './useLiveResource';

/** How long the composer waits after the last key before it hands the draft to main. */
const draftDelayMs = 300;
/** How long the page waits for `ui.restore` before it starts without what main kept. */
const restoreWaitMs = 3000;

/**
 * The renderer's transient state, mirrored into main's memory (`ui.saveScreen`, `ui.saveDraft`) so
 * that a reloaded page or a crashed renderer process gets it back (`ui.restore`): the open screen
 * and every composer's draft (main keeps each agent's open conversation itself). Reads are local (a
 * remount on the same page does not wait for main); writes of drafts are debounced and flushed when
 * the page hides.
 */
export class UiMemory {
  private screen: UiScreen | undefined;
  private readonly drafts = new Map<string, string>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly acknowledged = new Map<string, string>();
  private readonly listeners = new Listeners();

  constructor(
    /** Undefined: nothing is remembered (the default outside UiMemoryProvider). */
    private readonly api: AgentDeskApi | undefined,
    restored: { screen?: UiScreen | undefined; drafts: readonly { key: string; text: string }[] } = { drafts: [] },
  ) {
    this.screen = restored.screen;
    for (const { key, text } of restored.drafts) {
      this.drafts.set(key, text);
      this.acknowledged.set(key, text);
    }
  }

  /** The screen that was open (what the page shows first after a reload). */
  currentScreen(): UiScreen | undefined {
    return this.screen;
  }

  saveScreen(screen: UiScreen): void {
    const api = this.api;
    if (!api) return;
    this.screen = screen;
    void call(() => api.ui.saveScreen({ screen }));
  }

  draft(key: string): string {
    return this.drafts.get(key) ?? '';
  }

  /** Main holds exactly this text for the key (what the composer marks as saved). */
  isSaved(key: string, text: string): boolean {
    return (this.acknowledged.get(key) ?? '') === text.slice(0, maxDraftChars);
  }

  setDraft(key: string, text: string): void {
    // Without main (a screen rendered outside the provider) nothing is remembered.
    if (!this.api) return;
    if (text === '') this.drafts.delete(key);
    else this.drafts.set(key, text);
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => this.flush(key), draftDelayMs),
    );
  }

  /** Sends the key's draft now (or every pending draft). */
  flush(key?: string): void {
    const api = this.api;
    if (!api) return;
    for (const pendingKey of key === undefined ? [...this.timers.keys()] : [key]) {
      const timer = this.timers.get(pendingKey);
      if (timer === undefined) continue;
      clearTimeout(timer);
      this.timers.delete(pendingKey);
      const text = this.draft(pendingKey).slice(0, maxDraftChars);
      void call(() => api.ui.saveDraft({ key: pendingKey, text })).then((result) => {
        if (!result.ok) return;
        this.acknowledged.set(pendingKey, text);
        this.listeners.emit();
      });
    }
  }

  /** The kiosk's reset: everything this page remembers goes (main's own copy goes with `kiosk.reset`); pending saves are dropped. */
  forget(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.drafts.clear();
    this.acknowledged.clear();
    this.screen = undefined;
    this.listeners.emit();
  }

  /** Called whenever main acknowledged a draft. */
  onSaved(listener: () => void): () => void {
    return this.listeners.subscribe(listener);
  }
}

const UiMemoryContext = createContext<UiMemory>(new UiMemory(undefined));

export function useUiMemory(): UiMemory {
  return useContext(UiMemoryContext);
}

/** Asks main for what the previous page left (once), then renders the app with it; a failure starts fresh. */
export function UiMemoryProvider({ api, children }: { api: AgentDeskApi; children: ReactNode }) {
  const [memory, setMemory] = useState<UiMemory | undefined>();
  useEffect(() => {
    let active = true;
    const start = (restored?: ConstructorParameters<typeof UiMemory>[1]) => {
      if (!active) return;
      active = false;
      clearTimeout(timer);
      setMemory(new UiMemory(api, restored));
    };
    // Main answers at once; should it not, the page starts fresh rather than stay empty.
    const timer = setTimeout(() => start(), restoreWaitMs);
    void call(() => api.ui.restore({})).then((result) => start(result.ok ? result.value : undefined));
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [api]);
  useEffect(() => {
    if (!memory) return undefined;
    // A reload or a closed tab: what is still waiting for its debounce goes now.
    const flush = () => memory.flush();
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      memory.flush();
    };
  }, [memory]);
  if (!memory) return null;
  return <UiMemoryContext.Provider value={memory}>{children}</UiMemoryContext.Provider>;
}

/**
 * A composer's text that survives the composer: leaving the screen, a page reload, a renderer
 * crash. `saved` is true once main holds exactly the current text.
 */
export function useDraft(key: string): { text: string; setText: (next: string | ((current: string) => string)) => void; saved: boolean } {
  const memory = useUiMemory();
  const [text, setTextState] = useState(() => memory.draft(key));
  const [, setAcknowledgements] = useState(0);
  useEffect(() => memory.onSaved(() => setAcknowledgements((n) => n + 1)), [memory]);
  useEffect(() => () => memory.flush(key), [memory, key]);
  const setText = useCallback(
    (next: string | ((current: string) => string)) => {
      setTextState((current) => {
        const value = typeof next === 'function' ? next(current) : next;
        if (value !== current) memory.setDraft(key, value);
        return value;
      });
    },
    [memory, key],
  );
  return { text, setText, saved: memory.isSaved(key, text) };
}
