import type { Page } from 'playwright-core';
import { espeak48k } from '../../support/speech';

/**
 * A page's voice side for tests and benchmarks in Chromium: a microphone the test speaks espeak-ng
 * sentences into (Chromium's own fake device only beeps), the page's inbound audio energy, and marks
 * of what the voice screen did when (for bench/voice-page.ts).
 */

/** Before the page loads: a microphone the test speaks into, and a list of the page's peer connections. */
export async function installTestMicrophone(page: Page): Promise<void> {
  await keepNamesShim(page);
  await page.addInitScript(() => {
    const scope = window as unknown as {
      __say(samples: number[]): Promise<void>;
      __inboundAudioEnergy(): Promise<number>;
    };
    let context: AudioContext | undefined;
    let destination: MediaStreamAudioDestinationNode | undefined;
    const microphone = () => {
      context ??= new AudioContext({ sampleRate: 48_000 });
      destination ??= context.createMediaStreamDestination();
      return { context, destination };
    };
    const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
    navigator.mediaDevices.getUserMedia = async (constraints?: MediaStreamConstraints) => {
      if (!constraints?.audio || constraints.video) return original(constraints);
      const { context: audio, destination: out } = microphone();
      await audio.resume();
      return new MediaStream(out.stream.getAudioTracks().map((track) => track.clone()));
    };
    scope.__say = (samples) => {
      const { context: audio, destination: out } = microphone();
      const buffer = audio.createBuffer(1, samples.length, 48_000);
      buffer.getChannelData(0).set(samples);
      const source = audio.createBufferSource();
      source.buffer = buffer;
      source.connect(out);
      return new Promise<void>((resolve) => {
        source.onended = () => resolve();
        source.start();
      });
    };
    const peers: RTCPeerConnection[] = [];
    const Original = window.RTCPeerConnection;
    window.RTCPeerConnection = class extends Original {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        peers.push(this);
      }
    };
    scope.__inboundAudioEnergy = async () => {
      let energy = 0;
      for (const peer of peers) {
        (await peer.getStats()).forEach((report: { type?: string; kind?: string; totalAudioEnergy?: number }) => {
          if (report.type === 'inbound-rtp' && report.kind === 'audio') energy += report.totalAudioEnergy ?? 0;
        });
      }
      return energy;
    };
  });
}

/** Settings → Speech → Interrupt the agent by speaking: chooses `choice` (saved by main), `check`s the page there (axe), then goes back. */
export async function chooseBargeIn(page: Page, choice: 'Automatic' | 'On' | 'Off', check?: () => Promise<void>): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const group = page.getByRole('group', { name: 'Interrupt the agent by speaking' });
  await group.getByRole('radio', { name: choice, exact: true }).check();
  await page.getByRole('group', { name: 'Speech' }).getByText('Saved', { exact: true }).waitFor();
  await check?.();
  await page.getByRole('button', { name: 'Back' }).first().click();
}

const spoken = new Map<string, number[]>();
export async function say(page: Page, text: string): Promise<void> {
  let samples = spoken.get(text);
  if (!samples) {
    samples = Array.from(await espeak48k(text), (value) => value / 32768);
    spoken.set(text, samples);
  }
  await page.evaluate((values) => (window as unknown as { __say(samples: number[]): Promise<void> }).__say(values), samples);
}

/**
 * The loudest level (RMS, 0..1) an AnalyserNode measures over `ms` on what the page plays: every
 * <audio> element's stream (a call's remote voice). Chromium feeds Web Audio from a remote track only
 * while an element plays it, as the app's does.
 */
