import { createHash, randomBytes } from 'node:crypto';
import type { AgentCallCard } from '../../shared/agentcall/card';
import {
  knownEventSchemas,
  parseServerFrame,
  schemaVersion,
  userObservationSchema,
  type ClientMessage,
  type ObservationImage,
  type UserObservation,
} from '../../shared/agentcall/protocol';
import type { NfcObject } from '../../shared/nfc/ipc-schemas';
import { portableTagCarrier, unverifiedTagAssurance } from '../../shared/nfc/object-ref';
import type { AgentCallConnection, TransportClose } from '../agentcall/connection';
import { connectAgentCall } from '../agentcall/websocket-transport';
import { NetError } from '../net/guarded-fetch';
import { processImage } from '../photo/photo-pipeline';
import { createLogger, type Logger } from '../platform/logger';
import type { CliAgent } from './agentcall-connect';
import { CheckFailed, checkReport, expect, type CheckResult } from './checks';
import { exitCodes, type Io } from './output';

/**
 * `agentdesk conformance <address>` for an AgentCall agent: the spec's "Independent reference proof" wire sequence, one
 * PASS/FAIL/SKIP line per step, speaking the wire itself (it must send what the app never sends). Synthetic objects only;
 * every wait bounded (10 s by default). Exit codes: 0 every step passed or was skipped, 1 a step failed, 2 unreachable.
 * Decision: docs/architecture.md#agentcall-conformance-runner
 */

export interface AgentCallConformanceOptions {
  token?: string | undefined;
  json: boolean;
  /** How long each wait lasts (default 10 s). */
  stepTimeoutMs?: number;
  log?: Logger;
  /** Called when a WebRTC card made the suite load node-datachannel (its owner then runs ndc.cleanup() once at exit). */
  onWebrtcLoaded?: () => void;
}

export const agentCallSteps = [
  'card discovered and valid',
  'session.start → session.established',
  'text turn → run.started … run.completed',
  'unknown object answered',
  'teach object',
  'no label before confirm',
  'confirm object',
  'rescan names the label',
  'another reference stays unknown',
  'cancel teaching',
  'new object invalidates the proposal',
  'scan request (physical.nfc.scan)',
  'wrong-modality answer rejected',
  'scan request answered',
  'same interactionId again rejected',
  'photo request (physical.photo.capture)',
  'photo request answered',
  'session.end closes the session',
  'sequences strictly increasing',
  'every frame well-formed',
] as const;
type StepName = (typeof agentCallSteps)[number];

export const defaultStepTimeoutMs = 10_000;

export async function agentCallConformance(agent: Exclude<CliAgent, { protocol: 'talkie' }>, options: AgentCallConformanceOptions, io: Io): Promise<number> {
  const { results, report, finish: summary } = checkReport(io, options.json);
  const finish = (code?: number) => {
    const ok = summary({ protocol: 'agentcall' });
    return code ?? (ok ? exitCodes.ok : exitCodes.rejected);
  };
  const skipRest = (reason: string) => {
    const reported = new Set(results.map((result) => result.name));
    for (const name of agentCallSteps) if (!reported.has(name)) report({ name, ok: true, skipped: true, detail: reason });
  };

  if (agent.protocol === 'incompatible') {
    report({ name: 'card discovered and valid', ok: false, detail: agent.message });
    skipRest('no usable agent card');
    return finish();
  }
  const { card } = agent;
  const warnings = agent.problems.length > 0 ? `; warnings: ${agent.problems.map((problem) => problem.code).join(', ')}` : '';
  report({
    name: 'card discovered and valid',
    ok: true,
    detail: `${agent.cardUrl}: ${card.name}, ${card.transport}, accepts [${card.accepted.join(', ')}], may request [${card.agentRequests.join(', ')}]${warnings}`,
  });
  if (card.bearerRequired && options.token === undefined) {
    io.err(`${card.name} requires a bearer token: pass --token T (or set AGENTDESK_TOKEN).`);
    skipRest('no bearer token (--token)');
    return finish(exitCodes.usage);
  }

  const timeoutMs = options.stepTimeoutMs ?? defaultStepTimeoutMs;
  const sessionId = `conformance-${randomBytes(8).toString('hex')}`;
  const log = options.log ?? createLogger({ level: 'silent' });
  if (card.transport === 'webrtc') {
    // agentcall-webrtc-0.1: the same sequence on the agentcall.events data channel of a real call.
    const webrtc = await import('./agentcall-webrtc-conformance').catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    if (webrtc instanceof Error) {
      skipRest(`WebRTC (node-datachannel) cannot be loaded on this machine: ${webrtc.message}`);
      return finish();
    }
    options.onWebrtcLoaded?.();
    const callOptions = { card, policy: agent.policy, token: options.token, timeoutMs, log };
    const call = await webrtc.openWebrtcCall({ ...callOptions, sessionId }, report);
    if (!call) {
      skipRest('no call');
      return finish();
    }
    try {
      await runSuite(card, new Wire(call.connection, timeoutMs), sessionId, report);
      webrtc.reportChannels(call, report);
    } finally {
      if (call.connection.isOpen) call.connection.close();
      call.offerer.close();
    }
    await webrtc.webrtcProfileChecks(callOptions, report);
    return finish();
  }
  let connection: AgentCallConnection;
  try {
    connection = await connectAgentCall({
      url: card.wsUrl,
      policy: agent.policy,
      log: options.log ?? createLogger({ level: 'silent' }),
      ...(card.bearerRequired && options.token !== undefined ? { bearerToken: options.token } : {}),
    });
  } catch (error) {
    report({ name: 'session.start → session.established', ok: false, detail: `could not connect: ${(error as Error).message}` });
    skipRest('no session');
    return finish(error instanceof NetError ? exitCodes.usage : undefined);
  }
  try {
    await runSuite(card, new Wire(connection, timeoutMs), sessionId, report);
  } finally {
    if (connection.isOpen) connection.close();
  }
  return finish();
}

