import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtReaderEntryPath } from '../nfc/built-entry';
import { nodeReaderLauncher, type ReaderChannel, type ReaderEntry, type ReaderLauncher } from '../nfc/reader-supervisor';
import { engineToMainSchema, type MainToEngine, type EngineModel, type EngineToMain } from '../../shared/speech/engine-protocol';
import type { Logger } from '../platform/logger';
import { SpeechEngineError } from './bounded-process';
import type { TextToSpeech } from './espeak-tts';
import { bytesFromInt16, int16FromBytes, type Pcm } from './pcm';
import type { SpeechToText } from './speech-to-text';

/**
 * Main's side of a speech engine process (#17): starts it (the NFC reader's launchers: a Node child here,
 * an Electron utilityProcess in the app), has it load one imported model, and sends it one request at a
 * time from a bounded queue: an utterance to a recognizer, a text to a voice. A process that ends
 * (sherpa-onnx aborts on a corrupt model), fails to load or stops answering rejects what it holds with a
 * SpeechEngineError that says so; main goes on. The next call starts a new process, until `maxFailures` starts in a row have failed: then every call is
 * refused with the last reason until the model changes (a new SpeechEngineClient).
 */

export type SpeechEngineLauncher = ReaderLauncher<MainToEngine>;

/** out/main/speech-engine.js in the build; engine-process.ts through tsx from source (tests). */
export function defaultEngineEntry(): ReaderEntry {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return { path: join(dirname(here), 'engine-process.ts'), execArgv: ['--import', 'tsx'], cwd: resolve(dirname(here), '../../..') };
  return { path: builtReaderEntryPath(import.meta.url, 'speech-engine.js'), execArgv: [] };
}

export function nodeEngineLauncher(entry: ReaderEntry = defaultEngineEntry()): SpeechEngineLauncher {
  return nodeReaderLauncher<MainToEngine>(entry);
}

export interface SpeechEngineClientOptions {
  model: EngineModel;
  log: Logger;
  launcher?: SpeechEngineLauncher;
  /** Requests waiting behind the one being answered; more are refused (retryable). */
  maxQueued?: number;
  /** Process starts in a row that may fail before calls are refused outright. */
  maxFailures?: number;
  loadTimeoutMs?: number;
  /** How long one utterance or text may take before the process is stopped. */
  answerTimeoutMs?: number;
  /** Runs before each process start (the sha256 check of the model's files); a throw is a failed start. */
  beforeStart?: () => Promise<void>;
}

/** What the process is asked, and what it answers: words for an utterance, speech for a text. */
type Request = { kind: 'transcribe'; pcm: Pcm } | { kind: 'synthesize'; text: string };
type Answer = string | Pcm;

interface Job {
  request: Request;
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

interface Running {
  channel: ReaderChannel<MainToEngine>;
  ready: Promise<void>;
  /** Settles `ready`, or the job in flight, with the process's end. */
  fail(error: SpeechEngineError): void;
  stderr: string[];
  /** The request in flight, by id: settles it with the answer or the error. */
  pending: Map<number, (outcome: Answer | SpeechEngineError) => void>;
}

const loadPrefix = 'the speech model could not be loaded';

export class SpeechEngineClient implements SpeechToText, TextToSpeech {
  private readonly launcher: SpeechEngineLauncher;
  private readonly maxQueued: number;
  private readonly maxFailures: number;
  private readonly loadTimeoutMs: number;
  private readonly answerTimeoutMs: number;
  private readonly queue: Job[] = [];
  private running: Running | undefined;
  private busy = false;
  private failures = 0;
  private lastFailure: SpeechEngineError | undefined;
  private nextId = 1;
  private closed = false;
  /** How many processes were started (tests and the log). */
  starts = 0;
  /** What the messages call it: the speech recognizer, or the voice. */
  private readonly role: string;

  constructor(private readonly options: SpeechEngineClientOptions) {
    this.launcher = options.launcher ?? nodeEngineLauncher();
    this.role = options.model.kind === 'voice' ? 'voice' : 'speech recognizer';
    this.maxQueued = options.maxQueued ?? 4;
    this.maxFailures = options.maxFailures ?? 3;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 120_000;
    this.answerTimeoutMs = options.answerTimeoutMs ?? 60_000;
  }

  /** Why calls are refused now (after `maxFailures` failed starts), if they are. */
  get refusal(): string | undefined {
    return this.failures >= this.maxFailures ? this.lastFailure?.message : undefined;
  }

