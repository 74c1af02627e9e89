import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Modality } from '../../../src/shared/agentcall/protocol';
import { agentCallSteps } from '../../../src/main/cli/agentcall-conformance';
import { chat } from '../../../src/main/cli/chat';
import { conformance } from '../../../src/main/cli/conformance';
import { cardCases } from '../agentcall/card-cases';
import { captureIo as capture, chatInput as input, demoPhotoExchange, objectPhoto, quietChat, useChatDemo } from '../../support/agentcall/chat-demo';
import { useTempDirs } from '../../support/temp-dir';

/**
 * `agentdesk chat` and `agentdesk conformance` for AgentCall agents: against the real demo agent
 * (startAgentCallDemoServer on 127.0.0.1), and against small deliberately broken agents written
 * here (a real HTTP server with a card and a real WebSocket endpoint), each with one flaw.
 */

const { demo, closeAfter } = useChatDemo();
const tempDir = useTempDirs();

// ---- a small AgentCall agent with switchable flaws ------------------------------------------------

interface Flaws {
  /** Stores the label as soon as it hears "teach object", without confirmation. */
  eagerMemory?: boolean;
  /** Never ends a run. */
  neverComplete?: boolean;
  /** Sends its third envelope with sequence 2 again. */
  repeatSequence?: boolean;
  /** Resolves any observation that carries an interactionId, any number of times, whatever it holds. */
  lenientInteractions?: boolean;
  /** physicalObservations.agentRequests on the card (default none). */
  requests?: Modality[];
  /** Overrides the card. */
  card?: (aguiUrl: string) => unknown;
}

interface TestAgent {
  url: string;
  /** Every client message, parsed. */
  received: Record<string, unknown>[];
}

function validCard(aguiUrl: string, requests: Modality[]) {
  const card = structuredClone(cardCases.find((entry) => entry.name === 'minimal valid websocket card')!.card) as {
    name: string;
    capabilities: { extensions: { params: { agui: { url: string }; physicalObservations: { accepted: Modality[]; agentRequests: Modality[] } } }[] };
  };
  card.name = 'Flawed test agent';
  const params = card.capabilities.extensions[0]!.params;
  params.agui.url = aguiUrl;
  params.physicalObservations = { accepted: ['nfc', 'photo'], agentRequests: requests };
  return card;
}

