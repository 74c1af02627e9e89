import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { extensionUri, parseServerFrame, type ServerEvent } from '../../../src/shared/agentcall/protocol';
import { demoStory, maxTaughtLabels } from '../../../src/main/demo/agentcall/agentcall-demo-agent';
import {
  startAgentCallDemoServer,
  uiLinksExtensionUri,
  type AgentCallDemoOptions,
  type AgentCallDemoServer,
} from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { startDemo } from '../../../src/main/demo/start-demo';
import { memoryLogger } from '../../support/logger';

/**
 * The built-in demo agent's AgentCall side, over a real `ws` client against the real server on
 * 127.0.0.1: the spec's "Independent reference proof" wire sequence, agent-requested collection,
 * photo verification, and the transport rules (auth at the upgrade, first message, replay, frames).
 */

type Event = ServerEvent & { [key: string]: unknown };
type Json = Record<string, unknown>;

const servers: { close(): Promise<void> }[] = [];
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const ws of clients.splice(0)) ws.terminate();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: AgentCallDemoOptions = {}): Promise<AgentCallDemoServer> {
  const server = await startAgentCallDemoServer(options);
  servers.push(server);
  return server;
}

const wsUrl = (server: AgentCallDemoServer, suffix = '') => `${server.aguiUrl.replace(/^http/, 'ws')}${suffix}`;

/** A WebSocket client that checks every envelope (known event, sequence +1) and reads them in order. */
class Client {
  readonly envelopes: { sequence: number; event: Event }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly refused: Promise<number>;
  private cursor = 0;
  private wake: (() => void) | undefined;