/** The reference-proof sequence after the card step, on whichever transport the wire runs. */
async function runSuite(card: AgentCallCard, wire: Wire, sessionId: string, report: (result: CheckResult) => void): Promise<void> {
  const steps = suite(card, wire, sessionId);
  for (const name of agentCallSteps.slice(1)) {
    const step = steps[name as Exclude<StepName, 'card discovered and valid'>];
    try {
      const outcome = await step();
      report(typeof outcome === 'string' ? { name, ok: true, detail: outcome } : { name, ok: true, skipped: true, detail: outcome.skip });
    } catch (error) {
      if (!(error instanceof CheckFailed)) throw error;
      report({ name, ok: false, detail: error.message });
    }
  }
}

type Outcome = string | { skip: string };
type Event = { type: string } & Record<string, unknown>;
interface Envelope {
  sequence: number;
  event: Event;
}

/** An agent's answer to one message: everything up to its run.completed or failure. */
interface Answer {
  events: Event[];
  /** The text.delta texts, joined. */
  text: string;
  /** The speech.segment texts, joined. */
  spoken: string;
  failure?: Event;
}

/** The wire: envelopes in arrival order, acknowledged, with sequence and frame problems recorded. */
class Wire {
  readonly envelopes: Envelope[] = [];
  readonly frameProblems: string[] = [];
  readonly sequenceProblems: string[] = [];
  closed: TransportClose | undefined;
  private lastSequence = 0;
  private turn = 0;
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly connection: AgentCallConnection,
    readonly timeoutMs: number,
  ) {
    connection.onFrame((frame) => this.receive(frame));
    connection.onClose((close) => {
      this.closed = close;
      this.wake();
    });
  }

  nextTurn(): number {
    this.turn += 1;
    return this.turn;
  }

  send(message: ClientMessage): number {
    const since = this.envelopes.length;
    try {
      this.connection.send(message);
    } catch (error) {
      throw new CheckFailed(`could not send ${message.type}: ${(error as Error).message}${this.closedNote()}`);
    }
    return since;
  }

  text(text: string): number {
    return this.send({ type: 'user.turn', turn: this.nextTurn(), text });
  }

  observe(observation: { object?: NfcObject; image?: ObservationImage }, interactionId?: string): number {
    const turn = this.nextTurn();
    const message: UserObservation = {
      type: 'user.observation',
      turn,
      ...(interactionId === undefined ? {} : { interactionId }),
      observation: {
        schemaVersion,
        observationId: `conformance-${turn}-${randomBytes(4).toString('hex')}`,
        capturedAt: new Date().toISOString(),
        intent: 'identify',
        ...observation,
      },
    };
    userObservationSchema.parse(message);
    return this.send(message);
  }

  /** Resolves with `check`'s first defined value, re-checked on every envelope; fails at the deadline or when the connection closes. */
  until<T>(check: () => T | undefined, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check();
        if (value !== undefined) return stop(() => resolve(value));
        if (this.closed) stop(() => reject(new CheckFailed(`the connection closed while waiting for ${what}${this.closedNote()}`)));
      };
      const stop = (then: () => void) => {
        clearTimeout(timer);
        this.wakers.delete(attempt);
        then();
      };
      const timer = setTimeout(
        () => stop(() => reject(new CheckFailed(`timed out after ${formatSeconds(this.timeoutMs)} waiting for ${what}${this.frameNote()}`))),
        this.timeoutMs,
      );
      this.wakers.add(attempt);
      attempt();
    });
  }

  /** The first envelope at or after `since` that `test` accepts. */
  find(since: number, test: (event: Event) => boolean, what: string): Promise<Event> {
    return this.until(() => this.envelopes.slice(since).find((envelope) => test(envelope.event))?.event, what);
  }

  /** The agent's answer to the message sent at `since`: up to run.completed (after a run.started) or a failure. */
  answer(since: number, what = 'the answer (run.completed or failure)'): Promise<Answer> {
    return this.until(() => {
      const events: Event[] = [];
      let started = false;
      for (const { event } of this.envelopes.slice(since)) {
        events.push(event);
        if (event.type === 'run.started') started = true;
        if (event.type === 'failure' || (event.type === 'run.completed' && started)) {
          return {
            events,
            text: joinText(events, 'text.delta'),
            spoken: joinText(events, 'speech.segment'),
            ...(event.type === 'failure' ? { failure: event } : {}),
          };
        }
      }
      return undefined;
    }, what);
  }

  closedNote(): string {
    if (!this.closed) return '';
    return ` (closed ${this.closed.code}${this.closed.reason ? ` "${this.closed.reason.slice(0, 80)}"` : ''}${this.closed.error ? `: ${this.closed.error.message}` : ''})`;
  }

  private frameNote(): string {
    return this.frameProblems.length > 0 ? ` (${this.frameProblems.length} malformed frame(s) were dropped; first: ${this.frameProblems[0]})` : '';
  }

  private receive(frame: string): void {
    const parsed = parseServerFrame(frame);
    if (!parsed.ok) {
      this.frameProblems.push(`${parsed.code}: ${parsed.message}`);
      return;
    }
    const { sequence } = parsed;
    const expected = this.lastSequence + 1;
    if (sequence !== expected) {
      this.sequenceProblems.push(
        sequence < expected
          ? `${sequence} after ${this.lastSequence} (went back or repeated)`
          : `${sequence} after ${this.lastSequence} (skipped ${sequence - expected})`,
      );
    }
    this.lastSequence = Math.max(this.lastSequence, sequence);
    const event: Event = parsed.event ? (parsed.event as Event) : { type: parsed.unknownType };
    this.envelopes.push({ sequence, event });
    try {
      if (this.connection.isOpen) this.connection.send({ type: 'ack', sequence });
    } catch {
      // Closing: the step that waits says so.
    }
    this.wake();
  }

  private wake(): void {
    for (const attempt of [...this.wakers]) attempt();
  }
}

