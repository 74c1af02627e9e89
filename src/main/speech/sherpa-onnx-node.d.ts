/** The part of sherpa-onnx-node (1.13.8, no type declarations of its own) that the recognizer process uses. */
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
  const sherpa: { OnlineRecognizer: new (config: object) => OnlineRecognizer; OfflineRecognizer: new (config: object) => OfflineRecognizer };
  export default sherpa;
}