  constructor(readonly ws: WebSocket) {
    clients.push(ws);
    ws.on('error', () => undefined);
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.refused = new Promise((resolve) => ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)));
    ws.on('message', (data, isBinary) => {
      expect(isBinary).toBe(false);
      const parsed = parseServerFrame(data.toString());
      if (!parsed.ok || parsed.event === undefined) throw new Error(`bad frame from the demo: ${data.toString().slice(0, 300)}`);
      expect(parsed.sequence).toBe(this.envelopes.length + 1);
      this.envelopes.push({ sequence: parsed.sequence, event: parsed.event as Event });
      this.wake?.();
    });
  }

  static async open(server: AgentCallDemoServer, headers: Record<string, string> = {}, suffix = ''): Promise<Client> {
    const client = new Client(new WebSocket(wsUrl(server, suffix), { headers }));
    await new Promise<void>((resolve, reject) => {
      client.ws.once('open', () => resolve());
      client.ws.once('error', reject);
    });
    return client;
  }

  /** Opens a socket and starts a session with these client modalities; checks session.established. */
  /** `modalities: null` sends no clientCapabilities at all. */
  static async session(server: AgentCallDemoServer, modalities: string[] | null = ['nfc', 'photo'], headers: Record<string, string> = {}): Promise<Client> {
    const client = await Client.open(server, headers);
    client.send({
      type: 'session.start',
      sessionId: 'proof-1',
      ...(modalities === null ? {} : { clientCapabilities: { physicalObservations: { modalities } } }),
    });
    expect(await client.until(() => true)).toEqual([{ type: 'session.established', resumed: false }]);
    return client;
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Events from the cursor up to and including the first that matches; moves the cursor past it. */
  async until(predicate: (event: Event) => boolean): Promise<Event[]> {
    for (;;) {
      const index = this.envelopes.findIndex((envelope, at) => at >= this.cursor && predicate(envelope.event));
      if (index >= 0) {
        const events = this.envelopes.slice(this.cursor, index + 1).map((envelope) => envelope.event);
        this.cursor = index + 1;
        return events;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Sends a turn and returns its events: a run (run.started … run.completed) or one standalone failure. */
  async turn(message: Json): Promise<Event[]> {
    this.send(message);
    const events = await this.until((event) => event.type === 'run.completed' || event.type === 'failure');
    const last = events.at(-1)!;
    if (last.type === 'failure') expect(events).toHaveLength(1);
    else {
      expect(events[0]).toMatchObject({ type: 'run.started' });
      const text = events.filter((event) => event.type === 'text.delta').map((event) => event.text as string);
      expect(text.length).toBeGreaterThan(0);
      const speech = events.filter((event) => event.type === 'speech.segment');
      expect(speech).toHaveLength(1);
      expect(speech[0]).toMatchObject({ stable: true });
    }
    return events;
  }

  /** Nothing unread (call after a round trip that proves the server has answered everything before it). */
  get unread(): Event[] {
    return this.envelopes.slice(this.cursor).map((envelope) => envelope.event);
  }
}

let turnNumber = 0;
const nextTurn = () => ++turnNumber;
const say = (text: string, turn = nextTurn()) => ({ type: 'user.turn', turn, text });
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function scan(objectRef: string, extra: { interactionId?: string; turn?: number; intent?: string } = {}) {
  return {
    type: 'user.observation',
    turn: extra.turn ?? nextTurn(),
    ...(extra.interactionId === undefined ? {} : { interactionId: extra.interactionId }),
    observation: {
      schemaVersion: '0.1',
      observationId: `scan-${turnNumber}`,
      capturedAt: '2026-09-07T10:00:00Z',
      intent: extra.intent ?? 'identify',
      object: { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: sha256(objectRef) },
    },
  };
}

interface ImageFields {
  mediaType: string;
  data: string;
  byteCount: number;
  sha256: string;
  pixelWidth: number;
  pixelHeight: number;
}

function photo(image: ImageFields, extra: { interactionId?: string } = {}) {
  return {
    type: 'user.observation',
    turn: nextTurn(),
    ...(extra.interactionId === undefined ? {} : { interactionId: extra.interactionId }),
    observation: { schemaVersion: '0.1', observationId: `photo-${turnNumber}`, capturedAt: '2026-09-07T10:00:00Z', intent: 'inspect', image },
  };
}

async function jpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 120, b: 117 } } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

function imageOf(bytes: Buffer, width: number, height: number): ImageFields {
  return { mediaType: 'image/jpeg', data: bytes.toString('base64'), byteCount: bytes.length, sha256: sha256(bytes), pixelWidth: width, pixelHeight: height };
}

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The same bytes in base64 whose last character has an unused bit set (only possible with padding). */
function nonCanonical(data: string): string {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  expect(padding).toBeGreaterThan(0);
  const at = data.length - padding - 1;
  const index = base64Alphabet.indexOf(data[at]!);
  return `${data.slice(0, at)}${base64Alphabet[index ^ 1]}${data.slice(at + 1)}`;
}

const textOf = (events: Event[]) =>
  events
    .filter((event) => event.type === 'text.delta')
    .map((event) => event.text as string)
    .join('');
const ofType = (events: Event[], type: string) => events.filter((event) => event.type === type);

const router = 'urn:agentcall:object:workshop-router';
const drill = 'urn:agentcall:object:cordless-drill';
const unknownText = `I don't know this object yet. Say "teach object <name>"`;

describe('the AgentCall demo agent: discovery', () => {
  it('serves an A2A 1.0 Agent Card with the AgentCall extension and a UI links entry to a page it serves', async () => {
    const server = await start();
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.cardUrl).toBe(`${server.baseUrl}/.well-known/agent-card.json`);
    const response = await fetch(server.cardUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const card = (await response.json()) as Json & { capabilities: { extensions: Json[] }; skills: Json[] };
    expect(card).toMatchObject({
      name: 'AgentDesk demo agent',
      description: expect.any(String),
      version: expect.any(String),
      supportedInterfaces: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    expect(card).not.toHaveProperty('url');
    expect(card).not.toHaveProperty('securitySchemes');
    for (const skill of card.skills)
      expect(skill).toMatchObject({ id: expect.any(String), name: expect.any(String), description: expect.any(String), tags: expect.any(Array) });

    const agentCall = card.capabilities.extensions.filter((extension) => extension.uri === extensionUri);
    expect(agentCall).toEqual([
      {
        uri: extensionUri,
        description: expect.any(String),
        required: false,
        params: {
          schemaVersion: '0.1',
          agui: { url: server.aguiUrl, transport: 'websocket', session: { resume: false, replay: false } },
          voice: { owner: 'client' },
          physicalObservations: { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] },
        },
      },
    ]);
    expect(server.aguiUrl).toBe(`${server.baseUrl}/agui`);

    const uiLinks = card.capabilities.extensions.find((extension) => extension.uri === uiLinksExtensionUri) as { required: boolean; params: { uis: Json[] } };
    expect(uiLinks.required).toBe(false);
    expect(uiLinks.params.uis).toHaveLength(1);
    const entry = uiLinks.params.uis[0]!;
    expect(entry).toMatchObject({ url: 'https://agentcall.smartycode.com/', label: expect.any(String), audience: 'public', access: 'open', kind: 'docs' });
    const page = await fetch(`${server.baseUrl}/ui/status`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('AgentDesk demo agent');
  });

  it('answers only its own paths and host names', async () => {
    const server = await start();
    expect((await fetch(`${server.baseUrl}/nope`)).status).toBe(404);
    expect((await fetch(server.cardUrl, { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await fetch(server.aguiUrl)).status).toBe(426);
    const port = new URL(server.baseUrl).port;
    expect((await fetch(`http://localhost:${port}/.well-known/agent-card.json`)).status).toBe(200);
    const rebound = new Client(new WebSocket(wsUrl(server), { headers: { Host: 'attacker.example' } }));
    expect(await rebound.refused).toBe(421);
  });

  it('declares a bearer scheme when a token is set and checks it at the upgrade, never in the URL', async () => {
    const token = 'agentcall-demo-token-0123456789';
    const log = memoryLogger();
    const server = await start({ token, log });
    const card = (await (await fetch(server.cardUrl)).json()) as Json;
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: expect.any(String) } } });
    expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);

    const bare = new Client(new WebSocket(wsUrl(server)));
    expect(await bare.refused).toBe(401);
    const inQuery = new Client(new WebSocket(wsUrl(server, `?token=${token}&access_token=${token}`)));
    expect(await inQuery.refused).toBe(401);
    const wrong = new Client(new WebSocket(wsUrl(server), { headers: { Authorization: 'Bearer agentcall-demo-token-wrong-012345' } }));
    expect(await wrong.refused).toBe(401);

    const client = await Client.session(server, ['nfc'], { Authorization: `Bearer ${token}` });
    expect(textOf(await client.turn(say('hello')))).toContain('scan an object');
    expect(log.lines.join('\n')).not.toContain(token);
  });
});

