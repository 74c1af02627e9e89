import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../platform/logger';

/**
 * The web shell's page recovery (issue #18): main drives the Chromium it started over the DevTools
 * protocol on `--remote-debugging-pipe` (fds 3 and 4: no port, nothing another local user can reach)
 * and watches the app's page. A renderer that crashed (`Target.targetCrashed`) is navigated back
 * to the app at once; one that stops answering (no reply to a trivial `Runtime.evaluate` within
 * `hangMs`) is crashed on purpose (`Page.crash`) and then reloaded the same way. The page itself
 * starts on the kiosk's start screen (the Electron app does the same from `render-process-gone`).
 */
export interface WatchdogOptions {
  /** Chromium's end of the pipe: we write to its fd 3 and read from its fd 4. */
  toBrowser: Writable;
  fromBrowser: Readable;
  /** The app's page: only pages on this origin are watched, and this is where a recovered page goes. */
  origin: string;
  log: Logger;
  /** How often the page is asked whether it answers (default 0.25 s). */
  pingMs?: number;
  /** How long an answer may take before the page counts as hung (default 1 s); false: only crashes are acted on (no pings). */
  hangMs?: number | false;
  /** Each recovery, for the log and tests: why, and how long from noticing to the new page's load. */
  onRecovered?: (event: { why: 'crashed' | 'hung'; ms: number }) => void;
}

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

export class PageWatchdog {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = '';
  /** targetId → the flat session attached to it. */
  private readonly sessions = new Map<string, string>();
  /** Pages being recovered now. */
  private readonly recovering = new Set<string>();
  /** Pages not pinged until then (a page just reloaded is loading). */
  private readonly quietUntil = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly pinging = new Set<string>();
  /** Waiting for a page crashed on purpose to be reported crashed (targetId → resolve). */
  private readonly crashWaits = new Map<string, () => void>();
  private closed = false;

  constructor(private readonly options: WatchdogOptions) {
    options.fromBrowser.setEncoding('utf8');
    options.fromBrowser.on('data', (chunk: string) => this.receive(chunk));
    options.fromBrowser.on('error', () => undefined);
    options.toBrowser.on('error', () => undefined);
    this.timer = setInterval(() => {
      if (options.hangMs !== false) this.pingAll();
    }, options.pingMs ?? 250);
    this.timer.unref();
    void this.send('Target.setDiscoverTargets', { discover: true }).catch((error: unknown) =>
      options.log.warn('webshell', 'the page watchdog could not start', error),
    );
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const pending of this.pending.values()) pending.reject(new Error('closed'));
    this.pending.clear();
  }

  private send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new Error('closed'));
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.options.toBrowser.write(`${message}\0`);
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      let message: {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message?: string };
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
      };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        continue;
      }
      if (message.id !== undefined) {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) pending?.reject(new Error(message.error.message ?? 'DevTools error'));
        else pending?.resolve(message.result ?? {});
      } else if (message.method) this.event(message.method, message.params ?? {}, message.sessionId);
    }
  }

  private event(method: string, params: Record<string, unknown>, sessionId?: string): void {
    const info = params.targetInfo as { targetId: string; type: string; url: string } | undefined;
    if (
      (method === 'Target.targetCreated' || method === 'Target.targetInfoChanged') &&
      info?.type === 'page' &&
      this.ours(info.url) &&
      !this.sessions.has(info.targetId)
    ) {
      void this.attach(info.targetId);
    } else if (method === 'Target.targetDestroyed') {
      this.sessions.delete(params.targetId as string);
    } else if (method === 'Target.targetCrashed') {
      const targetId = params.targetId as string;
      this.crashWaits.get(targetId)?.();
      if (this.sessions.has(targetId)) void this.recover(targetId, 'crashed');
    } else if (method === 'Page.frameStartedLoading' || method === 'Page.loadEventFired') {
      // A page that is loading is busy (parsing the app on a loaded machine): no pings until it loaded, and a second after.
      const targetId = this.targetOf(sessionId);
      if (targetId) this.quietUntil.set(targetId, Date.now() + (method === 'Page.loadEventFired' ? 1000 : 10_000));
    }
  }

  private targetOf(sessionId: string | undefined): string | undefined {
    if (!sessionId) return undefined;
    for (const [targetId, session] of this.sessions) if (session === sessionId) return targetId;
    return undefined;
  }

  private ours(url: string): boolean {
    return url === this.options.origin || url.startsWith(`${this.options.origin}/`);
  }

  private async attach(targetId: string): Promise<void> {
    this.sessions.set(targetId, '');
    try {
      const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
      this.sessions.set(targetId, sessionId);
      await this.send('Page.enable', {}, sessionId);
    } catch (error) {
      this.sessions.delete(targetId);
      this.options.log.warn('webshell', 'the page watchdog could not attach to the page', error);
    }
  }

  private pingAll(): void {
    for (const [targetId, sessionId] of this.sessions) {
      if (!sessionId || this.recovering.has(targetId) || this.pinging.has(targetId) || Date.now() < (this.quietUntil.get(targetId) ?? 0)) continue;
      this.pinging.add(targetId);
      const answered = this.send('Runtime.evaluate', { expression: '1', returnByValue: true }, sessionId).then(
        () => true,
        () => true,
      );
      const late = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.options.hangMs || 1000).unref());
      void Promise.race([answered, late]).then((ok) => {
        this.pinging.delete(targetId);
        if (!ok && !this.recovering.has(targetId) && !this.closed) void this.recover(targetId, 'hung');
      });
    }
  }

  private async recover(targetId: string, why: 'crashed' | 'hung'): Promise<void> {
    if (this.recovering.has(targetId)) return;
    this.recovering.add(targetId);
    const started = performance.now();
    this.options.log.warn('webshell', `the app's page ${why === 'crashed' ? 'crashed' : 'stopped answering'}: reloading it`);
    try {
      const sessionId = this.sessions.get(targetId);
      if (!sessionId) return;
      // A hung renderer cannot navigate: it is crashed first (its process is replaced by the navigation), as soon as Chromium reports it crashed.
      if (why === 'hung') {
        const crashed = new Promise<void>((resolve) => this.crashWaits.set(targetId, resolve));
        void this.send('Page.crash', {}, sessionId).catch(() => undefined);
        await Promise.race([crashed, delay(1000)]);
        this.crashWaits.delete(targetId);
      }
      await this.send('Page.navigate', { url: `${this.options.origin}/` }, sessionId);
      this.options.onRecovered?.({ why, ms: Math.round(performance.now() - started) });
    } catch (error) {
      this.options.log.error('webshell', 'the page could not be reloaded', error);
    } finally {
      this.recovering.delete(targetId);
      // Give the new page a moment to load before it is pinged again (a crash is still acted on at once).
      this.quietUntil.set(targetId, Math.max(this.quietUntil.get(targetId) ?? 0, Date.now() + 2000));
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
