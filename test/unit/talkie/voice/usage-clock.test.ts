import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addTranscript,
  connectedSeconds,
  emptyTranscriptLog,
  flushTranscripts,
  noteItem,
  remainingSeconds,
  startUsageClock,
  stepUsage,
  type TranscriptLog,
  type UsageClock,
  type UsageEffect,
  type UsageInput,
} from '../../../../src/shared/talkie/voice/usage-clock';

function run(inputs: UsageInput[], from: UsageClock = startUsageClock({ maxSeconds: 900, warnSeconds: 60 })): { clock: UsageClock; effects: UsageEffect[] } {
  let clock = from;
  const effects: UsageEffect[] = [];
  for (const input of inputs) {
    const step = stepUsage(clock, input);
    clock = step.clock;
    effects.push(...step.effects);
  }
  return { clock, effects };
}
const s = (seconds: number) => seconds * 1000;
const ticks = (from: number, to: number): UsageInput[] => Array.from({ length: to - from + 1 }, (_, i) => ({ type: 'tick', now: s(from + i) }));

describe('usage clock (Talkie 1 §10.3)', () => {
  it('rule 21: reports cumulative connected seconds every 30 s', () => {
    const { effects, clock } = run([{ type: 'connected', now: 0 }, ...ticks(1, 65)]);
    expect(effects).toEqual([
      { type: 'report', seconds: 30, final: false },
      { type: 'report', seconds: 60, final: false },
    ]);
    // A stretch without a connection does not count.
    const paused = run([{ type: 'disconnected', now: s(70) }, ...ticks(71, 100), { type: 'connected', now: s(100) }, ...ticks(101, 125)], clock);
    expect(connectedSeconds(paused.clock, s(125))).toBe(95);
    expect(paused.effects).toEqual([{ type: 'report', seconds: 90, final: false }]);
  });

  it('rule 22: one final report at the end, whatever ends the call', () => {
    const { effects, clock } = run([
      { type: 'connected', now: 0 },
      { type: 'end', now: s(125), reason: 'user' },
      { type: 'end', now: s(126), reason: 'error' },
      { type: 'tick', now: s(200) },
    ]);
    expect(effects).toEqual([{ type: 'report', seconds: 125, final: true }]);
    expect(clock.ended).toBe(true);
  });

  it("rule 23: the server's remainingSeconds corrects the countdown", () => {
    const { clock } = run([{ type: 'connected', now: 0 }, ...ticks(1, 30)]);
    expect(remainingSeconds(clock, s(30))).toBe(870);
    const corrected = run([{ type: 'usage.reply', seconds: 30, remainingSeconds: 300 }], clock).clock;
    expect(remainingSeconds(corrected, s(40))).toBe(290);
    // An older answer arriving late does not undo a newer one.
    expect(remainingSeconds(run([{ type: 'usage.reply', seconds: 20, remainingSeconds: 800 }], corrected).clock, s(40))).toBe(290);
  });

  it('rule 24: a warning once at warnSeconds', () => {
    const { effects } = run([{ type: 'connected', now: 0 }, ...ticks(835, 845)]);
    expect(effects.filter((effect) => effect.type === 'warn')).toEqual([{ type: 'warn', remainingSeconds: 60 }]);
  });

  it('rule 25: hang-up at the limit with the reason, then the final report', () => {
    const limit = run([{ type: 'connected', now: 0 }, ...ticks(895, 905)]);
    expect(limit.effects.slice(-2)).toEqual([
      { type: 'hangup', reason: 'time_limit' },
      { type: 'report', seconds: 900, final: true },
    ]);
    const quota = run([{ type: 'connected', now: 0 }, { type: 'usage.reply', seconds: 0, remainingSeconds: 10 }, ...ticks(1, 12)]);
    expect(quota.effects.filter((effect) => effect.type !== 'warn')).toEqual([
      { type: 'hangup', reason: 'quota' },
      { type: 'report', seconds: 10, final: true },
    ]);
  });

  it('property: reported seconds never go down and exactly one final report ends a call', () => {
    const input = fc.oneof(
      fc.record({ type: fc.constantFrom('connected' as const, 'disconnected' as const, 'tick' as const), dt: fc.integer({ min: 0, max: 40_000 }) }),
      fc.record({ type: fc.constant('usage.reply' as const), remaining: fc.integer({ min: 0, max: 900 }) }),
    );
    fc.assert(
      fc.property(fc.array(input, { maxLength: 80 }), (steps) => {
        let now = 0;
        const inputs: UsageInput[] = steps.map((step) => {
          if (step.type === 'usage.reply') return { type: 'usage.reply', seconds: Math.floor(now / 1000), remainingSeconds: step.remaining };
          now += step.dt;
          return { type: step.type, now };
        });
        const { effects } = run([...inputs, { type: 'end', now: now + 1, reason: 'user' }]);
        const reports = effects.filter((effect) => effect.type === 'report');
        const finals = reports.filter((report) => report.final);
        return finals.length === 1 && reports.every((report, i) => i === 0 || report.seconds >= (reports[i - 1]?.seconds ?? 0));
      }),
    );
  });
});

