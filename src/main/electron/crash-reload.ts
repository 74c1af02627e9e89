/**
 * What main does when the window's renderer process is gone (a crash, an out-of-memory kill):
 * reload the page, which takes its state back from main (ui.restore, the threads and approvals
 * main keeps). A renderer that keeps dying is not reloaded forever: after `maxReloads` reloads
 * within `windowMs` the user is asked instead (Reload or Quit). Pure (no Electron), so it is tested
 * under plain Node.
 */
export type CrashDecision = 'reload' | 'ask' | 'ignore';

export class CrashReloadPolicy {
  private readonly reloads: number[] = [];

  constructor(
    private readonly options: { maxReloads: number; windowMs: number } = { maxReloads: 3, windowMs: 60_000 },
    private readonly now: () => number = Date.now,
  ) {}

  /** `reason` as Electron's RenderProcessGoneDetails gives it; a clean exit (the window closing) is not a crash. */
  decide(reason: string): CrashDecision {
    if (reason === 'clean-exit') return 'ignore';
    const now = this.now();
    while (this.reloads.length > 0 && now - this.reloads[0]! >= this.options.windowMs) this.reloads.shift();
    if (this.reloads.length >= this.options.maxReloads) return 'ask';
    this.reloads.push(now);
    return 'reload';
  }

  /** The user chose Reload after being asked: the count starts again. */
  reset(): void {
    this.reloads.length = 0;
  }
}

/** The question after a crash loop, in the languages the renderer speaks (main has no i18n of its own). */
export function crashLoopMessage(locale: string): { message: string; detail: string; buttons: [reload: string, quit: string] } {
  if (locale.toLowerCase().startsWith('cs')) {
    return {
      message: 'Okno AgentDesku opakovaně spadlo.',
      detail: 'Během minuty se znovu načetlo třikrát a pokaždé znovu spadlo. Můžete ho zkusit načíst znovu, nebo AgentDesk ukončit.',
      buttons: ['Načíst znovu', 'Ukončit'],
    };
  }
  return {
    message: 'The AgentDesk window keeps crashing.',
    detail: 'It was reloaded three times within a minute and stopped each time. You can try to reload it once more or quit AgentDesk.',
    buttons: ['Reload', 'Quit'],
  };
}