describe('the AgentCall demo agent: the independent reference proof', () => {
  it('learns an object only after an explicit confirmation, and recognises exactly that reference', async () => {
    const server = await start();
    const client = await Client.session(server, ['nfc', 'photo']);

    // An unknown object starts a teaching conversation.
    expect(textOf(await client.turn(scan(router)))).toContain(unknownText);

    // teach object → a proposal tied to the exact objectRef; nothing stored yet.
    const taught = await client.turn(say('  teach object   Workshop router  '));
    const [proposed] = ofType(taught, 'teaching.proposed');
    expect(proposed).toEqual({
      type: 'teaching.proposed',
      proposalId: expect.any(String),
      objectRef: router,
      label: 'Workshop router',
      confirmText: 'confirm object',
      cancelText: 'cancel teaching',
    });
    expect(textOf(taught)).toContain(`"Workshop router"`);
    expect(textOf(taught)).toContain(router);
    expect(textOf(taught)).toContain('confirm object');

    // No stored association before the confirmation: the rescan does not name it.
    const before = textOf(await client.turn(scan(router)));
    expect(before).not.toContain('This is "Workshop router"');
    expect(before).toContain('still waiting');

    // Generic assent is not a confirmation.
    expect(textOf(await client.turn(say('yes')))).not.toContain('Saved');
    expect(textOf(await client.turn(scan(router)))).not.toContain('This is "Workshop router"');

    const confirmed = await client.turn(say('Confirm Object'));
    expect(ofType(confirmed, 'teaching.resolved')).toEqual([{ type: 'teaching.resolved', proposalId: proposed!.proposalId, outcome: 'confirmed' }]);

    expect(textOf(await client.turn(scan(router)))).toContain('This is "Workshop router".');
    // Exact equality only: a different reference, a case variant and a prefix stay unknown.
    for (const other of [drill, router.toUpperCase(), `${router}-2`, 'urn:agentcall:object:workshop']) {
      expect(textOf(await client.turn(scan(other))), other).toContain(unknownText);
    }
    expect(textOf(await client.turn(scan(router)))).toContain('This is "Workshop router".');
  });

  it('cancels a proposal on "cancel teaching" and invalidates it when another object is scanned', async () => {
    const server = await start();
    const client = await Client.session(server);
    expect(textOf(await client.turn(say('confirm object')))).toContain('There is nothing to confirm');
    expect(textOf(await client.turn(say('teach object Router')))).toContain('Scan an object first');

    await client.turn(scan(router));
    const first = ofType(await client.turn(say('teach object Workshop router')), 'teaching.proposed')[0]!;
    const cancelled = await client.turn(say('cancel teaching'));
    expect(ofType(cancelled, 'teaching.resolved')).toEqual([{ type: 'teaching.resolved', proposalId: first.proposalId, outcome: 'cancelled' }]);
    expect(textOf(await client.turn(say('confirm object')))).toContain('There is nothing to confirm');
    expect(textOf(await client.turn(scan(router)))).toContain(unknownText);

    const second = ofType(await client.turn(say('teach object Workshop router')), 'teaching.proposed')[0]!;
    expect(second.proposalId).not.toBe(first.proposalId);
    const switched = await client.turn(scan(drill));
    expect(ofType(switched, 'teaching.resolved')).toEqual([{ type: 'teaching.resolved', proposalId: second.proposalId, outcome: 'invalidated' }]);
    expect(textOf(switched)).toContain(unknownText);
    // The invalidated proposal cannot be confirmed onto either object.
    expect(textOf(await client.turn(say('confirm object')))).toContain('There is nothing to confirm');
    expect(textOf(await client.turn(scan(router)))).toContain(unknownText);
    expect(textOf(await client.turn(scan(drill)))).toContain(unknownText);

    // A replacement proposal for the same object needs its own confirmation.
    const third = ofType(await client.turn(say('teach object Drill')), 'teaching.proposed')[0]!;
    const fourth = await client.turn(say('teach object Cordless drill'));
    expect(ofType(fourth, 'teaching.resolved')).toEqual([{ type: 'teaching.resolved', proposalId: third.proposalId, outcome: 'invalidated' }]);
    expect(ofType(fourth, 'teaching.proposed')[0]).toMatchObject({ objectRef: drill, label: 'Cordless drill' });
    await client.turn(say('confirm object'));
    expect(textOf(await client.turn(scan(drill)))).toContain('This is "Cordless drill".');

    // response.cancel drops a staged proposal too.
    const fifth = ofType(await client.turn(say('teach object Big drill')), 'teaching.proposed')[0]!;
    client.send({ type: 'response.cancel' });
    expect(await client.until((event) => event.type === 'teaching.resolved')).toEqual([
      { type: 'teaching.resolved', proposalId: fifth.proposalId, outcome: 'cancelled' },
    ]);
    expect(textOf(await client.turn(scan(drill)))).toContain('This is "Cordless drill".');
  });

  it('keeps at most 32 labels per session, refuses the 33rd politely, and forgets everything with the connection', async () => {
    const server = await start();
    const client = await Client.session(server, ['nfc']);
    for (let index = 1; index <= maxTaughtLabels; index++) {
      await client.turn(scan(`urn:agentcall:object:item-${index}`));
      await client.turn(say(`teach object Item ${index}`));
      expect(ofType(await client.turn(say('confirm object')), 'teaching.resolved')).toHaveLength(1);
    }
    await client.turn(scan('urn:agentcall:object:item-33'));
    const refused = await client.turn(say('teach object Item 33'));
    expect(ofType(refused, 'teaching.proposed')).toEqual([]);
    expect(textOf(refused)).toMatch(/^Sorry, I can remember at most 32 objects/);
    expect(textOf(await client.turn(say('confirm object')))).toContain('There is nothing to confirm');
    expect(textOf(await client.turn(scan('urn:agentcall:object:item-33')))).toContain(unknownText);
    // Renaming a known object is still possible at the limit.
    await client.turn(scan('urn:agentcall:object:item-7'));
    expect(ofType(await client.turn(say('teach object Seventh item')), 'teaching.proposed')).toHaveLength(1);
    await client.turn(say('confirm object'));
    expect(textOf(await client.turn(scan('urn:agentcall:object:item-7')))).toContain('This is "Seventh item".');

    // Labels are bounded too.
    await client.turn(scan('urn:agentcall:object:item-1'));
    expect(textOf(await client.turn(say(`teach object ${'x'.repeat(257)}`)))).toContain('at most 256 characters');
    expect(ofType(await client.turn(say(`teach object ${'x'.repeat(256)}`)), 'teaching.proposed')).toHaveLength(1);

    client.send({ type: 'session.end' });
    expect((await client.closed).code).toBe(1000);
    const again = await Client.session(server, ['nfc']);
    expect(textOf(await again.turn(scan('urn:agentcall:object:item-1', { turn: 1 })))).toContain(unknownText);
  });
});

