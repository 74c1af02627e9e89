import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maxUtteranceSeconds } from '../../shared/speech/ipc-schemas';
import { runBounded } from './bounded-process';
import { bytesFromInt16, concatSamples, resample, rms, silence, type Pcm } from './pcm';

/**
 * Debian's pocketsphinx 0.8+5prealpha (`pocketsphinx_continuous`) with its US English model, in two uses:
 * - the demo provider's ears (#16): a small JSGF grammar of the demo's commands, so what it hears is
 *   always one of them (or nothing). English only: a Czech session is still heard with this grammar;
 * - the basic English recognizer of client-owned voice while no model is imported (`languageModel`:
 *   pocketsphinx-en-us's general n-gram model, free speech). Basic: see the measurement in
 *   test/unit/speech/pocketsphinx-stt.test.ts, which prints what it heard.
 * Audio goes in as a 16 kHz raw 16-bit PCM file in a private temporary folder (not stdin: Node gives a
 * child a socket there, which `-infile /dev/stdin` cannot open); each line on stdout is one utterance.
 */
import type { SpeechToText } from './speech-to-text';
export type { SpeechToText };

/**
 * What the demo understands. Measured through Opus on three espeak-ng voices (default, -s 140, en-us+f3;
 * test/unit/speech/pocketsphinx-stt.test.ts): each phrase is heard as itself in 3 of 3, except "yes confirm"
 * (2 of 3: the default voice's "confirm" is not heard, so only "yes" covers too little and the turn is
 * "not understood"). "yes" and "yes send it" are the dependable confirmations.
 */
export const demoPhrases = [
  'search contacts',
  'search contacts for alfa',
  'send the offer',
  'yes',
  'yes confirm',
  'yes send it',
  'no',
  'cancel',
  'hello',
  'stop',
] as const;

export const demoGrammar = [
  '#JSGF V1.0;',
  'grammar agentdesk_demo;',
  'public <command> = search contacts [for <name>] | send the offer | yes [confirm | send it] | no | cancel | hello | stop;',
  '<name> = alfa | bravo | charlie;',
  '',
].join('\n');

export interface PocketsphinxOptions {
  readonly binary?: string;
  /** The acoustic model directory and the pronouncing dictionary (Debian's pocketsphinx-en-us). */
  readonly hmm?: string;
  readonly dict?: string;
  readonly grammar?: string;
  /** An n-gram language model (pocketsphinx-en-us's `en-us.lm.bin`): free speech instead of the grammar. */
  readonly languageModel?: string;
  readonly timeoutMs?: number;
}

/** pocketsphinx-en-us's files in its model folder (Debian: /usr/share/pocketsphinx/model/en-us). */
export function pocketsphinxModelIn(dir: string): { hmm: string; dict: string; lm: string } {
  return { hmm: join(dir, 'en-us'), dict: join(dir, 'cmudict-en-us.dict'), lm: join(dir, 'en-us.lm.bin') };
}

export const pocketsphinxModel = pocketsphinxModelIn('/usr/share/pocketsphinx/model/en-us');
const recognizerRate = 16_000;
/** pocketsphinx's own endpointing wants some quiet around the words. */
const padMs = 250;
/** Utterances longer than `speech.transcribe` takes are cut (the demo's commands take 1–3 s). */
const maxUtteranceMs = maxUtteranceSeconds * 1000;
/**
 * How long a run may take: loading the models, then decoding. Measured with the n-gram model on a loaded
 * 2-core machine: 3.7 s for a 2 s sentence (1.1 s of CPU), 41 s for 30 s of speech (13 s of CPU).
 */
const timeoutFor = (speechMs: number): number => 20_000 + 2 * speechMs;
/**
 * Digital silence (exact zeros) upsets pocketsphinx's noise estimate: measured, espeak-ng's slow
 * "send the offer" came back as "stop" without it. A microphone never gives exact zeros anyway.
 */
const ditherLsb = 8;
/** 10 ms frames at least this loud (RMS, full scale 1) are speech that the words must account for. */
const loudFrame = 0.02;
/**
 * A closed grammar fits any speech to some command ("what is the weather tomorrow" → "no"). Measured on
 * espeak-ng voices: right answers cover ≥ 0.85 of the loud frames with words, out-of-grammar sentences
 * mostly 0.15–0.45. Below this share the utterance counts as not understood.
 */
export const minCoverage = 0.6;

