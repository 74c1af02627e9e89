/**
 * Talkie 1 §10.3 (brief rules 19–25), pure: the usage clock and the transcript log of one voice call.
 * Time comes in as `now` (milliseconds, monotonic); the caller runs the timers and performs the effects.
 */
export const usageReportEverySeconds = 30;

export interface UsageClock {
  maxSeconds: number;
  warnSeconds: number;
  /** Connected milliseconds before the current connected stretch. */
  connectedMs: number;
  /** Start of the current connected stretch, when connected. */
  since?: number;
  /** Seconds sent in the last periodic report. */
  reportedSeconds: number;
  /** The server's `remainingSeconds` and the connected seconds it answered for (rule 23). */
  server?: { remainingSeconds: number; atSeconds: number };
  warned: boolean;
  ended: boolean;
}

export type HangupReason = 'time_limit' | 'quota' | 'user' | 'error';

export type UsageInput =
  | { type: 'connected'; now: number }
  | { type: 'disconnected'; now: number }
  | { type: 'tick'; now: number }
  /** A `POST voiceUsage` answer to the report of `seconds`. */
  | { type: 'usage.reply'; seconds: number; remainingSeconds: number }
  /** The call ends for another reason (the user hung up, an error, the app quits). */
  | { type: 'end'; now: number; reason: Exclude<HangupReason, 'time_limit' | 'quota'> };

export type UsageEffect =
  | { type: 'report'; seconds: number; final: boolean }
  | { type: 'warn'; remainingSeconds: number }
  /** Close the peer connection and the data channel, and say why the call ended (rule 25). */
  | { type: 'hangup'; reason: HangupReason };

export function startUsageClock(session: { maxSeconds: number; warnSeconds: number }): UsageClock {
  return { maxSeconds: session.maxSeconds, warnSeconds: session.warnSeconds, connectedMs: 0, reportedSeconds: 0, warned: false, ended: false };
}

/** Rule 21: cumulative connected seconds. */
export function connectedSeconds(clock: UsageClock, now: number): number {
  const running = clock.since === undefined ? 0 : Math.max(0, now - clock.since);
  return Math.floor((clock.connectedMs + running) / 1000);
}

/** Rule 23: the countdown, corrected by the server's last `remainingSeconds` (whichever ends sooner). */
export function remainingSeconds(clock: UsageClock, now: number): number {
  const used = connectedSeconds(clock, now);
  const local = clock.maxSeconds - used;
  const server = clock.server ? clock.server.remainingSeconds - (used - clock.server.atSeconds) : local;
  return Math.max(0, Math.min(local, server));
}

export function stepUsage(clock: UsageClock, input: UsageInput): { clock: UsageClock; effects: UsageEffect[] } {
  if (clock.ended) return { clock, effects: [] };
  switch (input.type) {
    case 'connected':
      return { clock: clock.since === undefined ? { ...clock, since: input.now } : clock, effects: [] };
    case 'disconnected':
      return { clock: stop(clock, input.now), effects: [] };
    case 'usage.reply': {
      // An older answer than the one kept never overrides it.
      if (clock.server && input.seconds < clock.server.atSeconds) return { clock, effects: [] };
      return { clock: { ...clock, server: { remainingSeconds: input.remainingSeconds, atSeconds: input.seconds } }, effects: [] };
    }
    case 'end':
      return finish(clock, input.now, input.reason);
    case 'tick': {
      const used = connectedSeconds(clock, input.now);
      const remaining = remainingSeconds(clock, input.now);
      // Rule 25: the limit hangs up (the session's maxSeconds, or the server's remaining quota).
      if (remaining <= 0) return finish(clock, input.now, used >= clock.maxSeconds ? 'time_limit' : 'quota');
      const effects: UsageEffect[] = [];
      let next = clock;
      if (used >= clock.reportedSeconds + usageReportEverySeconds) {
        effects.push({ type: 'report', seconds: used, final: false });
        next = { ...next, reportedSeconds: used };
      }
      // Rule 24: warn once.
      if (!next.warned && remaining <= clock.warnSeconds) {
        effects.push({ type: 'warn', remainingSeconds: remaining });
        next = { ...next, warned: true };
      }
      return { clock: next, effects };
    }
  }
}

