import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import type { GuardedResponse } from '../../../src/main/net/guarded-fetch';
import { readSse } from '../../../src/main/net/sse-reader';
import { clientMessageSchema, maxFrameBytes, parseServerFrame, type Modality, type ObservationImage } from '../../../src/shared/agentcall/protocol';
import type { ObjectPassport } from '../../../src/shared/agentcall/passport';
import { AgentCallSession, closeCodes, recipeContextDescription, type CommandResult, type EngineOutput } from '../../../src/shared/agentcall/session';
import { applySessionUpdate, emptySessionView, sessionUpdateSchema, sessionViewLimits, type SessionView } from '../../../src/shared/agentcall/session-view';
import type { NfcObject } from '../../../src/shared/nfc/ipc-schemas';
import { anyJson, check, isJsonSerializable, mutatedFrom, nastyStrings, target, viaJson } from '../kit';

/** Byte streams: SSE framing (Talkie and AG-UI runs) and AgentCall server frames into the session engine. */

// --- SSE -------------------------------------------------------------------------------------

const sseLine = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom('data: ', 'data:', 'data:  '), fc.string({ unit: 'grapheme', maxLength: 40 }))
      .map(([field, value]) => `${field}${value.replace(/[\r\n]/g, ' ')}`),
  },
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'event: message',
      'event:',
      'id: 7',
      'id',
      'retry: 1000',
      'retry: x',
      ': heartbeat',
      ':',
      'unknown: field',
      'data',
      'DATA: caps',
      '\uFEFFdata: bom',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
);
const lineEnd = fc.constantFrom('\n', '\n', '\r\n', '\r');

const sseText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.boolean(), fc.array(fc.tuple(sseLine, lineEnd), { maxLength: 40 }))
      .map(([bom, lines]) => `${bom ? '\uFEFF' : ''}${lines.map(([line, end]) => line + end).join('')}`),
  },
  /** Only heartbeats (comments) and blank lines: a kept-alive stream that carries no event. */
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(': ping', ':', ': keep-alive 0123456789', ''), lineEnd), { minLength: 1, maxLength: 200 })
      .map((lines) => lines.map(([line, end]) => line + end).join('')),
  },
  /** One long event. */
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 3000 }).map((length) => `data: ${'x'.repeat(length)}\n\n`) },
);

const encoder = new TextEncoder();

/** Bytes cut into chunks at random points (through CRLF pairs and multi-byte characters alike). */
const sseBody = fc
  .oneof({ weight: 5, arbitrary: sseText.map((text) => encoder.encode(text)) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 400 }) })
  .chain((bytes) =>
    fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 12 }).map((cuts) => {
      const points = [0, ...cuts.filter((cut) => cut < bytes.length).sort((a, b) => a - b), bytes.length];
      const chunks: Uint8Array[] = [];
      for (let index = 1; index < points.length; index++) chunks.push(bytes.subarray(points[index - 1], points[index]));
      return { bytes, chunks };
    }),
  );

function fakeResponse(chunks: readonly Uint8Array[], failAfter: number | undefined): GuardedResponse & { cancelled: boolean } {
  const response = {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    url: 'https://agent.example/run',
    cancelled: false,
    bytes: () => Promise.reject(new Error('not used')),
    text: () => Promise.reject(new Error('not used')),
    json: () => Promise.reject(new Error('not used')),
    async *stream() {
      for (const [index, chunk] of chunks.entries()) {
        if (response.cancelled) return;
        if (index === failAfter) throw new Error('connection lost');
        yield chunk;
      }
    },
    cancel() {
      response.cancelled = true;
    },
  };
  return response;
}

/** What the SSE grammar gives for the whole body at once: the reference for any chunking. */
function referenceEvents(bytes: Uint8Array): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => void events.push(event) });
  parser.feed(new TextDecoder().decode(bytes));
  return events;
}

