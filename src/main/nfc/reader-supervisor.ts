import { fork, type Serializable } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtReaderEntryPath } from './built-entry';
import { parentPidEnv, readerFatalExitCode, readerToMainSchema, type MainToReader, type ReaderToMain } from '../../shared/nfc/reader-protocol';
import type { Logger } from '../platform/logger';
import { Listeners } from '../../shared/base/listeners';

/**
 * Main's side of the NFC reader process: starts it, checks every message it sends, restarts it
 * with backoff after a crash or when it stops answering, and replays main's standing orders (armed
 * or not, reader feedback) to each new instance. Main never loads nfc-pcsc itself: the PC/SC
 * context blocks its event loop while the smart-card service is down, and a native crash in it
 * must not take the app down.
 */

export interface ReaderChannel<Out = MainToReader> {
  send(message: Out): void;
  /** Ends the process at once (SIGKILL where there are signals). */
  kill(): void;
  readonly pid: number | undefined;
}

export interface ReaderLaunchHandlers {
  onMessage(raw: unknown): void;
  onExit(code: number | null, signal: string | null): void;
  /** A line the process wrote to stderr (the reader process itself writes nothing; native libraries might). */
  onStderr?(line: string): void;
}

/**
 * Starts one reader process. Node: child_process.fork (nodeReaderLauncher); Electron: utilityProcess.fork
 * (utilityProcessLauncher). `Out` is what main sends it (the speech engine process uses the same launchers).
 */
export type ReaderLauncher<Out = MainToReader> = (handlers: ReaderLaunchHandlers) => ReaderChannel<Out>;

export interface ReaderEntry {
  /** The module to run. */
  path: string;
  /** Node options for it (`--import tsx` for the TypeScript source). */
  execArgv: string[];
  cwd?: string;
}

/**
 * Where the reader process's code is: next to this module. In the build every main entry is a file
 * in out/main and the reader process is out/main/nfc-reader.js; from source (tests, tsx) it is
 * reader-process.ts beside this file, run through tsx from the repository root.
 */
export function defaultReaderEntry(): ReaderEntry {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    return { path: join(dirname(here), 'reader-process.ts'), execArgv: ['--import', 'tsx'], cwd: resolve(dirname(here), '../../..') };
  }
  return { path: builtReaderEntryPath(import.meta.url), execArgv: [] };
}

/** Splits a child's stderr into non-empty lines (keeping at most 4 KiB of an unfinished one) for the log. */
export function stderrLines(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let buffered = '';
  return (chunk) => {
    buffered = (buffered + chunk.toString()).slice(-4096);
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') onLine(line);
    }
  };
}

/** Runs the reader process as a Node child process with an IPC channel (plain Node: tests, the web shell, the CLI). */
export function nodeReaderLauncher<Out extends Serializable = MainToReader>(
  entry: ReaderEntry = defaultReaderEntry(),
  env: NodeJS.ProcessEnv = process.env,
): ReaderLauncher<Out> {
  return (handlers) => {
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      ...(entry.cwd ? { cwd: entry.cwd } : {}),
      // Main's pid: the process ends when main is gone, even if main died before it could hear of it.
      env: { ...env, [parentPidEnv]: String(process.pid) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    child.stderr?.on(
      'data',
      stderrLines((line) => handlers.onStderr?.(line)),
    );
    child.on('message', (message) => handlers.onMessage(message));
    let exited = false;
    const exit = (code: number | null, signal: string | null) => {
      if (exited) return;
      exited = true;
      handlers.onExit(code, signal);
    };
    child.on('exit', exit);
    child.on('error', () => {
      // Spawn failures (and a send to a dead channel) end up here; an exit follows or already happened.
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined) exit(null, null);
    });
    return {
      pid: child.pid,
      send: (message) => {
        if (child.connected) child.send(message, (error) => void error);
      },
      kill: () => void child.kill('SIGKILL'),
    };
  };
}

export type ReaderProcessState = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed';

export interface ReaderSupervisorOptions {
  log: Logger;
  launcher?: ReaderLauncher;
  /** Pauses before successive restarts; the last one repeats. */
  backoffMs?: readonly number[];
  /** A process that sends nothing (not even its heartbeat) for this long is killed and restarted. */
  silenceLimitMs?: number;
  /** A process that ran this long before it died restarts after the first backoff step again. */
  stableAfterMs?: number;
}

export class ReaderSupervisor {
  private readonly log: Logger;
  private readonly launcher: ReaderLauncher;
  private readonly backoffMs: readonly number[];
  private readonly silenceLimitMs: number;
  private readonly stableAfterMs: number;
  private channel: ReaderChannel | undefined;
  private state: ReaderProcessState = 'stopped';
  private stateDetail: string | undefined;
  private attempt = 0;
  private startedAt = 0;
  private lastHeard = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private resolveStopped: (() => void) | undefined;
  private invalidMessages = 0;
  private readonly messageListeners = new Listeners<[ReaderToMain]>((error) => this.log.error('nfc', 'an NFC message listener failed', error));
  private readonly stateListeners = new Listeners<[ReaderProcessState, string?]>((error) => this.log.error('nfc', 'an NFC state listener failed', error));
  /** Standing orders, replayed to every new reader process after its hello. */
  private readonly standing = new Map<'arm' | 'configure', MainToReader>();
  /** How many times the reader process was restarted after dying or going silent. */
  restarts = 0;