function joinText(events: readonly Event[], type: 'text.delta' | 'speech.segment'): string {
  return events
    .filter((event) => event.type === type)
    .map((event) => String(event.text))
    .join(type === 'text.delta' ? '' : '\n');
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

const quoteText = (text: string) => JSON.stringify(text.length > 160 ? `${text.slice(0, 159)}…` : text);

function syntheticObject(): NfcObject {
  const objectRef = `urn:agentcall:object:conformance-${randomBytes(8).toString('hex')}`;
  return {
    objectRef,
    carrier: portableTagCarrier,
    assurance: unverifiedTagAssurance,
    payloadSha256: createHash('sha256').update(objectRef, 'utf8').digest('hex'),
  };
}

const freshLabel = () => `Conformance ${randomBytes(4).toString('hex')}`;

/** A small real JPEG (64×48 gradient) through the app's photo pipeline. */
async function syntheticPhoto(): Promise<ObservationImage> {
  const width = 64;
  const height = 48;
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 4;
      rgba.set([Math.round((x / width) * 255), Math.round((y / height) * 255), 128, 255], at);
    }
  }
  const photo = await processImage({ kind: 'frame', rgba, width, height });
  return {
    mediaType: 'image/jpeg',
    data: photo.base64,
    byteCount: photo.byteCount,
    sha256: photo.sha256,
    pixelWidth: photo.pixelWidth,
    pixelHeight: photo.pixelHeight,
  };
}

