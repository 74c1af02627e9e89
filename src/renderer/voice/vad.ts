/**
 * Voice activity detection for client-owned voice: @ricky0123/vad-web's Silero v5 model in
 * onnxruntime-web (WebAssembly), run on the microphone stream in an AudioWorklet. The model, the
 * worklet and the WebAssembly are the app's own files (vad/ beside the page, copied there by the
 * build: electron.vite.config.ts), never a CDN. The library (with onnxruntime-web) is its own chunk,
 * loaded the first time someone talks, so the first screen does not wait for it.
 */

import { meterLevel } from './microphone-choice';

/** 16 kHz mono: what the detector hands out, and what `speech.transcribe` takes. */
export const vadSampleRate = 16_000;
/** Kept before the detected start so the first word is not cut (complaint 4 of the voice brief). */
export const preRollMs = 400;

export interface VadCallbacks {
  /** Speech began (a real start: long enough not to be a misfire). */
  onSpeechStart(): void;
  /** The utterance, pre-roll included, 16 kHz mono samples in −1..1. */
  onSpeechEnd(audio: Float32Array): void;
  /** Every 32 ms frame (16 kHz), whatever the detector thinks of it: push to talk records these. */
  onFrame?(frame: Float32Array, speech: number): void;
}

export interface Vad {
  /** Stops listening: no frames are processed (mute); what was half heard is dropped. */
  pause(): Promise<void>;
  /** The microphone's level from the latest frame (the call bar's meter, 0..1); 0 while paused. */
  level(): number;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export function vadAssetBase(): string {
  return new URL('vad/', document.baseURI).href;
}

export async function startVad(stream: MediaStream, callbacks: VadCallbacks): Promise<Vad> {
  const base = vadAssetBase();
  const { MicVAD } = await import('@ricky0123/vad-web');
  // The audio graph runs at the detector's own rate: Chromium resamples the microphone once, natively,
  // and the graph renders a third of the quanta it would at 48 kHz. The meter reads the same frames,
  // so listening costs one audio graph, not two.
  const context = new AudioContext({ sampleRate: vadSampleRate });
  let latest = 0;
  try {
    const vad = await MicVAD.new({
      audioContext: context,
      model: 'v5',
      baseAssetPath: base,
      onnxWASMBasePath: base,
      // One thread: the page is not cross-origin isolated, and the detector is small.
      ortConfig: (ort) => {
        ort.env.wasm.numThreads = 1;
      },
      getStream: async () => stream,
      pauseStream: async () => undefined,
      resumeStream: async (same) => same,
      startOnLoad: true,
      processorType: 'AudioWorklet',
      preSpeechPadMs: preRollMs,
      redemptionMs: 600,
      minSpeechMs: 250,
      submitUserSpeechOnPause: false,
      onSpeechRealStart: () => callbacks.onSpeechStart(),
      onSpeechEnd: (audio) => callbacks.onSpeechEnd(audio),
      onFrameProcessed: (probabilities, frame) => {
        latest = meterLevel(frame);
        callbacks.onFrame?.(frame, probabilities.isSpeech);
      },
    });
    return {
      pause: async () => {
        await vad.pause();
        latest = 0;
      },
      start: () => vad.start(),
      level: () => latest,
      destroy: async () => {
        try {
          await vad.destroy();
        } finally {
          await context.close().catch(() => undefined);
        }
      },
    };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/** −1..1 samples as 16-bit little-endian PCM bytes (what `speech.transcribe` takes). */
export function toPcm16(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i += 1) {
    const clamped = Math.max(-1, Math.min(1, samples[i] ?? 0));
    view.setInt16(i * 2, Math.round(clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff), true);
  }
  return bytes;
}