describe('the AgentCall demo agent: agent-requested collection', () => {
  it('asks for a scan and accepts exactly one observation carrying that interactionId and modality', async () => {
    const server = await start();
    const client = await Client.session(server, ['nfc', 'photo']);
    const asked = await client.turn(say(' SCAN AN OBJECT '));
    const [request] = ofType(asked, 'interaction.requested');
    expect(request).toEqual({
      type: 'interaction.requested',
      interactionId: expect.stringMatching(/^[A-Za-z0-9._:~-]{8,128}$/),
      kind: 'physical.nfc.scan',
      prompt: expect.any(String),
      spokenPrompt: expect.any(String),
      options: [],
      allowsFreeform: false,
    });
    const interactionId = request!.interactionId as string;

    // Only one request is pending.
    const twice = await client.turn(say('take a photo'));
    expect(ofType(twice, 'interaction.requested')).toEqual([]);
    expect(textOf(twice)).toContain('already waiting');

    // An unrelated scan without the id is processed normally but does not answer the request.
    const unrelated = await client.turn(scan(router));
    expect(ofType(unrelated, 'interaction.resolved')).toEqual([]);
    expect(textOf(unrelated)).toContain(unknownText);

    // Wrong modality (a photo for a scan request) and an unknown id: rejected, no action.
    const picture = await jpeg(64, 48);
    expect(await client.turn(photo(imageOf(picture, 64, 48), { interactionId }))).toEqual([
      { type: 'failure', code: 'interaction_mismatch', message: expect.stringContaining('NFC scan') },
    ]);
    expect(await client.turn(scan(drill, { interactionId: 'ia-not-the-one' }))).toEqual([
      { type: 'failure', code: 'interaction_mismatch', message: expect.any(String) },
    ]);
    // The rejected scan of the drill changed nothing: teaching still refers to the router.
    expect(ofType(await client.turn(say('teach object Router')), 'teaching.proposed')[0]).toMatchObject({ objectRef: router });
    await client.turn(say('cancel teaching'));

    // The right answer consumes it once.
    const answered = await client.turn(scan(drill, { interactionId }));
    expect(ofType(answered, 'interaction.resolved')).toEqual([{ type: 'interaction.resolved', interactionId, outcome: 'answered' }]);
    expect(textOf(answered)).toContain(unknownText);
    const again = await client.turn(scan(drill, { interactionId }));
    expect(again).toEqual([{ type: 'failure', code: 'interaction_mismatch', message: expect.stringContaining('already answered') }]);

    // A new request can be cancelled; its id is stale afterwards.
    const [second] = ofType(await client.turn(say('scan an object')), 'interaction.requested');
    expect(second!.interactionId).not.toBe(interactionId);
    client.send({ type: 'response.cancel' });
    expect(await client.until((event) => event.type === 'interaction.resolved')).toEqual([
      { type: 'interaction.resolved', interactionId: second!.interactionId, outcome: 'cancelled' },
    ]);
    expect(await client.turn(scan(drill, { interactionId: second!.interactionId as string }))).toEqual([
      { type: 'failure', code: 'interaction_mismatch', message: expect.any(String) },
    ]);
    expect(client.unread).toEqual([]);
  });

  it('asks only for modalities that are negotiated and in agentRequests, and rejects observations outside them', async () => {
    const server = await start({ modalities: { accepted: ['nfc', 'photo'], agentRequests: ['nfc'] } });
    const card = (await (await fetch(server.cardUrl)).json()) as { capabilities: { extensions: { params: Json }[] } };
    expect(card.capabilities.extensions[0]!.params.physicalObservations).toEqual({ accepted: ['nfc', 'photo'], agentRequests: ['nfc'] });

    const nfcOnly = await Client.session(server, ['nfc']);
    const cannot = await nfcOnly.turn(say('take a photo'));
    expect(ofType(cannot, 'interaction.requested')).toEqual([]);
    expect(textOf(cannot)).toContain('did not enable photos');
    const picture = await jpeg(32, 32);
    expect(await nfcOnly.turn(photo(imageOf(picture, 32, 32)))).toEqual([{ type: 'failure', code: 'modality_not_negotiated', message: expect.any(String) }]);

    const both = await Client.session(server, ['photo', 'nfc']);
    const notAsked = await both.turn(say('take a photo'));
    expect(ofType(notAsked, 'interaction.requested')).toEqual([]);
    expect(textOf(notAsked)).toContain('not set up to ask for photos');

    // Missing client capabilities mean the empty set.
    const none = await Client.session(server, null);
    expect(await none.turn(scan(router))).toEqual([{ type: 'failure', code: 'modality_not_negotiated', message: expect.any(String) }]);
    expect(textOf(await none.turn(say('teach object Router')))).toContain('Scan an object first');
    expect(textOf(await none.turn(say('what can you do?')))).toContain('not available');
  });
});