/** The largest stretch of bytes between two blank lines (SSE line ends: CRLF, LF, CR), terminators included. */
function longestEventBytes(text: string): number {
  let longest = 0;
  let current = 0;
  const lines = /([^\r\n]*)(\r\n|\r|\n|$)/g;
  for (const match of text.matchAll(lines)) {
    if (match[0] === '') break;
    current += encoder.encode(match[0]).length;
    longest = Math.max(longest, current);
    if (match[1] === '' && match[2] !== '') current = 0;
  }
  return longest;
}

const same = (a: EventSourceMessage, b: EventSourceMessage | undefined) => b !== undefined && a.data === b.data && a.event === b.event && a.id === b.id;

export const sseTarget = target({
  name: 'net.sseReader',
  weight: 8,
  arbitrary: fc.record({
    body: sseBody,
    maxEventBytes: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.constant(1024 * 1024)),
    stopAfter: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 3 }),
    failAfter: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 4 }),
  }),
  property: async ({ body, maxEventBytes, stopAfter, failAfter }) => {
    const response = fakeResponse(body.chunks, failAfter ?? undefined);
    const events: EventSourceMessage[] = [];
    let unknownLines = 0;
    const end = await readSse(
      response,
      (event) => {
        events.push(event);
        return stopAfter !== null && events.length > stopAfter ? 'stop' : undefined;
      },
      { maxEventBytes, onUnknownLine: () => void unknownLines++ },
    );
    check(['stopped', 'ended', 'too_large', 'failed'].includes(end.kind), `end ${end.kind}`);
    const reference = referenceEvents(body.bytes);
    // Chunking never changes what an event says: what was delivered is the whole body's events, in order.
    events.forEach((event, index) =>
      check(
        same(event, reference[index]),
        () => `event ${index} differs from the whole-body parse: ${JSON.stringify(event)} vs ${JSON.stringify(reference[index])}`,
      ),
    );
    // Bounded to within one fed slice (64 KiB): the documented memory bound.
    for (const event of events)
      check(event.data.length <= maxEventBytes + 64 * 1024, `an event of ${event.data.length} characters passed a cap of ${maxEventBytes}`);
    if (stopAfter !== null && events.length > stopAfter)
      check(
        end.kind === 'stopped' && events.length === stopAfter + 1 && response.cancelled,
        `stop after ${stopAfter + 1} events: ${end.kind}, ${events.length}`,
      );
    if (end.kind === 'ended') check(events.length === reference.length, `ended with ${events.length} of ${reference.length} events`);
    if (end.kind === 'failed') check(failAfter !== null, 'failed only when the stream failed');
    if (end.kind === 'too_large' || end.kind === 'stopped') check(response.cancelled, `${end.kind} cancels the response`);
    if (end.kind === 'too_large') {
      // Heartbeats and blank lines are not an event: a kept-alive stream never becomes "too large".
      const text = new TextDecoder().decode(body.bytes);
      const onlyComments = text.split(/\r\n|\r|\n/).every((line) => line === '' || line.startsWith(':') || line === '\uFEFF');
      check(!onlyComments, `a stream of only comments and blank lines (${body.bytes.length} bytes) ended as too_large under a cap of ${maxEventBytes}`);
      // Too large means some event (the bytes from one blank line to the next) really was larger than the cap.
      const longest = longestEventBytes(text);
      check(longest > maxEventBytes, `too_large under a cap of ${maxEventBytes}, but the largest event has ${longest} bytes`);
    }
  },
});

// --- AgentCall frames into the session engine ---------------------------------------------------

const ids = ['i-1', 'i-2', 'i-3'];
const proposals = ['p-1', 'p-2'];
const objects: NfcObject[] = [
  { objectRef: 'urn:agentcall:object:router', carrier: 'localTag', assurance: 'unverifiedTag', payloadSha256: '0'.repeat(64) },
  { objectRef: 'urn:agentcall:object:kettle "x"\u0000', carrier: 'localTag', assurance: 'unverifiedTag', payloadSha256: '1'.repeat(64) },
];
const passports: ObjectPassport[] = [
  {
    schemaVersion: '0.1',
    objectRef: objects[0]!.objectRef,
    label: 'Router \u202e<b>x</b>',
    links: [{ title: 'Manual', url: 'https://example.com/m' }],
    actions: [
      { recipeId: 'restart', title: 'Restart', description: 'Off and on.\n\tAgain.', requiresConfirmation: true },
      { recipeId: 'lights', title: 'Blink', requiresConfirmation: true },
    ],
  },
  { schemaVersion: '0.1', objectRef: objects[1]!.objectRef, label: 'Kettle', actions: [{ recipeId: 'restart', title: 'Boil', requiresConfirmation: true }] },
];
const photo: ObservationImage = { mediaType: 'image/jpeg', data: 'SU1BR0VT', byteCount: 6, sha256: 'a'.repeat(64), pixelWidth: 640, pixelHeight: 480 };

