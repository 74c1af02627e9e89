/**
 * The one playback path of client-owned voice: texts are synthesised by main (`speech.synthesize`,
 * espeak-ng) and played here through Web Audio, in the order they were queued, each once. Playing in
 * the page (not a system speech service) lets Chromium's echo cancellation subtract it from the
 * microphone, and lets barge-in silence it at once. `flush()` drops what is queued and stops what
 * plays (a failure, response.cancel, leaving the screen, the user speaking over it).
 */

export interface SpeechPlayerOptions {
  /** main's synthesis: the WAV bytes, or undefined when it failed (the text is skipped). */
  synthesize(text: string): Promise<Uint8Array | undefined>;
  /** Where the audio plays (default: a new AudioContext on first use). */
  createContext?: () => AudioContext;
  /** Marks for tests and the benchmark: a queued text started to sound, or playback went silent. */
  onEvent?(event: { type: 'started'; key: string; at: number } | { type: 'silenced'; at: number } | { type: 'idle' }): void;
}

interface Entry {
  key: string;
  wav: Promise<Uint8Array | undefined>;
}

export class SpeechPlayer {
  private context: AudioContext | undefined;
  private gain: GainNode | undefined;
  private readonly queue: Entry[] = [];
  private readonly seen = new Set<string>();
  private current: AudioBufferSourceNode | undefined;
  private running = false;
  private generation = 0;
  private closed = false;

  constructor(private readonly options: SpeechPlayerOptions) {}

  /** True while something is queued or sounding. */
  get busy(): boolean {
    return this.running || this.queue.length > 0;
  }

  /** Queues `text` under `key`; a key already queued once is never spoken again. Synthesis starts now. */
  enqueue(key: string, text: string): void {
    if (this.closed || this.seen.has(key) || text.trim() === '') return;
    this.seen.add(key);
    this.queue.push({ key, wav: this.options.synthesize(text).catch(() => undefined) });
    if (!this.running) void this.run();
  }

  /** Stops what plays and drops the queue (keys already queued stay spoken). */
  flush(): void {
    this.generation += 1;
    this.queue.length = 0;
    this.stopCurrent();
  }

  close(): void {
    this.closed = true;
    this.flush();
    void this.context?.close().catch(() => undefined);
    this.context = undefined;
  }

  private stopCurrent(): void {
    const source = this.current;
    this.current = undefined;
    if (!source) return;
    try {
      source.stop();
    } catch {
      // not started yet
    }
    source.disconnect();
    this.options.onEvent?.({ type: 'silenced', at: performance.now() });
  }

  private audio(): { context: AudioContext; gain: GainNode } | undefined {
    try {
      this.context ??= this.options.createContext?.() ?? new AudioContext();
      if (!this.gain) {
        this.gain = this.context.createGain();
        this.gain.connect(this.context.destination);
      }
      return { context: this.context, gain: this.gain };
    } catch {
      return undefined;
    }
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (let entry = this.queue.shift(); entry; entry = this.queue.shift()) {
        const generation = this.generation;
        const wav = await entry.wav;
        if (generation !== this.generation || this.closed) continue;
        const audio = this.audio();
        if (!wav || !audio) continue;
        let buffer: AudioBuffer;
        try {
          // decodeAudioData takes (and detaches) its own copy.
          buffer = await audio.context.decodeAudioData(wav.slice().buffer);
        } catch {
          continue;
        }
        if (generation !== this.generation || this.closed) continue;
        if (audio.context.state === 'suspended') await audio.context.resume().catch(() => undefined);
        await new Promise<void>((resolve) => {
          const source = audio.context.createBufferSource();
          source.buffer = buffer;
          source.connect(audio.gain);
          source.onended = () => {
            if (this.current === source) {
              this.current = undefined;
              source.disconnect();
            }
            resolve();
          };
          this.current = source;
          source.start();
          this.options.onEvent?.({ type: 'started', key: entry.key, at: performance.now() });
          // A flush stops the source, which ends it (onended); a context that never plays still moves on.
          const check = setInterval(() => {
            if (this.current !== source || this.closed) {
              clearInterval(check);
              resolve();
            }
          }, 50);
          source.addEventListener('ended', () => clearInterval(check));
        });
      }
    } finally {
      this.running = false;
      this.options.onEvent?.({ type: 'idle' });
    }
  }
}