describe('the AgentCall demo agent: photos', () => {
  it('verifies a real JPEG before use, answers the photo request, and rejects forged ones without echoing bytes', async () => {
    const server = await start();
    const client = await Client.session(server, ['nfc', 'photo']);
    const bytes = await jpeg(640, 480);
    expect(bytes.length).toBeLessThan(61_440);
    const real = imageOf(bytes, 640, 480);

    const [request] = ofType(await client.turn(say('Take a photo')), 'interaction.requested');
    expect(request).toMatchObject({ kind: 'physical.photo.capture' });
    const interactionId = request!.interactionId as string;

    const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#0b7a75' } })
      .png()
      .toBuffer();
    const big = await jpeg(2000, 8);
    const forgeries: [string, ImageFields][] = [
      ['wrong byteCount', { ...real, byteCount: real.byteCount + 1 }],
      ['wrong hash', { ...real, sha256: sha256('something else') }],
      ['wrong width', { ...real, pixelWidth: 641 }],
      ['wrong height', { ...real, pixelHeight: 479 }],
      ['not a JPEG', { ...imageOf(png, 640, 480) }],
      ['truncated', imageOf(bytes.subarray(0, bytes.length - 200), 640, 480)],
      ['too wide', imageOf(big, 1000, 8)],
    ];
    for (const [what, image] of forgeries) {
      const events = await client.turn(photo(image, { interactionId }));
      expect(events, what).toEqual([{ type: 'failure', code: 'image_invalid', message: expect.any(String) }]);
      const message = events[0]!.message as string;
      expect(message.length).toBeLessThanOrEqual(500);
      expect(message).not.toContain(image.data.slice(0, 24));
    }
    // Non-canonical base64 (unused bits set in the last character) decodes to the same bytes, so its
    // byteCount and hash match; only the strict round trip catches it.
    let height = 480;
    let padded = bytes;
    while (padded.length % 3 === 0) padded = await jpeg(640, ++height);
    const relaxed = { ...imageOf(padded, 640, height), data: nonCanonical(padded.toString('base64')) };
    expect(Buffer.from(relaxed.data, 'base64').equals(padded)).toBe(true);
    expect(await client.turn(photo(relaxed, { interactionId }))).toEqual([
      { type: 'failure', code: 'image_invalid', message: expect.stringContaining('strict base64') },
    ]);

    // Not strict base64 (whitespace) is refused by the message schema itself.
    const loose = await client.turn(photo({ ...real, data: `${real.data.slice(0, 40)}\n${real.data.slice(40)}` }, { interactionId }));
    expect(loose).toEqual([{ type: 'failure', code: 'invalid_message', message: expect.any(String) }]);
    expect(loose[0]!.message).not.toContain(real.data.slice(0, 24));

    // The request survived every rejection; the real photo answers it.
    const answered = await client.turn(photo(real, { interactionId }));
    expect(ofType(answered, 'interaction.resolved')).toEqual([{ type: 'interaction.resolved', interactionId, outcome: 'answered' }]);
    expect(textOf(answered)).toContain(`I received a 640×480 photo (${bytes.length.toLocaleString('en-US')} bytes).`);
    expect(JSON.stringify(client.envelopes)).not.toContain(real.data.slice(0, 24));

    // A photo without a request is fine too; combined inputs need both modalities and report both.
    const objectScan = scan(router);
    const combined = { ...objectScan, observation: { ...objectScan.observation, image: real } };
    const both = textOf(await client.turn(combined));
    expect(both).toContain(unknownText);
    expect(both).toContain('640×480 photo');
  });
});