  constructor(options: ReaderSupervisorOptions) {
    this.log = options.log;
    this.launcher = options.launcher ?? nodeReaderLauncher();
    this.backoffMs = options.backoffMs ?? [250, 500, 1_000, 2_000, 5_000, 10_000];
    this.silenceLimitMs = options.silenceLimitMs ?? 10_000;
    this.stableAfterMs = options.stableAfterMs ?? 30_000;
  }

  get processState(): ReaderProcessState {
    return this.state;
  }

  get processDetail(): string | undefined {
    return this.stateDetail;
  }

  /** The reader process's pid (tests use it to crash the process on purpose). */
  get pid(): number | undefined {
    return this.channel?.pid;
  }

  start(): void {
    if (this.state !== 'stopped' || this.stopping) return;
    this.launch();
    this.watchdog = setInterval(() => this.checkSilence(), Math.min(1_000, this.silenceLimitMs / 2));
    this.watchdog.unref();
  }

  /** Sends a message to the current reader process; `arm` and `configure` are also kept for the next one. */
  send(message: MainToReader): void {
    if (message.type === 'arm' || message.type === 'configure') this.standing.set(message.type, message);
    if (this.state === 'running') this.channel?.send(message);
  }

  onMessage(listener: (message: ReaderToMain) => void): () => void {
    return this.messageListeners.subscribe(listener);
  }

  onState(listener: (state: ReaderProcessState, detail?: string) => void): () => void {
    return this.stateListeners.subscribe(listener);
  }

  /** Asks the reader process to close its PC/SC context and exit; kills it after `graceMs`. */
  stop(graceMs = 1_500): Promise<void> {
    if (this.stopping) return this.stopping;
    clearTimeout(this.restartTimer);
    clearInterval(this.watchdog);
    const channel = this.channel;
    if (!channel) {
      this.setState('stopped');
      return Promise.resolve();
    }
    this.stopping = new Promise<void>((resolve) => {
      this.resolveStopped = resolve;
      channel.send({ type: 'shutdown' });
      const timer = setTimeout(() => channel.kill(), graceMs);
      timer.unref();
    });
    return this.stopping;
  }

  private launch(): void {
    this.setState(this.restarts === 0 && this.attempt === 0 ? 'starting' : 'restarting', this.stateDetail);
    this.startedAt = Date.now();
    this.lastHeard = Date.now();
    let channel: ReaderChannel | undefined;
    let stderrLines = 0;
    const handlers: ReaderLaunchHandlers = {
      onMessage: (raw) => {
        if (this.channel === channel) this.onRawMessage(raw);
      },
      onExit: (code, signal) => {
        if (channel === undefined || this.channel === channel) this.onExit(code, signal);
      },
      onStderr: (line) => {
        // Bounded: a native library that keeps printing must not flood the app log.
        if (stderrLines++ < 40) this.log.warn('nfc', `reader process: ${line.slice(0, 300)}`);
      },
    };
    try {
      channel = this.launcher(handlers);
      this.channel = channel;
    } catch (error) {
      this.log.error('nfc', 'the NFC reader process could not be started', error);
      this.onExit(null, null);
    }
  }

  private onRawMessage(raw: unknown): void {
    this.lastHeard = Date.now();
    const checked = readerToMainSchema.safeParse(raw);
    if (!checked.success) {
      // Never log the message itself: it may carry a card ID.
      if (this.invalidMessages++ < 5) this.log.warn('nfc', 'the NFC reader process sent a message that does not match the protocol; ignored');
      return;
    }
    const message = checked.data;
    if (message.type === 'hello') {
      this.setState('running');
      for (const order of this.standing.values()) this.channel?.send(order);
    }
    if (message.type === 'fatal') this.stateDetail = message.detail;
    this.messageListeners.emit(message);
  }

  private onExit(code: number | null, signal: string | null): void {
    this.channel = undefined;
    if (this.stopping) {
      this.setState('stopped');
      this.resolveStopped?.();
      return;
    }
    if (code === readerFatalExitCode) {
      this.log.error('nfc', `the NFC reader process cannot run here: ${this.stateDetail ?? 'no reason given'}`);
      clearInterval(this.watchdog);
      this.setState('failed', this.stateDetail);
      return;
    }
    if (Date.now() - this.startedAt >= this.stableAfterMs) this.attempt = 0;
    const delay = this.backoffMs[Math.min(this.attempt, this.backoffMs.length - 1)] ?? 1_000;
    this.attempt++;
    this.restarts++;
    const how = signal ? `was ended by ${signal}` : `exited with code ${code ?? 'unknown'}`;
    this.log.warn('nfc', `the NFC reader process ${how}; restarting in ${delay} ms`);
    this.setState('restarting', `The NFC reader service stopped unexpectedly (it ${how}); restarting.`);
    this.restartTimer = setTimeout(() => this.launch(), delay);
  }

  private checkSilence(): void {
    if (!this.channel || this.stopping) return;
    if (Date.now() - this.lastHeard < this.silenceLimitMs) return;
    this.log.warn('nfc', `the NFC reader process has not answered for ${Math.round(this.silenceLimitMs / 1000)} s; restarting it`);
    this.lastHeard = Date.now();
    this.channel.kill();
  }

  private setState(state: ReaderProcessState, detail?: string): void {
    const changed = state !== this.state || detail !== this.stateDetail;
    this.state = state;
    this.stateDetail = detail;
    if (!changed) return;
    this.stateListeners.emit(state, detail);
  }
}
