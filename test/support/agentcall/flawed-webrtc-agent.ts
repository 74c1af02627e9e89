import * as ndc from 'node-datachannel';
import { WebSocket } from 'ws';
import { webrtcAgentCard } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { gatheredDescription, offerAudioMid } from '../../../src/main/demo/voice/realtime-provider';
import { keepUntilExit } from '../../../src/main/platform/keep-until-exit';
import { startServer, type TestServer } from '../http-server';

/**
 * A deliberately flawed agentcall-webrtc-0.1 agent on 127.0.0.1, for `agentdesk conformance` tests: its
 * card and SDP endpoint are its own (a node-datachannel answerer with one sendrecv Opus track), and the
 * app's agentcall.events channel is relayed to a real AgentCall agent's WebSocket (the demo's), so the
 * whole reference proof passes except where a flaw is switched on. Each flaw breaks one profile rule.
 */
export interface WebrtcFlaws {
  /** Rewrites the SDP answer before it is sent (stereo Opus, a recvonly track, …). */
  answer?: (sdp: string) => string;
  /** The card requires a bearer token, and the endpoint answers offers with or without one. */
  bearerIgnored?: boolean;
  /** Once the app's channel is open, the agent opens a data channel of its own. */
  extraChannel?: { label: string; protocol?: string };
  /** A first message other than session.start gets a session anyway (the relay starts one for it). */
  lenientStart?: boolean;
  /** The third envelope on the channel carries the second one's sequence again. */
  repeatSequence?: boolean;
}

export interface FlawedWebrtcAgent {
  cardUrl: string;
  server: TestServer;
  /** The Authorization header of every SDP POST (undefined when there was none). */
  readonly authorizations: (string | undefined)[];
  close(): void;
}

/** `wsUrl`: the real agent's AG-UI WebSocket (e.g. the demo's `${aguiUrl}` with ws:). */
export async function startFlawedWebrtcAgent(wsUrl: string, flaws: WebrtcFlaws): Promise<FlawedWebrtcAgent> {
  const peers: { close(): void }[] = [];
  const authorizations: (string | undefined)[] = [];
  const server = await startServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path === '/.well-known/agent-card.json') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify(
          webrtcAgentCard(`http://${request.headers.host}`, { accepted: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'] }, flaws.bearerIgnored === true),
        ),
      );
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    authorizations.push(request.headers.authorization);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const peer = answerer(Buffer.concat(chunks).toString('utf8'), wsUrl, flaws);
      peers.push(peer);
      peer.answer.then(
        (sdp) => {
          const body = flaws.answer ? flaws.answer(sdp) : sdp;
          response.writeHead(201, { 'Content-Type': 'application/sdp', 'Content-Length': Buffer.byteLength(body) });
          response.end(body);
        },
        () => {
          response.writeHead(400).end();
        },
      );
    });
  });
  return {
    cardUrl: `${server.origin}/.well-known/agent-card.json`,
    server,
    authorizations,
    close: () => {
      for (const peer of peers.splice(0)) peer.close();
    },
  };
}

function answerer(offer: string, wsUrl: string, flaws: WebrtcFlaws) {
  const pc = new ndc.PeerConnection('flawed-agentcall', { iceServers: [], bindAddress: '127.0.0.1' });
  const audio = new ndc.Audio(offerAudioMid(offer) ?? '0', 'SendRecv');
  audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
  audio.addSSRC(0x0f1a_0001, 'flawed', 'flawed-stream', 'flawed-audio');
  const kept: unknown[] = [pc, pc.addTrack(audio)];
  let socket: WebSocket | undefined;
  const close = () => {
    keepUntilExit(...kept);
    socket?.close();
    for (const item of kept.slice().reverse()) {
      try {
        (item as { close(): void }).close();
      } catch {
        // already closed
      }
    }
  };
  pc.onDataChannel((channel) => {
    kept.push(channel);
    try {
      if (flaws.extraChannel)
        kept.push(pc.createDataChannel(flaws.extraChannel.label, flaws.extraChannel.protocol ? { protocol: flaws.extraChannel.protocol } : {}));
      relay(channel, wsUrl, flaws, (ws) => (socket = ws));
    } catch {
      // never throw inside node-datachannel callbacks
    }
  });
  return { answer: gatheredDescription(pc, () => pc.setRemoteDescription(offer, 'offer')), close };
}

/** The app's channel ↔ the real agent's WebSocket, with the sequence and first-message flaws. */
function relay(channel: ndc.DataChannel, wsUrl: string, flaws: WebrtcFlaws, socketMade: (ws: WebSocket) => void): void {
  const ws = new WebSocket(wsUrl);
  socketMade(ws);
  const pending: string[] = [];
  let first = true;
  let envelopes = 0;
  let lastSequence = 0;
  const toAgent = (text: string) => (ws.readyState === WebSocket.OPEN ? ws.send(text) : pending.push(text));
  ws.on('open', () => {
    for (const text of pending.splice(0)) ws.send(text);
  });
  ws.on('message', (data) => {
    let text = String(data);
    envelopes += 1;
    if (flaws.repeatSequence) {
      const envelope = JSON.parse(text) as { sequence: number };
      if (envelopes === 3) envelope.sequence = lastSequence;
      else lastSequence = envelope.sequence;
      text = JSON.stringify(envelope);
    }
    try {
      if (channel.isOpen()) channel.sendMessage(text);
    } catch {
      // closed
    }
  });
  ws.on('close', () => {
    try {
      channel.close();
    } catch {
      // already closed
    }
  });
  ws.on('error', () => undefined);
  channel.onMessage((message) => {
    if (typeof message !== 'string') return;
    try {
      if (first) {
        first = false;
        const type = (JSON.parse(message) as { type?: string }).type;
        if (type !== 'session.start' && flaws.lenientStart)
          toAgent(JSON.stringify({ type: 'session.start', sessionId: 'lenient', clientCapabilities: { physicalObservations: { modalities: [] } } }));
      }
      toAgent(message);
    } catch {
      // never throw inside node-datachannel callbacks
    }
  });
  channel.onClosed(() => ws.close());
}
