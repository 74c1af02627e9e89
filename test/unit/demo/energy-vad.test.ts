import { describe, expect, it } from 'vitest';
import { EnergyVad, type VadEvent } from '../../../src/main/demo/voice/energy-vad';
import { concatSamples, rms, silence } from '../../../src/main/speech/pcm';
import { espeak48k, speechUnavailableReason } from '../../support/speech';

/** The demo provider's energy VAD (#16) on espeak-ng speech padded with silence, fed in 20 ms packets. */
const unavailable = speechUnavailableReason(['espeak-ng']);
if (unavailable) console.log(`energy VAD tests with real speech skipped: ${unavailable}`);

const rate = 48_000;
const msOf = (samples: Int16Array): number => (samples.length / rate) * 1000;

function feed(vad: EnergyVad, audio: Int16Array): VadEvent[] {
  const events: VadEvent[] = [];
  for (let i = 0; i < audio.length; i += 960) events.push(...vad.push(audio.subarray(i, i + 960)));
  return events;
}

/** Where the speech really is: first and last 20 ms frame above −40 dBFS. */
function speechSpan(audio: Int16Array): { startMs: number; endMs: number } {
  const frames: number[] = [];
  for (let i = 0; i + 960 <= audio.length; i += 960) if (rms(audio, i, i + 960) > 0.01) frames.push(i / 960);
  return { startMs: (frames[0] ?? 0) * 20, endMs: ((frames.at(-1) ?? 0) + 1) * 20 };
}

describe('energy VAD (synthetic)', () => {
  it('stays quiet on silence and low noise, and does not start on a 40 ms click', () => {
    const vad = new EnergyVad();
    const noise = Int16Array.from({ length: rate }, () => Math.round((Math.random() - 0.5) * 2 * 0.005 * 32767));
    const click = Int16Array.from({ length: 1920 }, (_, i) => Math.round(0.5 * 32767 * Math.sin(i / 3)));
    expect(feed(vad, concatSamples([silence(rate, 500), noise, click, silence(rate, 800)]))).toEqual([]);
    expect(vad.speaking).toBe(false);
  });

  it('flush ends a turn whose audio stopped arriving; reset drops it', () => {
    const tone = Int16Array.from({ length: rate / 2 }, (_, i) => Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 300 * i) / rate)));
    const vad = new EnergyVad();
    expect(feed(vad, tone).map((event) => event.type)).toEqual(['speech_started']);
    const [stopped] = vad.flush();
    expect(stopped?.type).toBe('speech_stopped');
    expect(vad.flush()).toEqual([]);
    feed(vad, tone);
    vad.reset();
    expect(vad.speaking).toBe(false);
    expect(vad.flush()).toEqual([]);
  });
});

describe.skipIf(unavailable !== undefined)('energy VAD on espeak-ng speech', { timeout: 30_000 }, () => {
  it('finds the start and end of an utterance padded with silence, with the prefix padding and hangover', async () => {
    const speech = await espeak48k('send the offer');
    const padded = concatSamples([silence(rate, 1000), speech, silence(rate, 1200)]);
    const truth = speechSpan(padded);
    const events = feed(new EnergyVad(), padded);
    expect(events.map((event) => event.type)).toEqual(['speech_started', 'speech_stopped']);
    const [started, stopped] = events;
    if (started?.type !== 'speech_started' || stopped?.type !== 'speech_stopped') throw new Error('unexpected events');
    console.log(
      `VAD: speech ${truth.startMs}–${truth.endMs} ms; started at ${started.audioStartMs} ms, stopped at ${stopped.audioEndMs} ms, utterance ${msOf(stopped.audio)} ms`,
    );
    expect(Math.abs(started.audioStartMs - truth.startMs)).toBeLessThanOrEqual(60);
    expect(Math.abs(stopped.audioEndMs - truth.endMs)).toBeLessThanOrEqual(100);
    // 300 ms before the first loud frame + the speech + 300 ms hangover.
    expect(msOf(stopped.audio)).toBeGreaterThanOrEqual(truth.endMs - truth.startMs + 500);
    expect(msOf(stopped.audio)).toBeLessThanOrEqual(truth.endMs - truth.startMs + 700);
    expect(rms(stopped.audio, 0, 960 * 10)).toBeLessThan(0.01); // the prefix is the quiet before the first word
  });

  it('keeps one turn across the pauses between words and splits turns a second apart; silence_duration is configurable', async () => {
    const first = await espeak48k('search contacts, for alfa');
    const second = await espeak48k('yes');
    const audio = concatSamples([silence(rate, 400), first, silence(rate, 1000), second, silence(rate, 800)]);
    expect(feed(new EnergyVad(), audio).map((event) => event.type)).toEqual(['speech_started', 'speech_stopped', 'speech_started', 'speech_stopped']);
    // With a 1.5 s silence_duration the two are one turn.
    const patient = new EnergyVad();
    patient.configure({ silenceMs: 1500 });
    expect(feed(patient, concatSamples([audio, silence(rate, 1000)])).map((event) => event.type)).toEqual(['speech_started', 'speech_stopped']);
  });
});
