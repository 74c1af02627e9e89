/**
 * The microphone chosen for calls (Talkie and AgentCall share it), remembered in this page's storage:
 * device ids are per origin and mean nothing elsewhere.
 */
export const microphoneStorageKey = 'agentdesk.voice.microphoneDeviceId';

export function remembered(key: string): string | undefined {
  try {
    return localStorage.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}

export function remember(key: string, value: string | undefined): void {
  try {
    if (value) localStorage.setItem(key, value);
    else localStorage.removeItem(key);
  } catch {
    // Storage blocked: the choice lasts until the window closes.
  }
}

/** The meter's reading of some samples in −1..1: their RMS, scaled so speech reaches most of the meter. */
export function meterLevel(samples: Float32Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return samples.length === 0 ? 0 : Math.min(1, Math.sqrt(sum / samples.length) * 4);
}

/** A level meter on a microphone stream (Web Audio), read as 0..1; nothing where Web Audio is missing. */
export class LevelMeter {
  private context: AudioContext | undefined;
  private source: MediaStreamAudioSourceNode | undefined;
  private analyser: AnalyserNode | undefined;
  private readonly samples = new Float32Array(1024);

  /** Meters `stream` from now on (a switched microphone replaces the one before). */
  attach(stream: MediaStream): void {
    const Context = typeof window === 'undefined' ? undefined : window.AudioContext;
    if (!Context) return;
    try {
      this.source?.disconnect();
      const context = (this.context ??= new Context());
      const source = context.createMediaStreamSource(stream);
      const analyser = context.createAnalyser();
      analyser.fftSize = 1024;
      source.connect(analyser);
      this.source = source;
      this.analyser = analyser;
    } catch {
      // No meter: the call works without it.
    }
  }

  /** The RMS level, scaled so speech reaches most of the meter. */
  read(): number {
    const analyser = this.analyser;
    if (!analyser) return 0;
    analyser.getFloatTimeDomainData(this.samples);
    return meterLevel(this.samples);
  }

  close(): void {
    this.source?.disconnect();
    this.source = undefined;
    this.analyser = undefined;
    void this.context?.close().catch(() => undefined);
    this.context = undefined;
  }
}
