import { maxSynthesisSamples } from '../../shared/speech/ipc-schemas';
import { mainToEngineSchema, engineProtocolVersion, type MainToEngine, type EngineModel, type EngineToMain } from '../../shared/speech/engine-protocol';

/**
 * A speech engine process's loop (#17), engine-agnostic: it takes `load` once, then one `transcribe`
 * (a recognizer) or `synthesize` (a voice) at a time (main queues), and answers each. The real engine is
 * sherpa-onnx (sherpa-engine.ts); tests run the same loop with a fixture engine.
 */

/** Speech a voice made: mono samples in [-1, 1]. */
export interface SynthesizedSpeech {
  sampleRate: number;
  samples: Float32Array;
}

/** A loaded model: a recognizer transcribes, a voice synthesises. */
export interface LoadedModel {
  /** 16 kHz mono samples in [-1, 1] → the words heard ('' for none). */
  transcribe?(samples: Float32Array): string | Promise<string>;
  /** Text → speech. */
  synthesize?(text: string): SynthesizedSpeech | Promise<SynthesizedSpeech>;
}

/** Loads a model. May throw (a refused config); a corrupt file may end the whole process instead. */
export type ModelLoader = (model: EngineModel) => LoadedModel | Promise<LoadedModel>;

export interface ParentLink {
  send(message: EngineToMain): void;
  onMessage(listener: (message: MainToEngine) => void): void;
}

interface UtilityParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}

/** Electron's utilityProcess parentPort, or a Node child's IPC channel; undefined when started by hand. */
export function parentLink(): ParentLink | undefined {
  const port = (process as unknown as { parentPort?: UtilityParentPort }).parentPort;
  const accept = (listener: (message: MainToEngine) => void) => (raw: unknown) => {
    const checked = mainToEngineSchema.safeParse(raw);
    if (checked.success) listener(checked.data);
  };
  if (port) {
    return {
      send: (message) => port.postMessage(message),
      onMessage: (listener) => port.on('message', (event) => accept(listener)(event.data)),
    };
  }
  if (typeof process.send === 'function') {
    return {
      send: (message) => {
        if (process.connected) process.send!(message);
      },
      onMessage: (listener) => process.on('message', accept(listener)),
    };
  }
  return undefined;
}

/** Float samples → PCM16 little-endian bytes (clipped to [-1, 1]). */
export function pcm16Bytes(samples: Float32Array): Buffer {
  const bytes = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const sample = Math.max(-1, Math.min(1, samples[i]!));
    bytes.writeInt16LE(Math.round(sample < 0 ? sample * 32768 : sample * 32767), i * 2);
  }
  return bytes;
}

/** PCM16 little-endian bytes → float samples. */
export function floatSamples(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Float32Array(Math.floor(bytes.byteLength / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true) / 32768;
  return samples;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/** Runs the loop until main says `shutdown` or goes away. */
export function runEngineWorker(link: ParentLink, engine: ModelLoader): void {
  let loaded: LoadedModel | undefined;
  let loading = false;
  const exit = () => setTimeout(() => process.exit(0), 20).unref();
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
  /** Sends what `work` answers for request `id`, or `failed` with the engine's words: every request is answered. */
  const answer = (id: number, work: () => Promise<EngineToMain>) =>
    void work().then(
      (reply) => link.send(reply),
      (error: unknown) => link.send({ type: 'failed', id, detail: message(error) }),
    );
  link.onMessage((request) => {
    switch (request.type) {
      case 'shutdown':
        exit();
        return;
      case 'load':
        if (loaded || loading) return link.send({ type: 'loadFailed', detail: 'a model is already loaded in this process' });
        loading = true;
        void (async () => {
          try {
            loaded = await engine(request.model);
            link.send({ type: 'loaded' });
          } catch (error) {
            link.send({ type: 'loadFailed', detail: message(error) });
          } finally {
            loading = false;
          }
        })();
        return;
      case 'transcribe':
        answer(request.id, async () => {
          if (!loaded?.transcribe) throw new Error(loaded ? 'this model is a voice: it does not recognise speech' : 'no model is loaded');
          const text = await loaded.transcribe(floatSamples(Buffer.from(request.pcm, 'base64')));
          return { type: 'result', id: request.id, text: text.slice(0, 4000) };
        });
        return;
      case 'synthesize':
        answer(request.id, async () => {
          if (!loaded?.synthesize) throw new Error(loaded ? 'this model recognises speech: it does not speak' : 'no model is loaded');
          const speech = await loaded.synthesize(request.text);
          if (speech.samples.length > maxSynthesisSamples) {
            throw new Error(`the voice made ${Math.round(speech.samples.length / speech.sampleRate)} s of speech, more than one answer may hold`);
          }
          return { type: 'audio', id: request.id, sampleRate: speech.sampleRate, pcm: pcm16Bytes(speech.samples).toString('base64') };
        });
        return;
    }
  });
  link.send({ type: 'hello', version: engineProtocolVersion, pid: process.pid });
}
