/**
 * Mono 16-bit PCM for the demo voice (#16): WAV in and out, resampling, loudness.
 * espeak-ng speaks 22050 Hz, WebRTC's Opus runs at 48 kHz and pocketsphinx listens at 16 kHz.
 */
export interface Pcm {
  readonly sampleRate: number;
  /** One channel, signed 16-bit. */
  readonly samples: Int16Array;
}

/** Parses a PCM WAV (16-bit, any channel count: mixed down to mono). espeak-ng's `--stdout` writes a
 * data size of 0x7ffff000 (it cannot seek back in a pipe), so the data runs to the end of the bytes. */
export function parseWav(bytes: Uint8Array): Pcm {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset: number): string => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  let format: { channels: number; sampleRate: number; bits: number; audioFormat: number } | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new Error('WAV fmt chunk too short');
      format = {
        audioFormat: view.getUint16(body, true),
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!format) throw new Error('WAV data before fmt');
      if (format.audioFormat !== 1 || format.bits !== 16 || format.channels < 1)
        throw new Error(`unsupported WAV (format ${format.audioFormat}, ${format.bits} bits, ${format.channels} channels)`);
      const end = Math.min(bytes.length, body + size);
      const frames = Math.floor((end - body) / (2 * format.channels));
      const samples = new Int16Array(frames);
      for (let frame = 0; frame < frames; frame += 1) {
        let sum = 0;
        for (let channel = 0; channel < format.channels; channel += 1) sum += view.getInt16(body + (frame * format.channels + channel) * 2, true);
        samples[frame] = Math.round(sum / format.channels);
      }
      return { sampleRate: format.sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV has no data chunk');
}

/** A 44-byte-header mono 16-bit WAV. */
export function wavBytes(pcm: Pcm): Buffer {
  const data = pcm.samples.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVEfmt ', 8, 'latin1');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(pcm.sampleRate, 24);
  out.writeUInt32LE(pcm.sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'latin1');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < pcm.samples.length; i += 1) out.writeInt16LE(pcm.samples[i] ?? 0, 44 + i * 2);
  return out;
}

/** Signed 16-bit little-endian bytes (what opusscript decodes to and pocketsphinx reads raw). */
export function int16FromBytes(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(Math.floor(bytes.length / 2));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i += 1) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

export function bytesFromInt16(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) out.writeInt16LE(samples[i] ?? 0, i * 2);
  return out;
}

/** Root mean square, 0–1 (full scale = 1). */
export function rms(samples: Int16Array, start = 0, end = samples.length): number {
  if (end <= start) return 0;
  let sum = 0;
  for (let i = start; i < end; i += 1) {
    const value = (samples[i] ?? 0) / 32768;
    sum += value * value;
  }
  return Math.sqrt(sum / (end - start));
}

const zeroCrossings = 16;
/** Kernel table points per input sample (linear interpolation between them). */
const tableResolution = 512;
const kernels = new Map<string, { table: Float64Array; half: number }>();

/** The windowed-sinc kernel for one rate pair, tabulated once: the trigonometry would cost ~0.5 s per second of audio. */
function kernel(ratio: number): { table: Float64Array; half: number } {
  const key = ratio.toFixed(9);
  const known = kernels.get(key);
  if (known) return known;
  const cutoff = Math.min(1, ratio) * 0.95; // of the input's Nyquist frequency
  const half = Math.ceil(zeroCrossings / cutoff); // taps each side, in input samples
  const table = new Float64Array(half * tableResolution + 2);
  for (let i = 0; i < table.length; i += 1) {
    const t = i / tableResolution;
    if (t >= half) continue;
    const x = Math.PI * cutoff * t;
    const sinc = x === 0 ? 1 : Math.sin(x) / x;
    const w = t / half;
    table[i] = cutoff * sinc * (0.42 + 0.5 * Math.cos(Math.PI * w) + 0.08 * Math.cos(2 * Math.PI * w));
  }
  const made = { table, half };
  kernels.set(key, made);
  return made;
}

/**
 * Band-limited resampling (Blackman-windowed sinc, 16 zero crossings each side): enough for speech
 * from 22050 Hz up to 48 kHz and from 48 kHz down to 16 kHz without audible aliasing.
 */
export function resample(input: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return input.slice();
  const ratio = to / from;
  const { table, half } = kernel(ratio);
  const output = new Int16Array(Math.floor(input.length * ratio));
  for (let n = 0; n < output.length; n += 1) {
    const center = n / ratio;
    const first = Math.max(0, Math.floor(center) - half + 1);
    const last = Math.min(input.length - 1, Math.floor(center) + half);
    let sum = 0;
    for (let k = first; k <= last; k += 1) {
      const position = Math.abs(center - k) * tableResolution;
      const index = Math.floor(position);
      const fraction = position - index;
      const value = (table[index] ?? 0) * (1 - fraction) + (table[index + 1] ?? 0) * fraction;
      sum += (input[k] ?? 0) * value;
    }
    output[n] = Math.max(-32768, Math.min(32767, Math.round(sum)));
  }
  return output;
}

/** `ms` of silence at `sampleRate`. */
export function silence(sampleRate: number, ms: number): Int16Array {
  return new Int16Array(Math.round((sampleRate * ms) / 1000));
}

export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