/** A processed answer that is not a failure, else the step fails naming the failure. */
function expectAnswered(answer: Answer, what: string): void {
  expect(!answer.failure, `${what} was answered with failure ${String(answer.failure?.code)}: ${quoteText(String(answer.failure?.message))}`);
}

function teachingEvidence(events: readonly Event[], type: 'teaching.proposed' | 'teaching.resolved', test: (event: Event) => boolean): Event | undefined {
  return events.find((event) => event.type === type && test(event));
}

function suite(card: AgentCallCard, wire: Wire, sessionId: string): Record<Exclude<StepName, 'card discovered and valid'>, () => Promise<Outcome>> {
  const nfc = card.accepted.includes('nfc');
  const photo = card.accepted.includes('photo');
  const noNfc = { skip: 'the card does not accept nfc' };
  let established = false;
  const all = () => wire.envelopes.map((envelope) => envelope.event);
  const noSession = { skip: 'no session' };

  /** Sends an object and returns the processed answer. */
  const scan = async (object: NfcObject, what: string) => {
    const answer = await wire.answer(wire.observe({ object }), `the answer to ${what}`);
    expectAnswered(answer, what);
    return answer;
  };
  const say = async (text: string) => {
    const answer = await wire.answer(wire.text(text), `the answer to "${text}"`);
    expectAnswered(answer, `"${text}"`);
    return answer;
  };
  const knows = (answer: Answer, label: string) => answer.text.includes(label) || answer.spoken.includes(label);

  const objectA = syntheticObject();
  const labelA = freshLabel();
  let scanRequest: string | undefined;
  let photoRequest: string | undefined;
  let photoImage: ObservationImage | undefined;
  const image = async () => (photoImage ??= await syntheticPhoto());

  return {
    'session.start → session.established': async () => {
      wire.send({
        type: 'session.start',
        sessionId,
        clientCapabilities: { physicalObservations: { modalities: [...card.accepted] } },
      });
      const first = await wire.until(() => wire.envelopes[0], 'session.established');
      expect(first.event.type === 'session.established', `the first event is ${quoteText(first.event.type)}, not session.established`);
      expect(first.event.resumed === false, `session.established says resumed: ${String(first.event.resumed)}, not false`);
      expect(first.sequence === 1, `session.established has sequence ${first.sequence}, not 1`);
      established = true;
      return `sequence 1, resumed false; offered [${card.accepted.join(', ')}]`;
    },
    'text turn → run.started … run.completed': async () => {
      if (!established) return noSession;
      const since = wire.text('Hello from the AgentDesk conformance suite.');
      const answer = await wire.answer(since, 'run.completed');
      expectAnswered(answer, 'a text turn');
      expect(answer.events[0]?.type === 'run.started', `the first event of the answer is ${quoteText(answer.events[0]?.type ?? '')}, not run.started`);
      expect(
        answer.events.some((event) => event.type === 'text.delta' && String(event.text) !== ''),
        'the run has no text.delta with text',
      );
      return `run.started, ${answer.events.filter((event) => event.type === 'text.delta').length} text.delta, run.completed`;
    },
    'unknown object answered': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const answer = await scan(objectA, 'an unknown object');
      expect(!knows(answer, labelA), 'the answer names a label that was never taught');
      return `${objectA.objectRef} answered: ${quoteText(answer.text)}`;
    },
    'teach object': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const answer = await say(`teach object ${labelA}`);
      const proposed = teachingEvidence(answer.events, 'teaching.proposed', (event) => event.objectRef === objectA.objectRef && event.label === labelA);
      return `"teach object ${labelA}" answered${proposed ? ' (teaching.proposed for this object seen)' : ''}`;
    },
    'no label before confirm': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const answer = await scan(objectA, 'the rescan before confirming');
      if (!knows(answer, labelA)) return 'the rescan does not name the label';
      // The label may be repeated as the staged proposal; only the additive events can say so.
      const proposed = teachingEvidence(all(), 'teaching.proposed', (event) => event.objectRef === objectA.objectRef && event.label === labelA);
      const resolved = proposed && teachingEvidence(all(), 'teaching.resolved', (event) => event.proposalId === proposed.proposalId);
      expect(proposed && !resolved, `the rescan names ${quoteText(labelA)} before "confirm object": ${quoteText(answer.text)}`);
      return 'the rescan repeats the label as the still-staged proposal (teaching.proposed shown, not resolved); the cancel and new-object steps check nothing was stored';
    },
    'confirm object': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const answer = await say('confirm object');
      const confirmed = teachingEvidence(answer.events, 'teaching.resolved', (event) => event.outcome === 'confirmed');
      return `"confirm object" answered${confirmed ? ' (teaching.resolved confirmed seen)' : ''}`;
    },
    'rescan names the label': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const answer = await scan(objectA, 'the rescan after confirming');
      expect(knows(answer, labelA), `the rescan after "confirm object" does not name ${quoteText(labelA)}: ${quoteText(answer.text)}`);
      return `the rescan names ${quoteText(labelA)}`;
    },
    'another reference stays unknown': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const other = syntheticObject();
      const answer = await scan(other, 'a different reference');
      expect(!knows(answer, labelA), `a different reference (${other.objectRef}) is answered with ${quoteText(labelA)}: ${quoteText(answer.text)}`);
      return `${other.objectRef} is not given ${quoteText(labelA)}`;
    },
    'cancel teaching': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const object = syntheticObject();
      const label = freshLabel();
      await scan(object, 'a new object');
      await say(`teach object ${label}`);
      const cancelled = await say('cancel teaching');
      const answer = await scan(object, 'the rescan after "cancel teaching"');
      expect(!knows(answer, label), `after "cancel teaching" the rescan names ${quoteText(label)}: ${quoteText(answer.text)}`);
      const evidence = teachingEvidence(cancelled.events, 'teaching.resolved', (event) => event.outcome === 'cancelled');
      return `taught ${quoteText(label)}, cancelled, the rescan does not name it${evidence ? ' (teaching.resolved cancelled seen)' : ''}`;
    },
    'new object invalidates the proposal': async () => {
      if (!established) return noSession;
      if (!nfc) return noNfc;
      const first = syntheticObject();
      const second = syntheticObject();
      const label = freshLabel();
      await scan(first, 'object A');
      await say(`teach object ${label}`);
      const switched = await scan(second, 'object B while A’s proposal is staged');
      const confirm = await wire.answer(wire.text('confirm object'), 'the answer to "confirm object"');
      const again = await scan(first, 'object A after the confirm');
      expect(!knows(again, label), `after scanning another object and "confirm object", object A is named ${quoteText(label)}: ${quoteText(again.text)}`);
      const onB = await scan(second, 'object B after the confirm');
      expect(!knows(onB, label), `"confirm object" gave object B the label ${quoteText(label)} staged for object A`);
      const evidence = teachingEvidence(switched.events, 'teaching.resolved', (event) => event.outcome === 'invalidated');
      return `teach A, scan B, confirm (${confirm.failure ? `failure ${String(confirm.failure.code)}` : 'answered'}) → A and B still unknown${evidence ? ' (teaching.resolved invalidated seen)' : ''}`;
    },
    'scan request (physical.nfc.scan)': async () => {
      if (!established) return noSession;
      if (!card.agentRequests.includes('nfc')) return { skip: 'the card does not list nfc in agentRequests' };
      const since = wire.text('scan an object');
      const request = await wire.find(since, (event) => event.type === 'interaction.requested', 'interaction.requested');
      await wire.answer(since);
      expect(request.kind === 'physical.nfc.scan', `the request's kind is ${quoteText(String(request.kind))}, not physical.nfc.scan`);
      scanRequest = String(request.interactionId);
      return `interaction.requested physical.nfc.scan, prompt ${quoteText(String(request.prompt))}`;
    },
    'wrong-modality answer rejected': async () => {
      if (scanRequest === undefined) return { skip: 'no pending scan request' };
      if (!photo) return { skip: 'the card does not accept photos, so no other modality can be sent' };
      const id = scanRequest;
      const answer = await wire.answer(wire.observe({ image: await image() }, id), 'a failure for the wrong-modality answer');
      expect(answer.failure, `a photo answering the scan request was not rejected with a failure: ${quoteText(answer.text)}`);
      expect(!answer.events.some((event) => event.type === 'interaction.resolved' && event.interactionId === id), 'the scan request was resolved by a photo');
      return `failure ${String(answer.failure.code)}; the request stays pending`;
    },
    'scan request answered': async () => {
      if (scanRequest === undefined) return { skip: 'no pending scan request' };
      const id = scanRequest;
      const since = wire.observe({ object: syntheticObject() }, id);
      const resolved = await wire.find(since, (event) => event.type === 'interaction.resolved' || event.type === 'failure', `interaction.resolved for ${id}`);
      expect(
        resolved.type === 'interaction.resolved',
        `the scan answering the request was rejected: failure ${String(resolved.code)}: ${quoteText(String(resolved.message))}`,
      );
      expect(resolved.interactionId === id, `interaction.resolved names ${quoteText(String(resolved.interactionId))}, not the request's ${id}`);
      expect(resolved.outcome === 'answered', `interaction.resolved outcome is ${quoteText(String(resolved.outcome))}, not answered`);
      await wire.answer(since);
      return 'interaction.resolved answered for the request’s interactionId';
    },
    'same interactionId again rejected': async () => {
      if (scanRequest === undefined) return { skip: 'no pending scan request' };
      const id = scanRequest;
      const answer = await wire.answer(wire.observe({ object: syntheticObject() }, id), 'a failure for the spent interactionId');
      expect(answer.failure, `a second answer with the same interactionId was not rejected: ${quoteText(answer.text)}`);
      expect(!answer.events.some((event) => event.type === 'interaction.resolved' && event.interactionId === id), 'the request was resolved a second time');
      return `failure ${String(answer.failure.code)}`;
    },
    'photo request (physical.photo.capture)': async () => {
      if (!established) return noSession;
      if (!card.agentRequests.includes('photo')) return { skip: 'the card does not list photo in agentRequests' };
      const since = wire.text('take a photo');
      const request = await wire.find(since, (event) => event.type === 'interaction.requested', 'interaction.requested');
      await wire.answer(since);
      expect(request.kind === 'physical.photo.capture', `the request's kind is ${quoteText(String(request.kind))}, not physical.photo.capture`);
      photoRequest = String(request.interactionId);
      return `interaction.requested physical.photo.capture, prompt ${quoteText(String(request.prompt))}`;
    },
    'photo request answered': async () => {
      if (photoRequest === undefined) return { skip: 'no pending photo request' };
      const id = photoRequest;
      const jpeg = await image();
      const since = wire.observe({ image: jpeg }, id);
      const resolved = await wire.find(since, (event) => event.type === 'interaction.resolved' || event.type === 'failure', `interaction.resolved for ${id}`);
      expect(
        resolved.type === 'interaction.resolved',
        `the photo answering the request was rejected: failure ${String(resolved.code)}: ${quoteText(String(resolved.message))}`,
      );
      expect(
        resolved.interactionId === id && resolved.outcome === 'answered',
        `interaction.resolved is ${quoteText(`${String(resolved.interactionId)} ${String(resolved.outcome)}`)}, not answered for the request`,
      );
      await wire.answer(since);
      return `a ${jpeg.pixelWidth}×${jpeg.pixelHeight} JPEG (${jpeg.byteCount} bytes) answered the request`;
    },
    'session.end closes the session': async () => {
      if (!established) return noSession;
      wire.send({ type: 'session.end' });
      await wire.until(() => wire.closed, 'the agent to close the connection');
      return `closed with ${wire.closed!.code}`;
    },
    'sequences strictly increasing': async () => {
      if (wire.envelopes.length === 0) return noSession;
      expect(wire.sequenceProblems.length === 0, `sequence ${wire.sequenceProblems.slice(0, 3).join('; ')}`);
      return `${wire.envelopes.length} envelopes, sequences 1…${wire.envelopes.at(-1)!.sequence} without gaps`;
    },
    'every frame well-formed': async () => {
      if (wire.envelopes.length === 0 && wire.frameProblems.length === 0) return noSession;
      expect(wire.frameProblems.length === 0, `${wire.frameProblems.length} malformed frame(s); first: ${wire.frameProblems[0]}`);
      const unknown = [...new Set(wire.envelopes.map((envelope) => envelope.event.type).filter((type) => !knownTypes.has(type)))];
      return `every frame a valid envelope${unknown.length > 0 ? `; unknown event types ignored: ${unknown.slice(0, 5).join(', ')}` : ''}`;
    },
  };
}

const knownTypes = new Set(Object.keys(knownEventSchemas));