async function flawedAgent(flaws: Flaws, script?: (message: Record<string, unknown>, agent: AgentSide) => boolean): Promise<TestAgent> {
  const sockets = new Set<Socket>();
  const received: Record<string, unknown>[] = [];
  let origin = '';
  const server: Server = createServer((request, response) => {
    if (request.url === '/.well-known/agent-card.json') {
      const aguiUrl = `${origin}/agui`;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      return void response.end(JSON.stringify(flaws.card ? flaws.card(aguiUrl) : validCard(aguiUrl, flaws.requests ?? [])));
    }
    response.writeHead(404).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    if (request.url !== '/agui') return void socket.destroy();
    wss.handleUpgrade(request, socket, head, (ws) => {
      const side = new AgentSide(ws, flaws);
      ws.on('message', (data) => {
        const message = JSON.parse(String(data)) as Record<string, unknown>;
        received.push(message);
        if (!script?.(message, side)) side.handle(message);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeAfter(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        for (const socket of sockets) socket.destroy();
        wss.close();
        server.close(() => resolve());
      }),
  );
  return { url: origin, received };
}

class AgentSide {
  private sent = 0;
  private focus: string | undefined;
  private proposal: { objectRef: string; label: string } | undefined;
  private readonly labels = new Map<string, string>();
  private pending: { id: string; modality: Modality } | undefined;
  private ids = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly flaws: Flaws,
  ) {}

  emit(event: Record<string, unknown>): void {
    this.sent += 1;
    const sequence = this.flaws.repeatSequence && this.sent === 3 ? 2 : this.sent;
    this.ws.send(JSON.stringify({ sequence, event }));
  }

  reply(text: string, before: Record<string, unknown>[] = []): void {
    this.emit({ type: 'run.started' });
    for (const event of before) this.emit(event);
    this.emit({ type: 'text.delta', text });
    if (!this.flaws.neverComplete) this.emit({ type: 'run.completed' });
  }

  handle(message: Record<string, unknown>): void {
    switch (message.type) {
      case 'session.start':
        return this.emit({ type: 'session.established', resumed: false });
      case 'user.turn':
        return this.text(String(message.text));
      case 'user.observation':
        return this.observation(message);
      case 'session.end':
        return this.ws.close(1000, 'bye');
    }
  }

  private text(text: string): void {
    const request = text === 'scan an object' ? 'nfc' : text === 'take a photo' ? 'photo' : undefined;
    if (request && (this.flaws.requests ?? []).includes(request)) {
      this.pending = { id: `ia-${++this.ids}`, modality: request };
      const kind = request === 'nfc' ? 'physical.nfc.scan' : 'physical.photo.capture';
      return this.reply('Please do.', [
        { type: 'interaction.requested', interactionId: this.pending.id, kind, prompt: 'Please do.', options: [], allowsFreeform: false },
      ]);
    }
    const teach = /^teach object (.+)$/.exec(text);
    if (teach && this.focus) {
      this.proposal = { objectRef: this.focus, label: teach[1]! };
      if (this.flaws.eagerMemory) this.labels.set(this.focus, teach[1]!);
      return this.reply('Say confirm object.');
    }
    if (text === 'confirm object' && this.proposal) {
      this.labels.set(this.proposal.objectRef, this.proposal.label);
      this.proposal = undefined;
      return this.reply('Saved.');
    }
    if (text === 'cancel teaching') {
      this.proposal = undefined;
      return this.reply('Dropped.');
    }
    this.reply('Hello.');
  }

  private observation(message: Record<string, unknown>): void {
    const observation = message.observation as { object?: { objectRef: string }; image?: unknown };
    const before: Record<string, unknown>[] = [];
    if (typeof message.interactionId === 'string') {
      const pending = this.pending;
      const fits = pending && pending.id === message.interactionId && (pending.modality === 'nfc' ? observation.object : observation.image);
      if (!fits && !this.flaws.lenientInteractions) return this.emit({ type: 'failure', code: 'interaction_mismatch', message: 'No.' });
      if (!this.flaws.lenientInteractions) this.pending = undefined;
      before.push({ type: 'interaction.resolved', interactionId: message.interactionId, outcome: 'answered' });
    }
    const ref = observation.object?.objectRef;
    if (ref === undefined) return this.reply('A photo.', before);
    if (this.proposal && this.proposal.objectRef !== ref) this.proposal = undefined;
    this.focus = ref;
    const label = this.labels.get(ref);
    this.reply(label === undefined ? 'Unknown object.' : `This is "${label}".`, before);
  }
}

const lineFor = (lines: string[], step: string) => lines.find((line) => line.slice(5).startsWith(`${step}:`));
const verdicts = (lines: string[]) => Object.fromEntries(agentCallSteps.map((step) => [step, lineFor(lines, step)?.slice(0, 4)]));

// ---- conformance -------------------------------------------------------------------------------

describe('agentdesk conformance against AgentCall agents', () => {
  it('passes every step against the built-in demo agent, one line per step', async () => {
    const server = await demo();
    const io = capture();
    const code = await conformance(server.baseUrl, { dev: true, json: false, waitExpiry: false }, io);
    expect(io.lines.filter((line) => !line.startsWith('PASS'))).toEqual([`${agentCallSteps.length} passed, 0 failed`]);
    expect(io.lines.map((line) => line.slice(5, line.indexOf(':')))).toEqual([...agentCallSteps, expect.any(String)]);
    expect(code).toBe(0);
    expect(lineFor(io.lines, 'photo request answered')).toMatch(/a 64×48 JPEG \(\d+ bytes\) answered the request/);
    expect(lineFor(io.lines, 'wrong-modality answer rejected')).toContain('failure interaction_mismatch');
  }, 60_000);

  it('prints one JSON object with --json and needs the token the card asks for', async () => {
    const token = 'conformance-token-0123456789';
    const server = await demo({ token });
    const io = capture();
    expect(await conformance(server.baseUrl, { dev: true, json: true, waitExpiry: false, token }, io)).toBe(0);
    expect(io.lines).toHaveLength(1);
    const report = JSON.parse(io.lines[0]!) as { ok: boolean; protocol: string; checks: { name: string; ok: boolean }[] };
    expect(report).toMatchObject({ ok: true, protocol: 'agentcall' });
    expect(report.checks.map((check) => check.name)).toEqual([...agentCallSteps]);

    const without = capture();
    expect(await conformance(server.baseUrl, { dev: true, json: false, waitExpiry: false }, without)).toBe(2);
    expect(without.lines).toContain('stderr: AgentDesk demo agent requires a bearer token: pass --token T (or set AGENTDESK_TOKEN).');
  }, 60_000);

  it('fails the teaching steps for an agent that stores a label without confirmation', async () => {
    const agent = await flawedAgent({ eagerMemory: true });
    const io = capture();
    expect(await conformance(agent.url, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 5_000 }, io)).toBe(1);
    expect(verdicts(io.lines)).toEqual({
      'card discovered and valid': 'PASS',
      'session.start → session.established': 'PASS',
      'text turn → run.started … run.completed': 'PASS',
      'unknown object answered': 'PASS',
      'teach object': 'PASS',
      'no label before confirm': 'FAIL',
      'confirm object': 'PASS',
      'rescan names the label': 'PASS',
      'another reference stays unknown': 'PASS',
      'cancel teaching': 'FAIL',
      'new object invalidates the proposal': 'FAIL',
      'scan request (physical.nfc.scan)': 'SKIP',
      'wrong-modality answer rejected': 'SKIP',
      'scan request answered': 'SKIP',
      'same interactionId again rejected': 'SKIP',
      'photo request (physical.photo.capture)': 'SKIP',
      'photo request answered': 'SKIP',
      'session.end closes the session': 'PASS',
      'sequences strictly increasing': 'PASS',
      'every frame well-formed': 'PASS',
    });
    expect(lineFor(io.lines, 'no label before confirm')).toMatch(
      /^FAIL no label before confirm: the rescan names "Conformance [0-9a-f]{8}" before "confirm object": "This is \\"Conformance [0-9a-f]{8}\\"\."$/,
    );
    expect(lineFor(io.lines, 'cancel teaching')).toMatch(/after "cancel teaching" the rescan names "Conformance [0-9a-f]{8}"/);
    expect(lineFor(io.lines, 'scan request (physical.nfc.scan)')).toBe('SKIP scan request (physical.nfc.scan): the card does not list nfc in agentRequests');
    expect(io.lines.at(-1)).toBe('11 passed, 3 failed, 6 skipped');
  }, 60_000);

  it('fails with what it waited for when an agent never sends run.completed', async () => {
    const agent = await flawedAgent({ neverComplete: true });
    const io = capture();
    expect(await conformance(agent.url, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 300 }, io)).toBe(1);
    expect(lineFor(io.lines, 'session.start → session.established')).toMatch(/^PASS/);
    expect(lineFor(io.lines, 'text turn → run.started … run.completed')).toBe(
      'FAIL text turn → run.started … run.completed: timed out after 0.3 s waiting for run.completed',
    );
    expect(lineFor(io.lines, 'unknown object answered')).toBe(
      'FAIL unknown object answered: timed out after 0.3 s waiting for the answer to an unknown object',
    );
  }, 60_000);

  it('fails the sequence step when an envelope repeats a sequence number', async () => {
    const agent = await flawedAgent({ repeatSequence: true });
    const io = capture();
    expect(await conformance(agent.url, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 5_000 }, io)).toBe(1);
    expect(lineFor(io.lines, 'sequences strictly increasing')).toBe(
      'FAIL sequences strictly increasing: sequence 2 after 2 (went back or repeated); 4 after 2 (skipped 1)',
    );
    expect(io.lines.filter((line) => line.startsWith('FAIL'))).toHaveLength(1);
  }, 60_000);

  it('fails the interaction steps for an agent that accepts any answer, any number of times', async () => {
    const agent = await flawedAgent({ lenientInteractions: true, requests: ['nfc', 'photo'] });
    const io = capture();
    expect(await conformance(agent.url, { dev: true, json: false, waitExpiry: false, stepTimeoutMs: 5_000 }, io)).toBe(1);
    expect(lineFor(io.lines, 'scan request (physical.nfc.scan)')).toMatch(/^PASS/);
    expect(lineFor(io.lines, 'wrong-modality answer rejected')).toBe(
      'FAIL wrong-modality answer rejected: a photo answering the scan request was not rejected with a failure: "A photo."',
    );
    expect(lineFor(io.lines, 'same interactionId again rejected')).toMatch(
      /^FAIL same interactionId again rejected: a second answer with the same interactionId was not rejected/,
    );
    expect(lineFor(io.lines, 'photo request answered')).toMatch(/^PASS/);
    // The wire shows why: the agent resolved the scan request for the photo.
    const photoAnswer = agent.received.find(
      (message) => message.type === 'user.observation' && (message.observation as { image?: unknown }).image !== undefined,
    );
    expect(photoAnswer).toMatchObject({ interactionId: 'ia-1' });
  }, 60_000);

  it('reports an agent card AgentDesk cannot use as a failed first step (exit 1)', async () => {
    const card = cardCases.find((entry) => entry.name === 'unknown required extension')!.card;
    const agent = await flawedAgent({ card: () => card });
    const io = capture();
    expect(await conformance(agent.url, { dev: true, json: false, waitExpiry: false }, io)).toBe(1);
    expect(io.lines[0]).toMatch(
      /^FAIL card discovered and valid: AgentDesk cannot talk to this agent: The card requires the extension "https:\/\/other\.example\/ext\/secret\/1"/,
    );
    expect(io.lines.filter((line) => line.startsWith('SKIP'))).toHaveLength(agentCallSteps.length - 1);
  });
});