const eventSeeds: Record<string, unknown>[] = [
  { type: 'session.established', resumed: false },
  { type: 'run.started', runId: 'run-1' },
  { type: 'text.delta', text: 'Hello \u202e world' },
  { type: 'speech.segment', segmentId: 's-1', text: 'Hi', stable: true },
  { type: 'run.completed' },
  { type: 'failure', code: 'busy', message: 'The agent is busy.\n\tTry later.' },
  ...ids.map((interactionId) => ({
    type: 'interaction.requested',
    interactionId,
    kind: 'physical.nfc.scan',
    prompt: 'Scan the tag',
    spokenPrompt: 'Scan it',
    options: [],
    allowsFreeform: false,
  })),
  { type: 'interaction.requested', interactionId: 'i-3', kind: 'physical.photo.capture', prompt: 'Take a photo', options: [], allowsFreeform: false },
  ...ids.map((interactionId) => ({ type: 'interaction.resolved', interactionId, outcome: 'answered' })),
  { type: 'interaction.resolved', interactionId: 'i-1', outcome: 'cancelled' },
  ...proposals.map((proposalId) => ({
    type: 'teaching.proposed',
    proposalId,
    objectRef: objects[0]!.objectRef,
    label: 'Router',
    confirmText: 'Yes',
    cancelText: 'No',
  })),
  ...proposals.map((proposalId) => ({ type: 'teaching.resolved', proposalId, outcome: 'confirmed' })),
  { type: 'teaching.resolved', proposalId: 'p-1', outcome: 'invalidated' },
  ...passports.map((passport) => ({ type: 'object.passport', passport })),
  { type: 'object.passport', passport: { ...passports[0], actions: [{ recipeId: 'wipe', title: 'Wipe', requiresConfirmation: false }] } },
  { type: 'object.passport', passport: { ...passports[0], links: [{ title: 'Bank', url: 'javascript:alert(1)' }] } },
  { type: 'object.passport' },
  { type: 'future.event', anything: [1, 2] },
];

type Step =
  | { kind: 'event'; event: unknown; sequence: 'next' | 'same' | 'skip' | 'zero' | number }
  | { kind: 'raw'; frame: string }
  | { kind: 'text'; text: string; context: unknown }
  | { kind: 'observation'; object: boolean; image: boolean; intent: unknown; interactionId: string | undefined; passport: boolean }
  | { kind: 'recipe'; passportId: string; recipeId: string }
  /** A well-formed object.passport event in sequence (the seeds reach it too, but rarely before the session ends). */
  | { kind: 'passport'; index: number }
  | { kind: 'proposal'; proposalId: string; answer: 'confirm' | 'cancel' }
  | { kind: 'decline' }
  | { kind: 'cancel' }
  | { kind: 'end' }
  | { kind: 'closed'; code: number; reason: string; detail: string | undefined };