  get pid(): number | undefined {
    return this.running?.channel.pid;
  }

  /** Starts the process and loads the model (import uses this to verify one); rejects with why it could not. */
  load(): Promise<void> {
    if (this.closed) return Promise.reject(new SpeechEngineError('failed', `the ${this.role} was stopped`));
    if (this.refusal !== undefined) return Promise.reject(this.lastFailure!);
    return (this.running ??= this.start()).ready;
  }

  transcribe(pcm: Pcm): Promise<string> {
    return this.ask({ kind: 'transcribe', pcm }) as Promise<string>;
  }

  /** Speech for `text` in the loaded voice (the locale is the voice's own: the caller chose the voice for it). */
  synthesize(text: string): Promise<Pcm> {
    return this.ask({ kind: 'synthesize', text }) as Promise<Pcm>;
  }

  private ask(request: Request): Promise<Answer> {
    if (this.closed) return Promise.reject(new SpeechEngineError('failed', `the ${this.role} was stopped`));
    if (this.refusal !== undefined) return Promise.reject(this.lastFailure!);
    if (this.queue.length >= this.maxQueued + (this.busy ? 0 : 1)) {
      return Promise.reject(
        new SpeechEngineError(
          'timeout',
          `the ${this.role} is busy (${this.queue.length} ${request.kind === 'transcribe' ? 'utterances' : 'texts'} waiting); try again`,
        ),
      );
    }
    return new Promise<Answer>((resolvePromise, reject) => {
      this.queue.push({ request, resolve: resolvePromise, reject });
      void this.pump();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const error = new SpeechEngineError('failed', `the ${this.role} was stopped`);
    for (const job of this.queue.splice(0)) job.reject(error);
    const running = this.running;
    this.running = undefined;
    if (running) {
      // Settles a load or an utterance in flight at once (also a start still hashing the model's files).
      running.fail(error);
      running.channel.send({ type: 'shutdown' });
      setTimeout(() => running.channel.kill(), 1_000).unref();
    }
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    const job = this.queue.shift();
    if (!job) return;
    this.busy = true;
    try {
      await this.load();
      // Closed (or the process gone) meanwhile: say so rather than send to a process that is not there.
      const running = this.running;
      if (this.closed || !running) throw new SpeechEngineError('failed', `the ${this.role} was stopped`);
      job.resolve(await this.send(running, job.request));
    } catch (error) {
      job.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.busy = false;
      void this.pump();
    }
  }

  private send(running: Running, request: Request): Promise<Answer> {
    const id = this.nextId++;
    return new Promise<Answer>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.options.log.warn('speech', `the ${this.role} did not answer in ${Math.round(this.answerTimeoutMs / 1000)} s; stopping it`);
        finish(new SpeechEngineError('timeout', `the ${this.role} did not answer in time`));
        this.end(running);
      }, this.answerTimeoutMs);
      const finish = (outcome: Answer | SpeechEngineError) => {
        clearTimeout(timer);
        running.pending.delete(id);
        if (outcome instanceof SpeechEngineError) reject(outcome);
        // Words answer an utterance, speech a text: anything else is the process's mistake, not an answer.
        else if ((request.kind === 'transcribe') !== (typeof outcome === 'string'))
          reject(new SpeechEngineError('failed', `the ${this.role} answered a ${request.kind} request with the other kind of answer`));
        else resolvePromise(outcome);
      };
      running.pending.set(id, finish);
      if (request.kind === 'transcribe')
        running.channel.send({ type: 'transcribe', id, pcm: Buffer.from(bytesFromInt16(request.pcm.samples)).toString('base64') });
      else running.channel.send({ type: 'synthesize', id, text: request.text });
    });
  }

  private end(running: Running): void {
    if (this.running === running) this.running = undefined;
    running.channel.kill();
  }

  private start(): Running {
    this.starts++;
    const stderr: string[] = [];
    const pending = new Map<number, (outcome: Answer | SpeechEngineError) => void>();
    let settleReady: { resolve(): void; reject(error: SpeechEngineError): void } | undefined;
    const ready = new Promise<void>((resolvePromise, reject) => (settleReady = { resolve: resolvePromise, reject }));
    let loaded = false;
    let ended = false;
    const running: Running = {
      channel: undefined as unknown as ReaderChannel<MainToEngine>,
      ready,
      stderr,
      pending,
      fail: (error) => {
        if (ended) return;
        ended = true;
        if (!loaded) {
          this.failures++;
          this.lastFailure = error;
          settleReady?.reject(error);
        }
        for (const finish of [...pending.values()]) finish(error);
        if (this.running === running) this.running = undefined;
      },
    };
    const loadTimer = setTimeout(() => {
      running.fail(new SpeechEngineError('timeout', `${loadPrefix}: it did not load in ${Math.round(this.loadTimeoutMs / 1000)} s`));
      running.channel.kill();
    }, this.loadTimeoutMs);
    loadTimer.unref();
    const onMessage = (message: EngineToMain) => {
      switch (message.type) {
        case 'hello':
          running.channel.send({ type: 'load', model: this.options.model });
          return;
        case 'loaded':
          clearTimeout(loadTimer);
          loaded = true;
          this.failures = 0;
          this.lastFailure = undefined;
          settleReady?.resolve();
          return;
        case 'loadFailed':
          clearTimeout(loadTimer);
          running.fail(new SpeechEngineError('failed', `${loadPrefix}: ${lastWords(message.detail, stderr)}`));
          running.channel.send({ type: 'shutdown' });
          return;
        case 'result':
          pending.get(message.id)?.(message.text);
          return;
        case 'audio':
          pending.get(message.id)?.({ sampleRate: message.sampleRate, samples: int16FromBytes(Buffer.from(message.pcm, 'base64')) });
          return;
        case 'failed':
          pending.get(message.id)?.(new SpeechEngineError('failed', `the ${this.role} failed: ${message.detail}`));
          return;
      }
    };
    const launch = () => {
      running.channel = this.launcher({
        onMessage: (raw) => {
          const checked = engineToMainSchema.safeParse(raw);
          if (checked.success) onMessage(checked.data);
          else this.options.log.warn('speech', 'the speech engine process sent a message that does not match the protocol; ignored');
        },
        onExit: (code, signal) => {
          clearTimeout(loadTimer);
          const how = signal ? `it was ended by ${signal}` : `it exited with code ${code ?? 'unknown'}`;
          if (!ended) this.options.log.warn('speech', `the speech engine process stopped (${how})`);
          running.fail(
            loaded
              ? new SpeechEngineError('failed', `the ${this.role} stopped (${how})${stderr.length ? `: ${stderr.slice(-2).join(' ')}` : ''}`)
              : new SpeechEngineError('failed', `${loadPrefix}: ${lastWords(undefined, stderr) || how}`),
          );
        },
        onStderr: (line) => {
          if (stderr.length < 40) this.options.log.warn('speech', `${this.role} process: ${line.slice(0, 300)}`);
          stderr.push(line.slice(0, 500));
          if (stderr.length > 40) stderr.shift();
        },
      });
    };
    const before = this.options.beforeStart ?? (async () => undefined);
    running.channel = { pid: undefined, send: () => undefined, kill: () => undefined };
    void before().then(
      () => {
        if (ended) return;
        if (this.closed) return running.fail(new SpeechEngineError('failed', `the ${this.role} was stopped`));
        try {
          launch();
        } catch (error) {
          running.fail(
            new SpeechEngineError(
              'failed',
              `${loadPrefix}: the ${this.role} process could not be started (${error instanceof Error ? error.message : String(error)})`,
            ),
          );
        }
      },
      (error: unknown) => {
        clearTimeout(loadTimer);
        running.fail(
          error instanceof SpeechEngineError
            ? error
            : new SpeechEngineError('failed', `${loadPrefix}: ${error instanceof Error ? error.message : String(error)}`),
        );
      },
    );
    return running;
  }
}

/**
 * What the engine said, in one line: onnxruntime's `what():` line when the process aborted (e.g. "Load
 * model from …/encoder.onnx failed:Protobuf parsing failed."), else the engine's own words.
 */
function lastWords(detail: string | undefined, stderr: readonly string[]): string {
  const what = [...stderr].reverse().find((line) => /what\(\):/.test(line));
  if (what) return what.replace(/^.*what\(\):\s*/, '').trim();
  const errors = stderr.filter((line) => /error|fail|not exist|check/i.test(line)).map((line) => line.replace(/^\S*\.cc:\S+\s*/, '').trim());
  return [detail, ...errors.slice(-2)].filter((part) => part !== undefined && part !== '').join('; ');
}