// ---- chat --------------------------------------------------------------------------------------

describe('agentdesk chat with AgentCall agents', () => {
  it('runs a text session with the demo: text, an agent-requested photo answered from a file, refusals explained', async () => {
    const server = await demo();
    const file = await objectPhoto(await tempDir());
    const io = capture();
    const code = await chat(
      server.baseUrl,
      { dev: true },
      io,
      input('hello', 'take a photo', `/photo ${file}`, '/scan', '/decline', '/confirm', '/photo', '/bogus', '/quit', 'never read'),
      quietChat,
    );
    expect(code).toBe(0);
    const port = new URL(server.baseUrl).port;
    expect(io.lines).toEqual([
      `Connected to AgentDesk demo agent (AgentCall, 127.0.0.1:${port}); this session can send photo. Type a message; /help lists commands; /quit leaves.`,
      '(NFC is turned off for this chat.)',
      ...demoPhotoExchange,
      '[not sent: no_pending_interaction] The agent is not waiting for a scan or photo.',
      'No teaching proposal is shown. Type the agent’s confirmation text yourself if it asked for one.',
      'Usage: /photo <file> [intent]',
      'Unknown command /bogus. /help lists commands; start a message with // to send text that begins with /.',
    ]);
  }, 60_000);

  it('shows a teaching proposal and /confirm sends its confirmText; /decline sends response.cancel; end of input sends session.end', async () => {
    const agent = await flawedAgent({ requests: ['photo'] }, (message, side) => {
      if (message.type === 'user.turn' && message.text === 'teach me') {
        side.reply('I can remember it once you confirm.', [
          {
            type: 'teaching.proposed',
            proposalId: 'p-1',
            objectRef: 'urn:agentcall:object:lamp',
            label: 'Desk lamp',
            confirmText: 'yes, remember it',
            cancelText: 'no',
          },
        ]);
        return true;
      }
      if (message.type === 'user.turn' && message.text === 'yes, remember it') {
        side.reply('Remembered.', [{ type: 'teaching.resolved', proposalId: 'p-1', outcome: 'confirmed' }]);
        return true;
      }
      return false;
    });
    const io = capture();
    expect(await chat(agent.url, { dev: true }, io, input('teach me', '/confirm', 'take a photo', '/decline', '//slash text'), quietChat)).toBe(0);
    expect(io.lines.slice(2)).toEqual([
      '[teaching] The agent proposes to remember "urn:agentcall:object:lamp" as "Desk lamp". Nothing is stored until you confirm: type /confirm (sends "yes, remember it") or /cancel-teaching (sends "no").',
      'agent: I can remember it once you confirm.',
      '[teaching "Desk lamp" confirmed]',
      'agent: Remembered.',
      '[request photo] Please do. (type /photo <file> to send a picture, or /decline)',
      'agent: Please do.',
      '[request declined]',
      'agent: Hello.',
    ]);
    const sent = agent.received
      .map((message) => (message.type === 'user.turn' ? `turn ${String(message.turn)}: ${String(message.text)}` : message.type))
      .filter((entry) => entry !== 'ack');
    expect(sent).toEqual([
      'session.start',
      'turn 1: teach me',
      'turn 2: yes, remember it',
      'turn 3: take a photo',
      'response.cancel',
      'turn 4: /slash text',
      'session.end',
    ]);
    expect(agent.received[0]).toMatchObject({ clientCapabilities: { physicalObservations: { modalities: ['photo'] } } });
  }, 60_000);

  it('prints failures with their code and strips terminal control characters from agent text', async () => {
    const agent = await flawedAgent({}, (message, side) => {
      if (message.type !== 'user.turn') return false;
      if (message.text === 'fail') side.emit({ type: 'failure', code: 'quota_exceeded', message: 'Too many\nrequests.' });
      else side.reply('\u001b[31mred\u001b[0m and \u202eevil');
      return true;
    });
    const io = capture();
    expect(await chat(agent.url, { dev: true }, io, input('fail', 'color'), quietChat)).toBe(0);
    expect(io.lines.slice(2)).toEqual(['[failure quota_exceeded] Too many requests.', 'agent: [31mred[0m and evil']);
  }, 60_000);
});
