/**
 * The demo provider's turn detection (#16): an energy VAD on 48 kHz mono PCM in 20 ms frames.
 * Speech starts after `startMs` of frames louder than `threshold` (RMS, full scale 1) and ends after
 * `silenceMs` below it (the provider's `silence_duration_ms`). The utterance handed to the recognizer
 * keeps `prefixPaddingMs` before the first loud frame (so the first word is not lost) and
 * `hangoverMs` after the last one.
 */
export interface VadSettings {
  readonly sampleRate: number;
  /** RMS of a 20 ms frame that counts as speech. 0.02 ≈ −34 dBFS: espeak-ng's voiced frames are 0.05–0.3, Opus-coded silence ~0. */
  readonly threshold: number;
  readonly startMs: number;
  readonly silenceMs: number;
  readonly prefixPaddingMs: number;
  readonly hangoverMs: number;
  /** A turn longer than this ends anyway. */
  readonly maxUtteranceMs: number;
}

export const defaultVadSettings: VadSettings = {
  sampleRate: 48_000,
  threshold: 0.02,
  startMs: 60,
  silenceMs: 500,
  prefixPaddingMs: 300,
  hangoverMs: 300,
  maxUtteranceMs: 15_000,
};

export type VadEvent =
  | { type: 'speech_started'; /** Start of the first loud frame, from the start of the stream. */ audioStartMs: number }
  | { type: 'speech_stopped'; /** End of the last loud frame. */ audioEndMs: number; /** Prefix padding + speech + hangover. */ audio: Int16Array };

const frameMs = 20;

export class EnergyVad {
  private settings: VadSettings;
  private readonly frameSamples: number;
  private pending: number[] = [];
  private frameIndex = 0;
  /** Recent frames while quiet (for the prefix padding). */
  private history: Int16Array[] = [];
  private loudRun = 0;
  private utterance: Int16Array[] | undefined;
  /** Frame indexes (from the start of the stream) of the utterance's first frame and its last loud one. */
  private utteranceStart = 0;
  private lastLoudFrame = 0;

  constructor(settings: Partial<VadSettings> = {}) {
    this.settings = { ...defaultVadSettings, ...settings };
    this.frameSamples = Math.round((this.settings.sampleRate * frameMs) / 1000);
  }

  get speaking(): boolean {
    return this.utterance !== undefined;
  }

  /** Milliseconds of audio seen so far. */
  get positionMs(): number {
    return this.frameIndex * frameMs;
  }

  configure(settings: Partial<Pick<VadSettings, 'silenceMs' | 'prefixPaddingMs' | 'threshold'>>): void {
    this.settings = { ...this.settings, ...settings };
  }

  push(samples: Int16Array): VadEvent[] {
    const events: VadEvent[] = [];
    for (const sample of samples) {
      this.pending.push(sample);
      if (this.pending.length === this.frameSamples) {
        const frame = Int16Array.from(this.pending);
        this.pending = [];
        const event = this.frame(frame);
        if (event) events.push(event);
      }
    }
    return events;
  }

  /** Ends an open utterance now (audio stopped arriving). */
  flush(): VadEvent[] {
    return this.utterance ? [this.stop()] : [];
  }

  /** Drops buffered audio and any open utterance (`input_audio_buffer.clear`, mute). */
  reset(): void {
    this.pending = [];
    this.history = [];
    this.loudRun = 0;
    this.utterance = undefined;
  }

  private frame(frame: Int16Array): VadEvent | undefined {
    const index = this.frameIndex;
    this.frameIndex += 1;
    let sum = 0;
    for (const sample of frame) sum += (sample / 32768) ** 2;
    const loud = Math.sqrt(sum / frame.length) >= this.settings.threshold;
    const { startMs, silenceMs, prefixPaddingMs, maxUtteranceMs } = this.settings;

    if (this.utterance) {
      this.utterance.push(frame);
      if (loud) this.lastLoudFrame = index;
      const quietMs = (index - this.lastLoudFrame) * frameMs;
      return quietMs >= silenceMs || this.utterance.length * frameMs >= maxUtteranceMs ? this.stop() : undefined;
    }

    this.history.push(frame);
    this.loudRun = loud ? this.loudRun + 1 : 0;
    const keep = Math.ceil(prefixPaddingMs / frameMs) + Math.ceil(startMs / frameMs);
    if (this.history.length > keep) this.history.splice(0, this.history.length - keep);
    if (this.loudRun * frameMs < startMs) return undefined;
    const firstLoud = index - this.loudRun + 1;
    const prefixFrames = Math.ceil(prefixPaddingMs / frameMs);
    this.utterance = this.history.slice(-(this.loudRun + prefixFrames));
    this.history = [];
    this.loudRun = 0;
    this.lastLoudFrame = index;
    this.utteranceStart = index - this.utterance.length + 1;
    return { type: 'speech_started', audioStartMs: firstLoud * frameMs };
  }

  private stop(): VadEvent {
    const frames = this.utterance ?? [];
    this.utterance = undefined;
    const hangoverFrames = Math.ceil(this.settings.hangoverMs / frameMs);
    const keep = Math.min(frames.length, this.lastLoudFrame - this.utteranceStart + 1 + hangoverFrames);
    const audio = new Int16Array(keep * this.frameSamples);
    frames.slice(0, keep).forEach((frame, i) => audio.set(frame, i * this.frameSamples));
    return { type: 'speech_stopped', audioEndMs: (this.lastLoudFrame + 1) * frameMs, audio };
  }
}
