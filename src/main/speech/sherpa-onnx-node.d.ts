/** The part of sherpa-onnx-node (1.13.8, no type declarations of its own) that the speech engine process uses. */
declare module 'sherpa-onnx-node' {
  interface Waveform {
    samples: Float32Array;
    sampleRate: number;
  }
  interface Stream {
    acceptWaveform(waveform: Waveform): void;
    inputFinished(): void;
  }
  interface Result {
    text: string;
  }
  interface OnlineRecognizer {
    createStream(): Stream;
    isReady(stream: Stream): boolean;
    decode(stream: Stream): void;
    getResult(stream: Stream): Result;
  }
  interface OfflineRecognizer {
    createStream(): Stream;
    decode(stream: Stream): void;
    getResult(stream: Stream): Result;
  }
  interface GeneratedAudio {
    samples: Float32Array;
    sampleRate: number;
  }
  interface OfflineTts {
    readonly sampleRate: number;
    generate(request: { text: string; sid: number; speed: number }): GeneratedAudio;
  }
  const sherpa: {
    OnlineRecognizer: new (config: object) => OnlineRecognizer;
    OfflineRecognizer: new (config: object) => OfflineRecognizer;
    OfflineTts: new (config: object) => OfflineTts;
  };
  export default sherpa;
}