describe('the AgentCall demo agent: a long spoken answer ("tell me a story")', () => {
  it('keeps its run open while it tells the story a part at a time (each a stable speech.segment), then completes it', async () => {
    const server = await start({ storyPartMs: 20 });
    const client = await Client.session(server, []);
    client.send(say('tell me a story'));
    const events = await client.until((event) => event.type === 'run.completed');
    expect(events[0]).toMatchObject({ type: 'run.started' });
    const parts = ofType(events, 'speech.segment');
    expect(parts.map((part) => part.text)).toEqual([...demoStory]);
    expect(new Set(parts.map((part) => part.segmentId)).size).toBe(demoStory.length);
    expect(parts.every((part) => part.stable === true)).toBe(true);
    // Text and speech alternate: each part's text.delta comes with its segment.
    expect(events.slice(1, -1).map((event) => event.type)).toEqual(demoStory.flatMap(() => ['text.delta', 'speech.segment']));
    expect(textOf(events)).toBe(demoStory.join(' '));
  });

  it('response.cancel ends it at once: no further part, then run.completed; a turn sent while it is told ends it first (one run at a time); the log has the order of what arrived', async () => {
    const logger = memoryLogger();
    // Parts an hour apart: nothing but the first is told unless something ends it.
    const server = await start({ storyPartMs: 3_600_000, log: logger });
    const client = await Client.session(server, []);
    const storyTurn = nextTurn();
    client.send(say('story', storyTurn));
    expect((await client.until((event) => event.type === 'speech.segment')).map((event) => event.type)).toEqual([
      'run.started',
      'text.delta',
      'speech.segment',
    ]);
    client.send({ type: 'response.cancel' });
    expect(await client.until(() => true)).toEqual([{ type: 'run.completed', runId: `run-${storyTurn}` }]);
    const hello = nextTurn();
    const answer = await client.turn(say('hello', hello));
    expect(textOf(answer)).toContain("I'm the AgentDesk demo agent");
    expect(client.unread).toEqual([]);

    const again = nextTurn();
    client.send(say('tell me a story', again));
    await client.until((event) => event.type === 'speech.segment');
    const interrupting = nextTurn();
    client.send(say('hello', interrupting));
    const ended = await client.until((event) => event.type === 'run.completed');
    expect(ended).toEqual([{ type: 'run.completed', runId: `run-${again}` }]);
    expect(ofType(await client.until((event) => event.type === 'run.completed'), 'run.started')).toEqual([
      { type: 'run.started', runId: `run-${interrupting}` },
    ]);

    const received = logger.lines.filter((line) => line.startsWith('INFO [demo] AgentCall demo received')).map((line) => line.slice('INFO [demo] '.length));
    expect(received).toEqual([
      `AgentCall demo received user.turn (turn ${storyTurn})`,
      `AgentCall demo received response.cancel during run-${storyTurn} after 1 of ${demoStory.length} parts`,
      `AgentCall demo received user.turn (turn ${hello})`,
      `AgentCall demo received user.turn (turn ${again})`,
      `AgentCall demo received user.turn (turn ${interrupting})`,
    ]);
  });
});

