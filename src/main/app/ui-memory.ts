import { maxDraftChars, maxDrafts, type UiScreen } from '../../shared/ipc/ui-memory-schemas';

/**
 * The renderer's transient state, kept in main's memory (never on disk) so that a reloaded or
 * crashed renderer gets it back with `ui.restore`: the open screen and the composers' drafts.
 * Bounded: at most `maxDrafts` drafts of at most `maxDraftChars` characters each (the schema
 * checks the size; the oldest draft goes first).
 */
export class UiMemory {
  private screen: UiScreen | undefined;
  /** In the order they were last written (a Map keeps insertion order). */
  private readonly drafts = new Map<string, string>();

  restore(): { screen?: UiScreen; drafts: { key: string; text: string }[] } {
    return { ...(this.screen ? { screen: this.screen } : {}), drafts: [...this.drafts].map(([key, text]) => ({ key, text })) };
  }

  /** The kiosk's reset: the open screen and every draft are forgotten (main holds them nowhere else). */
  clear(): number {
    const forgotten = this.drafts.size + (this.screen ? 1 : 0);
    this.screen = undefined;
    this.drafts.clear();
    return forgotten;
  }

  saveScreen(screen: UiScreen): { saved: true } {
    this.screen = screen;
    return { saved: true };
  }

  saveDraft(key: string, text: string): { saved: true } {
    this.drafts.delete(key);
    if (text !== '') {
      this.drafts.set(key, text.slice(0, maxDraftChars));
      for (const oldest of this.drafts.keys()) {
        if (this.drafts.size <= maxDrafts) break;
        this.drafts.delete(oldest);
      }
    }
    return { saved: true };
  }
}