export interface Recognition {
  /** What was decoded, before the coverage check. */
  readonly heard: string;
  /** Share of the loud 10 ms frames that fall inside a recognized word (0–1). */
  readonly coverage: number;
  /** `heard`, or '' when a grammar's words account for too little of the speech (free speech is taken as heard). */
  readonly transcript: string;
}

export interface PocketsphinxStt extends SpeechToText {
  recognize(pcm: Pcm): Promise<Recognition>;
}

/** A fixed pseudo-random ±ditherLsb/2 sequence, so a test hears the same thing every run. */
function dither(samples: Int16Array): Int16Array {
  let state = 0x2545f491;
  return samples.map((sample) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const noise = Math.round(((state >>> 0) / 0x1_0000_0000 - 0.5) * ditherLsb);
    return Math.max(-32768, Math.min(32767, sample + noise));
  });
}

/** `pocketsphinx_continuous -time yes` output: hypothesis lines, then "word start end posterior" lines. */
export function parseSphinxOutput(out: string): { words: string[]; segments: { word: string; start: number; end: number }[] } {
  const words: string[] = [];
  const segments: { word: string; start: number; end: number }[] = [];
  for (const line of out.split('\n')) {
    const fields = line
      .trim()
      .split(/\s+/)
      .filter((field) => field !== '');
    if (fields.length === 0) continue;
    const [word = '', ...numbers] = fields;
    if (fields.length === 4 && numbers.every((field) => /^-?\d+(?:\.\d+)?$/.test(field))) {
      if (!/^[<[(]/.test(word)) segments.push({ word: word.replace(/\(\d+\)$/, ''), start: Number(numbers[0]), end: Number(numbers[1]) });
    } else words.push(...fields);
  }
  return { words, segments };
}

function coverage(audio: Int16Array, segments: readonly { start: number; end: number }[]): number {
  const frame = recognizerRate / 100;
  let loud = 0;
  let covered = 0;
  for (let i = 0; i + frame <= audio.length; i += frame) {
    if (rms(audio, i, i + frame) < loudFrame) continue;
    loud += 1;
    const middle = (i + frame / 2) / recognizerRate;
    if (segments.some((segment) => middle >= segment.start - 0.01 && middle <= segment.end + 0.02)) covered += 1;
  }
  return loud === 0 ? 0 : covered / loud;
}

export function createPocketsphinxStt(options: PocketsphinxOptions = {}): PocketsphinxStt {
  let dir: string | undefined;
  let files = 0;
  const lm = options.languageModel;
  const workDir = (): string => {
    if (!dir) {
      dir = mkdtempSync(join(tmpdir(), 'agentdesk-sphinx-'));
      if (lm === undefined) writeFileSync(join(dir, 'demo.gram'), options.grammar ?? demoGrammar, { mode: 0o600 });
    }
    return dir;
  };
  const recognize = async (pcm: Pcm): Promise<Recognition> => {
    const limit = Math.round((pcm.sampleRate * maxUtteranceMs) / 1000);
    const speech = resample(pcm.samples.subarray(0, limit), pcm.sampleRate, recognizerRate);
    const audio = dither(concatSamples([silence(recognizerRate, padMs), speech, silence(recognizerRate, padMs)]));
    const folder = workDir();
    files += 1;
    const input = join(folder, `utterance-${files}.raw`);
    await writeFile(input, bytesFromInt16(audio), { mode: 0o600 });
    const decoder = lm === undefined ? ['-jsgf', join(folder, 'demo.gram')] : ['-lm', lm];
    const args = ['-infile', input, ...decoder, '-hmm', options.hmm ?? pocketsphinxModel.hmm, '-dict', options.dict ?? pocketsphinxModel.dict];
    try {
      const out = await runBounded(
        options.binary ?? 'pocketsphinx_continuous',
        [...args, '-samprate', String(recognizerRate), '-time', 'yes', '-logfn', '/dev/null'],
        {
          timeoutMs: options.timeoutMs ?? timeoutFor((speech.length / recognizerRate) * 1000),
          maxOutputBytes: 64 * 1024,
        },
      );
      const { words, segments } = parseSphinxOutput(out.toString('utf8'));
      const heard = words.join(' ');
      const share = coverage(audio, segments);
      // The coverage check is the grammar's: free speech decodes every sound to some words anyway.
      return { heard, coverage: share, transcript: lm !== undefined || share >= minCoverage ? heard : '' };
    } finally {
      await rm(input, { force: true });
    }
  };
  return {
    recognize,
    async transcribe(pcm) {
      return (await recognize(pcm)).transcript;
    },
    close() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