describe('the AgentCall demo agent: transport rules', () => {
  it('closes with 1008 when the first message is not session.start', async () => {
    const server = await start();
    const early = await Client.open(server);
    early.send(say('hello'));
    expect(await early.until(() => true)).toEqual([{ type: 'failure', code: 'session_not_started', message: expect.any(String) }]);
    expect((await early.closed).code).toBe(1008);

    const garbage = await Client.open(server);
    garbage.ws.send('not json');
    expect(await garbage.until(() => true)).toEqual([{ type: 'failure', code: 'session_not_started', message: expect.any(String) }]);
    expect((await garbage.closed).code).toBe(1008);
  });

  it('rejects replayed turns without side effects and keeps the session', async () => {
    const server = await start();
    const client = await Client.session(server, ['nfc']);
    await client.turn(scan(router, { turn: 10 }));
    const proposal = ofType(await client.turn(say('teach object Workshop router', 11)), 'teaching.proposed')[0]!;
    // A replayed confirmation does not confirm; a replayed scan of another object does not invalidate.
    expect(await client.turn(say('confirm object', 11))).toEqual([{ type: 'failure', code: 'turn_replayed', message: expect.any(String) }]);
    expect(await client.turn(scan(drill, { turn: 5 }))).toEqual([{ type: 'failure', code: 'turn_replayed', message: expect.any(String) }]);
    expect(textOf(await client.turn(scan(router, { turn: 12 })))).toContain('still waiting');
    const confirmed = await client.turn(say('confirm object', 13));
    expect(ofType(confirmed, 'teaching.resolved')).toEqual([{ type: 'teaching.resolved', proposalId: proposal.proposalId, outcome: 'confirmed' }]);

    // Malformed messages after the start get a failure; the session goes on.
    client.send({ type: 'user.turn', turn: 14 });
    expect(await client.until(() => true)).toEqual([{ type: 'failure', code: 'invalid_message', message: expect.any(String) }]);
    client.send({ type: 'ack', sequence: 1 });
    expect(textOf(await client.turn(scan(router, { turn: 15 })))).toContain('This is "Workshop router".');
  });

  it('closes on binary frames (1003) and oversized frames (1009)', async () => {
    const server = await start();
    const binary = await Client.session(server);
    binary.ws.send(Buffer.from(JSON.stringify(say('hello'))));
    expect((await binary.closed).code).toBe(1003);

    const oversized = await Client.session(server);
    oversized.send(say('x'.repeat(128 * 1024)));
    expect((await oversized.closed).code).toBe(1009);
    expect(oversized.unread).toEqual([]);
  });

  it('starts beside the Talkie demo in `startDemo` and closes with it', async () => {
    const demo = await startDemo();
    try {
      expect(demo.agentCallCardUrl).toBe(`${demo.agentCallBaseUrl}/.well-known/agent-card.json`);
      const card = (await (await fetch(demo.agentCallCardUrl)).json()) as Json;
      expect(card.name).toBe('AgentDesk demo agent');
    } finally {
      await demo.close();
    }
    await expect(fetch(demo.agentCallCardUrl)).rejects.toThrow();
  });
});