describe('transcripts (rules 19–20)', () => {
  const user = (id: string) => ({ id, type: 'message', role: 'user' });
  const assistant = (id: string) => ({ id, type: 'message', role: 'assistant' });

  it('rule 20: each itemId is posted once per role', () => {
    let log: TranscriptLog = emptyTranscriptLog;
    const first = addTranscript(log, 'user', 'item_1', 'ano');
    log = first.log;
    expect(first.posts).toEqual([{ role: 'user', itemId: 'item_1', text: 'ano' }]);
    expect(addTranscript(log, 'user', 'item_1', 'ano').posts).toEqual([]);
    expect(addTranscript(log, 'assistant', 'item_1', 'Dobře.').posts).toEqual([{ role: 'assistant', itemId: 'item_1', text: 'Dobře.' }]);
  });

  it('rule 19: posted in provider item order (previous_item_id), a late user transcript first', () => {
    let log = noteItem(emptyTranscriptLog, user('u1'), null);
    log = noteItem(log, assistant('a1'), 'u1');
    log = noteItem(log, { id: 'f1', type: 'function_call' }, 'a1');
    const early = addTranscript(log, 'assistant', 'a1', 'Hledám.');
    expect(early.posts).toEqual([]);
    const late = addTranscript(early.log, 'user', 'u1', 'Najdi Alfu.');
    expect(late.posts.map((post) => post.itemId)).toEqual(['u1', 'a1']);
    // An item inserted after a known one keeps its place.
    let spliced = noteItem(emptyTranscriptLog, user('u1'), null);
    spliced = noteItem(spliced, assistant('a2'), 'u1');
    spliced = noteItem(spliced, assistant('a1'), 'u1');
    expect(spliced.items.map((item) => item.id)).toEqual(['u1', 'a1', 'a2']);
  });

  it('a failed transcription stops holding the rest; the end flushes what still waits', () => {
    let log = noteItem(emptyTranscriptLog, user('u1'), null);
    log = noteItem(log, assistant('a1'), 'u1');
    log = noteItem(log, user('u2'), 'a1');
    log = noteItem(log, assistant('a2'), 'u2');
    const held = addTranscript(log, 'assistant', 'a1', 'Ano.');
    expect(addTranscript(held.log, 'user', 'u1', undefined).posts.map((post) => post.itemId)).toEqual(['a1']);
    const waiting = addTranscript(held.log, 'assistant', 'a2', 'Hotovo.');
    expect(waiting.posts).toEqual([]);
    expect(flushTranscripts(waiting.log).posts.map((post) => post.itemId)).toEqual(['a1', 'a2']);
  });
});
