import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpeechPlayer } from '../../../src/renderer/voice/speech-player';

/**
 * The one playback path of client-owned voice against a recording AudioContext: texts play in the
 * order queued, each key once, one at a time; flush stops what sounds and drops the queue.
 */

class FakeSource {
  buffer: { text: string } | undefined;
  onended: (() => void) | null = null;
  private readonly listeners: (() => void)[] = [];
  constructor(private readonly log: string[]) {}
  connect() {}
  disconnect() {}
  addEventListener(_type: 'ended', listener: () => void) {
    this.listeners.push(listener);
  }
  start() {
    this.log.push(`start ${this.buffer?.text ?? '?'}`);
    FakeContext.playing = this;
  }
  stop() {
    this.log.push(`stop ${this.buffer?.text ?? '?'}`);
    this.end();
  }
  end() {
    if (FakeContext.playing === this) FakeContext.playing = undefined;
    this.onended?.();
    for (const listener of this.listeners) listener();
  }
}

class FakeContext {
  static playing: FakeSource | undefined;
  state = 'running';
  destination = {};
  constructor(readonly log: string[]) {}
  createGain() {
    return { connect() {}, gain: { value: 1 } };
  }
  createBufferSource() {
    return new FakeSource(this.log);
  }
  async decodeAudioData(buffer: ArrayBuffer) {
    return { text: new TextDecoder().decode(buffer) };
  }
  async resume() {}
  async close() {}
}

afterEach(() => {
  FakeContext.playing = undefined;
});

function player(log: string[], synthesized: string[] = []) {
  return new SpeechPlayer({
    synthesize: async (text) => {
      synthesized.push(text);
      return new TextEncoder().encode(text);
    },
    createContext: () => new FakeContext(log) as unknown as AudioContext,
  });
}

const playingText = () => FakeContext.playing?.buffer?.text;

describe('the speech player', () => {
  it('plays queued texts in order, one at a time, each key once', async () => {
    const log: string[] = [];
    const synthesized: string[] = [];
    const speech = player(log, synthesized);
    speech.enqueue('s1', 'one');
    speech.enqueue('s2', 'two');
    speech.enqueue('s1', 'one again');
    await vi.waitFor(() => expect(playingText()).toBe('one'));
    expect(log).toEqual(['start one']);
    FakeContext.playing!.end();
    await vi.waitFor(() => expect(playingText()).toBe('two'));
    FakeContext.playing!.end();
    await vi.waitFor(() => expect(speech.busy).toBe(false));
    expect(log).toEqual(['start one', 'start two']);
    // Synthesis starts as each text is queued (not after the one before has played); a repeated key is not asked for.
    expect(synthesized).toEqual(['one', 'two']);
  });

  it('flush stops what sounds and drops the queue; later texts play again', async () => {
    const log: string[] = [];
    const speech = player(log);
    speech.enqueue('a', 'first');
    speech.enqueue('b', 'second');
    await vi.waitFor(() => expect(playingText()).toBe('first'));
    speech.flush();
    await vi.waitFor(() => expect(speech.busy).toBe(false));
    expect(log).toEqual(['start first', 'stop first']);
    speech.enqueue('b', 'second');
    speech.enqueue('c', 'third');
    await vi.waitFor(() => expect(playingText()).toBe('third'));
    expect(log).toEqual(['start first', 'stop first', 'start third']);
  });
});