const modalities = fc.subarray<Modality>(['nfc', 'photo']);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      event: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...eventSeeds) },
        { weight: 3, arbitrary: mutatedFrom(eventSeeds, 2) },
        { weight: 1, arbitrary: anyJson },
      ),
      sequence: fc.oneof(
        { weight: 12, arbitrary: fc.constant('next' as const) },
        { weight: 1, arbitrary: fc.constantFrom('same' as const, 'skip' as const, 'zero' as const) },
        { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double()) },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      frame: fc.oneof(
        fc.string(),
        fc.constantFrom('', 'null', '[]', '{"sequence":1}', '{"sequence":1,"event":{"type":""}}'),
        fc.constant('x'.repeat(maxFrameBytes + 1)),
        fc.constant(`"${'é'.repeat(maxFrameBytes / 2)}"`),
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.oneof(fc.string(), fc.constantFrom(...nastyStrings)),
      context: fc.oneof(fc.constant([]), fc.array(fc.record({ description: fc.string(), value: fc.string() }), { maxLength: 17 }), anyJson),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('observation' as const),
      object: fc.boolean(),
      image: fc.boolean(),
      intent: fc.constantFrom(undefined, 'identify', 'remember', 'act', 'bogus'),
      interactionId: fc.option(fc.constantFrom(...ids, 'stale'), { nil: undefined }),
      passport: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('passport' as const), index: fc.integer({ min: 0, max: passports.length - 1 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('recipe' as const),
      passportId: fc.constantFrom('passport-1', 'passport-1', 'passport-2', 'made-up'),
      recipeId: fc.constantFrom('restart', 'restart', 'lights', 'wipe'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('proposal' as const),
      proposalId: fc.constantFrom(...proposals),
      answer: fc.constantFrom('confirm' as const, 'cancel' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'decline' as const }, { kind: 'cancel' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'end' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('closed' as const),
      code: fc.oneof(fc.constantFrom(1000, 1001, 1006, 1009, 3000, 4001), fc.integer()),
      reason: fc.string(),
      detail: fc.option(fc.string(), { nil: undefined }),
    }),
  },
);

const rejectionCodes = new Set([
  'already_started',
  'not_established',
  'session_ended',
  'run_active',
  'no_active_run',
  'empty_text',
  'text_too_long',
  'invalid_context',
  'invalid_observation',
  'modality_not_usable',
  'stale_interaction',
  'wrong_modality',
  'no_pending_interaction',
  'proposal_not_shown',
  'passport_not_current',
  'recipe_unknown',
]);

export const agentCallTarget = target({
  name: 'agentcall.session',
  weight: 9,
  arbitrary: fc.record({
    accepted: modalities,
    agentRequests: modalities,
    clientModalities: modalities,
    focusContext: fc.boolean(),
    /** Most inputs start past session.established, so the steps reach runs, requests, proposals and passports. */
    established: fc.boolean(),
    frame: fc.oneof(
      fc.string(),
      fc.jsonValue().map((value) => JSON.stringify(value)),
    ),
    steps: fc.array(step, { maxLength: 40 }),
  }),
  property: ({ accepted, agentRequests, clientModalities, focusContext, established, frame, steps }) => {
    const parsed = parseServerFrame(frame);
    check(isJsonSerializable(parsed), 'parseServerFrame gives JSON');
    let counter = 0;
    const session = new AgentCallSession({
      sessionId: 'fuzz-1',
      card: { accepted, agentRequests },
      clientModalities,
      focusContext,
      now: () => new Date('2026-09-07T10:00:00Z'),
      newId: (prefix) => `${prefix}-${++counter}`,
    });
    let view: SessionView = emptySessionView;
    let sequence = 0;
    let lastAck = 0;
    let ended = false;
    const fold = (output: EngineOutput | CommandResult, what: string) => {
      if ('ok' in output && !output.ok) {
        check(rejectionCodes.has(output.code) && output.message.length > 0, `${what}: rejection ${output.code}`);
        if (ended) check(output.code === 'session_ended', `${what} after the end: ${output.code}`);
        return;
      }
      const { send, updates, close } = output as EngineOutput;
      if (ended) check(send.length === 0 && updates.length === 0, `${what} after the end sent ${send.length} messages`);
      // The agent's frames (a passport among them) make the client send nothing but acks.
      if (what.startsWith('receiveFrame'))
        check(
          send.every((message) => message.type === 'ack'),
          () => `${what} sent ${JSON.stringify(send).slice(0, 200)}`,
        );
      // A recipe is asked for only by askRecipe, and only as what the engine's own passport says.
      for (const message of send) {
        const recipe = message.type === 'user.turn' ? message.context?.find((entry) => entry.description === recipeContextDescription) : undefined;
        if (recipe) {
          check(what === 'askRecipe', `${what} sent a recipe turn`);
          check(
            view.currentPassportId !== undefined &&
              view.items.some(
                (item) =>
                  item.kind === 'passport' &&
                  item.id === view.currentPassportId &&
                  recipe.value.includes(`objectRef=${JSON.stringify(item.passport.objectRef)}`),
              ),
            'the recipe is the current passport’s',
          );
        }
      }
      for (const message of send) {
        check(clientMessageSchema.safeParse(message).success, () => `${what} sends an invalid message ${JSON.stringify(message).slice(0, 200)}`);
        if (message.type === 'ack') {
          check(message.sequence === lastAck + 1, `ack ${message.sequence} after ${lastAck}`);
          lastAck = message.sequence;
        }
      }
      for (const update of updates) {
        check(sessionUpdateSchema.safeParse(update).success, () => `${what} gives an invalid update ${JSON.stringify(update).slice(0, 200)}`);
        view = applySessionUpdate(view, update);
      }
      if (close) check(Object.values(closeCodes).includes(close.code as never) && close.reason.length <= 123, `close ${close.code}`);
      if (updates.some((update) => update.type === 'ended')) ended = true;
    };
    fold(session.start(), 'start');
    if (established)
      fold(session.receiveFrame(JSON.stringify({ sequence: ++sequence, event: { type: 'session.established', resumed: false } })), 'receiveFrame(established)');
    for (const entry of steps) {
      switch (entry.kind) {
        case 'event': {
          const number =
            entry.sequence === 'next'
              ? sequence + 1
              : entry.sequence === 'same'
                ? sequence
                : entry.sequence === 'skip'
                  ? sequence + 2
                  : entry.sequence === 'zero'
                    ? 0
                    : entry.sequence;
          if (entry.sequence === 'next') sequence += 1;
          fold(session.receiveFrame(JSON.stringify({ sequence: number, event: entry.event })), 'receiveFrame');
          break;
        }
        case 'raw':
          fold(session.receiveFrame(entry.frame), 'receiveFrame(raw)');
          break;
        case 'text':
          fold(session.sendText(entry.text, Array.isArray(entry.context) ? (entry.context as never[]) : []), 'sendText');
          break;
        case 'observation':
          fold(
            session.sendObservation({
              ...(entry.object ? { object: objects[sequence % 2]!, ...(entry.passport ? { passport: passports[sequence % 2]! } : {}) } : {}),
              ...(entry.image ? { image: photo } : {}),
              ...(entry.intent === undefined ? {} : { intent: entry.intent as never }),
              ...(entry.interactionId === undefined ? {} : { interactionId: entry.interactionId }),
            }),
            'sendObservation',
          );
          break;
        case 'proposal':
          fold(session.answerProposal(entry.proposalId, entry.answer), 'answerProposal');
          break;
        case 'recipe':
          fold(session.askRecipe(entry.passportId, entry.recipeId), 'askRecipe');
          break;
        case 'passport':
          fold(
            session.receiveFrame(JSON.stringify({ sequence: ++sequence, event: { type: 'object.passport', passport: passports[entry.index] } })),
            'receiveFrame(passport)',
          );
          break;
        case 'decline':
          fold(session.declineInteraction(), 'declineInteraction');
          break;
        case 'cancel':
          fold(session.cancelRun(), 'cancelRun');
          break;
        case 'end':
          fold(session.end(), 'end');
          break;
        case 'closed':
          fold(session.transportClosed(entry.code, entry.reason, entry.detail), 'transportClosed');
          break;
      }
      check(view.items.length <= sessionViewLimits.items, 'items bounded');
      check(
        session.phase === view.phase || (session.phase === 'ended') === (view.phase === 'ended'),
        `engine phase ${session.phase}, view phase ${view.phase}`,
      );
    }
    check(isJsonSerializable(view) && JSON.stringify(viaJson(view)) === JSON.stringify(view), 'the view is plain JSON');
  },
});