export const playbackLevel = (page: Page, ms: number) =>
  page.evaluate(async (duration) => {
    const context = new AudioContext();
    await context.resume();
    const analysers = [...document.querySelectorAll('audio')]
      .map((element) => element.srcObject)
      .filter((stream): stream is MediaStream => stream instanceof MediaStream && stream.getAudioTracks().length > 0)
      .map((stream) => {
        const analyser = context.createAnalyser();
        analyser.fftSize = 2048;
        context.createMediaStreamSource(stream).connect(analyser);
        return analyser;
      });
    const samples = new Float32Array(2048);
    let loudest = 0;
    const end = performance.now() + duration;
    while (performance.now() < end) {
      for (const analyser of analysers) {
        analyser.getFloatTimeDomainData(samples);
        let sum = 0;
        for (const sample of samples) sum += sample * sample;
        loudest = Math.max(loudest, Math.sqrt(sum / samples.length));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await context.close();
    return loudest;
  }, ms);

/**
 * Before the page loads: an analyser on everything the page's Web Audio contexts send to their
 * speakers (client-owned voice plays through Web Audio, not an element), read by `outputLevel`.
 */
export async function installOutputMeter(page: Page): Promise<void> {
  await keepNamesShim(page);
  await page.addInitScript(() => {
    const taps = new Map<BaseAudioContext, AnalyserNode>();
    const connect = AudioNode.prototype.connect as (this: AudioNode, ...args: unknown[]) => unknown;
    AudioNode.prototype.connect = function (this: AudioNode, ...args: unknown[]) {
      const target = args[0];
      if (target instanceof AudioDestinationNode) {
        let tap = taps.get(this.context);
        if (!tap) {
          tap = this.context.createAnalyser();
          tap.fftSize = 2048;
          taps.set(this.context, tap);
        }
        connect.call(this, tap);
      }
      return connect.apply(this, args);
    } as AudioNode['connect'];
    const samples = new Float32Array(2048);
    // A closed context's analyser keeps its last frame for ever: what it says is no longer played.
    const live = () => [...taps.values()].filter((tap) => tap.context.state !== 'closed');
    (window as unknown as { __outputLevel(): number }).__outputLevel = () => {
      let loudest = 0;
      for (const tap of live()) {
        tap.getFloatTimeDomainData(samples);
        let sum = 0;
        for (const sample of samples) sum += sample * sample;
        loudest = Math.max(loudest, Math.sqrt(sum / samples.length));
      }
      return loudest;
    };
    // The frequency of the strongest bin of the loudest output now (Hz), or 0 while it is silent.
    const spectrum = new Float32Array(1024);
    (window as unknown as { __outputPitch(): number }).__outputPitch = () => {
      let best = { level: -Infinity, hz: 0 };
      for (const tap of live()) {
        tap.getFloatFrequencyData(spectrum);
        spectrum.forEach((level, bin) => {
          if (level > best.level) best = { level, hz: (bin * tap.context.sampleRate) / tap.fftSize };
        });
      }
      return best.level > -60 ? best.hz : 0;
    };
  });
}

/** The strongest frequencies (Hz) the page's Web Audio output plays over `ms`, one per sample while it sounds. */
export async function outputPitches(page: Page, ms: number): Promise<number[]> {
  const pitches: number[] = [];
  const end = Date.now() + ms;
  do {
    const hz = await page.evaluate(() => (window as unknown as { __outputPitch(): number }).__outputPitch());
    if (hz > 0) pitches.push(hz);
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (Date.now() < end);
  return pitches;
}

/** The loudest RMS level the page's Web Audio output reaches over `ms`. */
export async function outputLevel(page: Page, ms: number): Promise<number> {
  let loudest = 0;
  const end = Date.now() + ms;
  do {
    loudest = Math.max(loudest, await page.evaluate(() => (window as unknown as { __outputLevel(): number }).__outputLevel()));
    await new Promise((resolve) => setTimeout(resolve, 25));
  } while (Date.now() < end);
  return loudest;
}

export const inboundEnergy = (page: Page) => page.evaluate(() => (window as unknown as { __inboundAudioEnergy(): Promise<number> }).__inboundAudioEnergy());

/** One thing the page did, at `performance.now()` time in the page. */
export interface VoiceMark {
  what: string;
  at: number;
  text?: string;
}

/**
 * Before the page loads: marks of each provider event arriving on a data channel (its event's
 * timeStamp, so queueing in the page counts), of the audio element being muted (barge-in), and of
 * the page sending a `talkie.voiceDecide` call to main (the web shell's IPC socket).
 */
export async function installVoiceMarks(page: Page): Promise<void> {
  await keepNamesShim(page);
  await page.addInitScript(() => {
    const marks: { what: string; at: number; text?: string }[] = [];
    (window as unknown as { __voiceMarks(): unknown[] }).__voiceMarks = () => marks.splice(0);
    const createDataChannel = RTCPeerConnection.prototype.createDataChannel;
    RTCPeerConnection.prototype.createDataChannel = function (this: RTCPeerConnection, ...args: Parameters<RTCPeerConnection['createDataChannel']>) {
      const channel = createDataChannel.apply(this, args);
      channel.addEventListener('message', (event: MessageEvent) => {
        try {
          const parsed = JSON.parse(String(event.data)) as { type?: string; transcript?: string };
          marks.push({ what: `dc:${String(parsed.type)}`, at: event.timeStamp, ...(typeof parsed.transcript === 'string' ? { text: parsed.transcript } : {}) });
        } catch {
          // not JSON: not a provider event
        }
      });
      return channel;
    };
    const muted = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'muted')!;
    Object.defineProperty(HTMLMediaElement.prototype, 'muted', {
      configurable: true,
      get(this: HTMLMediaElement) {
        return muted.get!.call(this) as boolean;
      },
      set(this: HTMLMediaElement, value: boolean) {
        if (value && !(muted.get!.call(this) as boolean)) marks.push({ what: 'muted', at: performance.now() });
        muted.set!.call(this, value);
      },
    });
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
      if (typeof data === 'string' && data.includes('"agentdesk:talkie.voiceDecide"')) marks.push({ what: 'ipc:talkie.voiceDecide', at: performance.now() });
      return send.call(this, data);
    };
  });
}

/**
 * Before the page loads, for client-owned AgentCall voice: marks of a `speech.segment` arriving from
 * main (the web shell's IPC frame, its event's timeStamp), of Web Audio buffer sources starting and
 * stopping (the one playback path), and of the detector hearing speech begin (the app's
 * `agentdesk:vad-speech-start` performance mark).
 */
export async function installClientVoiceMarks(page: Page): Promise<void> {
  await keepNamesShim(page);
  await page.addInitScript(() => {
    const marks: { what: string; at: number }[] = [];
    (window as unknown as { __clientVoiceMarks(): unknown[] }).__clientVoiceMarks = () => marks.splice(0);
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        this.addEventListener('message', (event: MessageEvent) => {
          if (typeof event.data === 'string' && event.data.includes('agentcall.update') && event.data.includes('speech.segment'))
            marks.push({ what: 'segment', at: event.timeStamp });
        });
      }
    };
    const start = AudioBufferSourceNode.prototype.start;
    AudioBufferSourceNode.prototype.start = function (this: AudioBufferSourceNode, ...args: Parameters<AudioBufferSourceNode['start']>) {
      marks.push({ what: 'audio:start', at: performance.now() });
      return start.apply(this, args);
    };
    const stop = AudioBufferSourceNode.prototype.stop;
    AudioBufferSourceNode.prototype.stop = function (this: AudioBufferSourceNode, ...args: Parameters<AudioBufferSourceNode['stop']>) {
      marks.push({ what: 'audio:stop', at: performance.now() });
      return stop.apply(this, args);
    };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === 'agentdesk:vad-speech-start') marks.push({ what: 'vad:speech-start', at: entry.startTime });
    }).observe({ type: 'mark' });
  });
}

export const takeClientVoiceMarks = (page: Page) =>
  page.evaluate(() => (window as unknown as { __clientVoiceMarks(): { what: string; at: number }[] }).__clientVoiceMarks());

/** The marks since the last call. */
export const takeVoiceMarks = (page: Page) =>
  page.evaluate(() => (window as unknown as { __voiceMarks(): { what: string; at: number; text?: string }[] }).__voiceMarks());

/**
 * Run by tsx (the benchmarks), these init scripts are compiled by esbuild with keepNames, which wraps
 * named functions in `__name(...)` calls: the page gets the helper too (vitest does not need it).
 */
async function keepNamesShim(page: Page): Promise<void> {
  await page.addInitScript({ content: 'globalThis.__name ??= (target) => target;' });
}
