import { describe, expect, it } from 'vitest';
import { toPcm16 } from '../../../src/renderer/voice/vad';

describe('an utterance as speech.transcribe takes it', () => {
  it('is 16-bit little-endian PCM, clamped to −1..1', () => {
    const bytes = toPcm16(new Float32Array([0, 1, -1, 0.5, 2, -2]));
    const view = new DataView(bytes.buffer);
    expect(Array.from({ length: 6 }, (_, i) => view.getInt16(i * 2, true))).toEqual([0, 32767, -32768, 16384, 32767, -32768]);
    expect(bytes.length).toBe(12);
  });
});