function stop(clock: UsageClock, now: number): UsageClock {
  if (clock.since === undefined) return clock;
  const { since, ...rest } = clock;
  return { ...rest, connectedMs: clock.connectedMs + Math.max(0, now - since) };
}

/** Rule 22: one final report, whatever ended the call. */
function finish(clock: UsageClock, now: number, reason: HangupReason): { clock: UsageClock; effects: UsageEffect[] } {
  const stopped = stop(clock, now);
  const seconds = connectedSeconds(stopped, now);
  const hangup: UsageEffect[] = reason === 'time_limit' || reason === 'quota' ? [{ type: 'hangup', reason }] : [];
  return { clock: { ...stopped, ended: true }, effects: [...hangup, { type: 'report', seconds, final: true }] };
}

// ---- transcripts (rules 19–20) ----------------------------------------------------------------

export type TranscriptRole = 'user' | 'assistant';
export interface TranscriptPost {
  role: TranscriptRole;
  itemId: string;
  text: string;
}

/**
 * Each final transcript is posted once per (role, itemId), in the provider's item order
 * (`previous_item_id`): a transcript waits while an earlier message item still expects one
 * (user transcription often finishes after the assistant's reply), up to `maxHeld` posts;
 * `flushTranscripts` releases the rest when the call ends.
 */
export interface TranscriptLog {
  /** Item ids in conversation order, with whether each still expects a transcript. */
  items: readonly { id: string; expects: boolean }[];
  ready: readonly TranscriptPost[];
  posted: readonly string[];
}

export const emptyTranscriptLog: TranscriptLog = { items: [], ready: [], posted: [] };
const maxTracked = 500;
/** A transcription that never comes (none configured, lost event) holds back at most this many posts. */
const maxHeld = 4;
const key = (role: TranscriptRole, itemId: string): string => `${role}:${itemId}`;

/** `conversation.item.added`: place the item after `previousItemId` (null: first; unknown: last). */
export function noteItem(log: TranscriptLog, item: { id: string; type: string; role?: string }, previousItemId: string | null | undefined): TranscriptLog {
  if (log.items.some((known) => known.id === item.id)) return log;
  const expects = item.type === 'message' && (item.role === 'user' || item.role === 'assistant');
  const at = previousItemId === null ? 0 : previousItemId === undefined ? -1 : log.items.findIndex((known) => known.id === previousItemId);
  const index = previousItemId === null ? 0 : at === -1 ? log.items.length : at + 1;
  const items = [...log.items.slice(0, index), { id: item.id, expects }, ...log.items.slice(index)].slice(-maxTracked);
  return { ...log, items };
}

/** A final transcript (or a failed transcription: `text` undefined) → the posts now due, in order. */
export function addTranscript(
  log: TranscriptLog,
  role: TranscriptRole,
  itemId: string,
  text: string | undefined,
): { log: TranscriptLog; posts: TranscriptPost[] } {
  const items = log.items.map((item) => (item.id === itemId ? { ...item, expects: false } : item));
  const duplicate = log.posted.includes(key(role, itemId)) || log.ready.some((post) => post.role === role && post.itemId === itemId);
  const ready = text === undefined || duplicate || text.trim() === '' ? log.ready : [...log.ready, { role, itemId, text }];
  return release({ ...log, items, ready }, false);
}

/** The call ended: post whatever is still waiting, in order. */
export function flushTranscripts(log: TranscriptLog): { log: TranscriptLog; posts: TranscriptPost[] } {
  return release(log, true);
}

function release(log: TranscriptLog, all: boolean): { log: TranscriptLog; posts: TranscriptPost[] } {
  const position = new Map(log.items.map((item, index) => [item.id, index]));
  const firstWaiting = all || log.ready.length > maxHeld ? -1 : log.items.findIndex((item) => item.expects);
  const due = (post: TranscriptPost): boolean => {
    const at = position.get(post.itemId);
    return firstWaiting === -1 || at === undefined || at < firstWaiting;
  };
  const posts = log.ready.filter(due).sort((a, b) => (position.get(a.itemId) ?? Infinity) - (position.get(b.itemId) ?? Infinity));
  if (posts.length === 0) return { log, posts };
  const posted = [...log.posted, ...posts.map((post) => key(post.role, post.itemId))].slice(-maxTracked);
  return { log: { ...log, ready: log.ready.filter((post) => !due(post)), posted }, posts };
}
