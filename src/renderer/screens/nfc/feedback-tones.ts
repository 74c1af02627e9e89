/**
 * The scan control's sounds, generated with WebAudio (no audio files): a short rising two-note
 * chirp when a tag was read, and a lower, longer double buzz when a read failed, so the two can
 * be told apart without looking. Where WebAudio is missing (or refuses to start) nothing plays;
 * the visual feedback and the live-region announcement carry the same information.
 */

export type ToneKind = 'success' | 'failure';

interface Note {
  frequency: number;
  /** Seconds after the tone starts. */
  at: number;
  duration: number;
  type: OscillatorType;
}

/** The notes of each tone; exported so tests can tell the two apart by what was played. */
export const toneNotes: Readonly<Record<ToneKind, readonly Note[]>> = {
  success: [
    { frequency: 880, at: 0, duration: 0.08, type: 'sine' },
    { frequency: 1320, at: 0.09, duration: 0.12, type: 'sine' },
  ],
  failure: [
    { frequency: 220, at: 0, duration: 0.15, type: 'square' },
    { frequency: 196, at: 0.2, duration: 0.2, type: 'square' },
  ],
};

const volume = 0.15;

type AudioContextConstructor = new () => AudioContext;

function audioContextConstructor(): AudioContextConstructor | undefined {
  const scope = globalThis as { AudioContext?: AudioContextConstructor; webkitAudioContext?: AudioContextConstructor };
  return scope.AudioContext ?? scope.webkitAudioContext;
}

let context: AudioContext | undefined;

/**
 * Creates (or resumes) the audio context. Call it from a user gesture (the Scan button) so that
 * the browser lets the later tone play; playTone also calls it.
 */
export function prepareTones(): AudioContext | undefined {
  const Constructor = audioContextConstructor();
  if (!Constructor) return undefined;
  try {
    context ??= new Constructor();
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    return context;
  } catch {
    return undefined;
  }
}

export function playTone(kind: ToneKind): void {
  const audio = prepareTones();
  if (!audio) return;
  try {
    const start = audio.currentTime;
    for (const note of toneNotes[kind]) {
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.type = note.type;
      oscillator.frequency.setValueAtTime(note.frequency, start + note.at);
      // A short attack and release, so the notes do not click.
      gain.gain.setValueAtTime(0, start + note.at);
      gain.gain.linearRampToValueAtTime(volume, start + note.at + 0.01);
      gain.gain.linearRampToValueAtTime(0, start + note.at + note.duration);
      oscillator.connect(gain);
      gain.connect(audio.destination);
      oscillator.start(start + note.at);
      oscillator.stop(start + note.at + note.duration + 0.02);
    }
  } catch {
    // Sound is a courtesy: the visual feedback and the announcement already say what happened.
  }
}

/** For tests: forget the audio context so the next tone builds one from the current global. */
export function resetTonesForTests(): void {
  context = undefined;
}
