import type { IncomingMessage, ServerResponse } from 'node:http';
import * as ndc from 'node-datachannel';
import { keepUntilExit } from '../../src/main/platform/keep-until-exit';
import { gatheredDescription } from '../../src/main/demo/voice/realtime-provider';
import { json, manifestFor, startLoopbackServer, type TestServer } from './loopback-server';

/**
 * A loopback Talkie 1 server that offers voice (§10, test mode) and its signalling host, recording every
 * request with headers and body, so tests can prove where the client secret went. The SDP answer is a
 * fixed description by default; `ndcAnswerer()` makes a real node-datachannel one (Opus sendrecv and
 * `oai-events`, `session.created` on open) for checks that connect. Used by the VoiceService tests, the
 * `agentdesk conformance` voice tests and `npm run bench:voice` (so nothing here imports vitest).
 */
export const voiceSecret = 'ek_SECRET_voice_key_0123456789abcdef';
export const staticAnswerSdp = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n';

export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Reads the body, records the whole request, then answers. */
export function recording(seen: Seen[], handler: (request: Seen, response: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      seen.push(request);
      handler(request, res);
    });
  };
}

export interface VoiceFixtureOptions {
  /** The manifest's `capabilities.voice.signalingHosts` (default: the signalling server's host:port). */
  signalingHosts?: (signaling: TestServer) => string[];
  /** Makes the SDP answer to an offer (default: `staticAnswerSdp`). */
  answer?: (offer: string) => Promise<string>;
  /** Starts each server; tests pass `startServer` so they close after each test (default: the caller closes them with `close()`). */
  start?: typeof startLoopbackServer;
  /** The manifest's `capabilities.actions.voiceConfirm` (default true). */
  voiceConfirm?: boolean;
}

export interface VoiceFixture {
  talkie: TestServer;
  signaling: TestServer;
  /** Requests to the Talkie server, with headers and bodies. */
  talkieSeen: Seen[];
  /** Requests to the signalling host. */
  signalingSeen: Seen[];
  /** What the next `POST voiceSessions` answers (mutable per test). */
  session: Record<string, unknown>;
  /** How the signalling host answers the SDP POST (default: the answer, once per secret). */
  sdp: { respond: (response: ServerResponse, request: Seen) => void };
  /** How the servers behave (mutable per test). */
  rules: {
    /** A second SDP POST with a secret already used gets 401 (default true). */
    singleUseSecret: boolean;
    /** A reused voiceTool callId gets 409 (default true). */
    toolConflicts: boolean;
  };
  /** callIds the voiceTool endpoint has seen. */
  toolCalls: string[];
  /** The server's `confirm.methods` per action id, as GET action answers it (mutable per test). */
  policies: Record<string, string[]>;
  close(): Promise<void>;
}

/** What the fixture's server proposes from its `propose` tools, by action id. */
export function proposedAction(id: string, methods: string[]) {
  return {
    id,
    version: 1,
    threadId: 't_voice',
    summary: `Send offer ${id}`,
    riskLevel: 'low',
    status: 'pending',
    paramsHash: `sha256:${id}`,
    confirm: { methods, voice: { keyword: 'send' } },
  };
}

const voiceEndpoints = {
  voiceSessions: '/voice/sessions',
  voiceTool: '/voice/{voiceSessionId}/tools/{name}',
  voiceTranscript: '/voice/{voiceSessionId}/transcript',
  voiceUsage: '/voice/{voiceSessionId}/usage',
};

export async function startVoiceFixture(options: VoiceFixtureOptions = {}): Promise<VoiceFixture> {
  const start = options.start ?? startLoopbackServer;
  const talkieSeen: Seen[] = [];
  const signalingSeen: Seen[] = [];
  const toolCalls: string[] = [];
  const rules = { singleUseSecret: true, toolConflicts: true };
  const policies: Record<string, string[]> = { a_voice: ['button', 'voice'], a_button: ['button'] };
  const decided: Record<string, boolean> = {};
  const spent = new Set<string>();
  const answer = options.answer ?? (async () => staticAnswerSdp);
  const sdp: VoiceFixture['sdp'] = {
    respond: (res, request) => {
      const secret = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (rules.singleUseSecret && spent.has(secret))
        return json(res, 401, { error: { code: 'unauthorized', message: 'This client secret was already used.', retryable: false } });
      spent.add(secret);
      answer(request.body).then(
        (description) => void (res.writeHead(201, { 'Content-Type': 'application/sdp' }), res.end(description)),
        () => json(res, 400, { error: { code: 'invalid_request', message: 'The offer was refused.', retryable: false } }),
      );
    },
  };
  const signaling = await start(recording(signalingSeen, (request, res) => sdp.respond(res, request)));
  const session: Record<string, unknown> = {
    voiceSessionId: 'v_1',
    threadId: 't_voice',
    transport: 'webrtc',
    eventProtocol: 'openai-realtime/1',
    signaling: { type: 'sdp-post', url: `${signaling.origin}/v1/realtime/calls` },
    clientSecret: voiceSecret,
    expiresAt: new Date(Date.now() + 60_000).toISOString(),
    maxSeconds: 900,
    warnSeconds: 60,
    locale: 'cs',
    labels: { search_records: 'Hledám v CRM…' },
    consent: { confirm: ['potvrzuji'], refuse: ['zruš'] },
  };
  const talkie = await start(
    recording(talkieSeen, (request, res) => {
      const origin = `http://127.0.0.1:${(res.socket?.localPort ?? 0).toString()}`;
      if (request.path === '/.well-known/talkie.json') {
        return json(
          res,
          200,
          manifestFor(origin, {
            endpoints: { ...manifestFor('x').endpoints, ...voiceEndpoints },
            capabilities: {
              voice: {
                transports: ['webrtc'],
                eventProtocols: ['openai-realtime/1'],
                signalingHosts: options.signalingHosts?.(signaling) ?? [signaling.origin.replace('http://', '')],
              },
              actions: { voiceConfirm: options.voiceConfirm ?? true },
            },
          }),
        );
      }
      if (request.path === '/voice/sessions') return json(res, 201, session);
      if (request.path.startsWith('/voice/v_1/tools/')) {
        const { callId } = JSON.parse(request.body) as { callId: string };
        if (rules.toolConflicts && toolCalls.includes(callId))
          return json(res, 409, { error: { code: 'conflict', message: 'This call was already made.', retryable: false } });
        toolCalls.push(callId);
        if (request.path.endsWith('/broken')) return json(res, 500, { error: { code: 'internal', message: 'The CRM is down.', retryable: true } });
        if (request.path.endsWith('/propose'))
          return json(res, 200, {
            ok: true,
            output: 'Say yes to send it.',
            events: [{ type: 'CUSTOM', name: 'talkie.action', value: proposedAction('a_voice', ['button', 'voice']) }],
          });
        if (request.path.endsWith('/propose_button'))
          return json(res, 200, {
            ok: true,
            output: 'Press Confirm to send it.',
            events: [{ type: 'CUSTOM', name: 'talkie.action', value: proposedAction('a_button', ['button']) }],
          });
        return json(res, 200, {
          ok: true,
          output: 'Found 2 records.',
          events: [{ type: 'CUSTOM', name: 'talkie.card', value: { id: 'c1', title: 'Records', fallbackText: 'Two records' } }],
        });
      }
      const actionPath = /^\/actions\/([^/]+)(\/decision)?$/.exec(request.path);
      if (actionPath) {
        const id = decodeURIComponent(actionPath[1] ?? '');
        // The server's policy now (a test may change it after the proposal was read out).
        const action = { ...proposedAction(id, policies[id] ?? ['button']), ...(decided[id] ? { status: 'done' } : {}) };
        if (!actionPath[2]) return json(res, 200, action);
        if ((JSON.parse(request.body) as { paramsHash?: string }).paramsHash !== action.paramsHash)
          return json(res, 409, { error: { code: 'stale', message: 'The proposal changed.', retryable: false } });
        decided[id] = true;
        return json(res, 200, {
          action: { ...action, status: 'done' },
          events: [{ type: 'CUSTOM', name: 'talkie.card', value: { id: `sent_${id}`, fallbackText: 'Sent.' } }],
        });
      }
      if (request.path === '/status') return json(res, 200, { user: { id: 'u1', name: 'Jana' }, chat: true, voice: false, usage: [] });
      if (request.path === '/voice/v_1/transcript') return json(res, 201, {});
      if (request.path === '/voice/v_1/usage') {
        const { seconds } = JSON.parse(request.body) as { seconds: number };
        return json(res, 200, { ok: true, remainingSeconds: 900 - seconds - 5 });
      }
      json(res, 404, { error: { code: 'not_found', message: 'no', retryable: false } });
    }),
  );
  return {
    talkie,
    signaling,
    talkieSeen,
    signalingSeen,
    session,
    sdp,
    rules,
    toolCalls,
    policies,
    close: async () => void (await Promise.all([talkie.close(), signaling.close()])),
  };
}

/** One answered offer: the provider side of a call (strong refs to the PC, its track and channel: a collected one stops receiving). */
export interface AnsweredCall {
  readonly pc: ndc.PeerConnection;
  readonly track: ndc.Track;
  channel?: ndc.DataChannel;
}

export interface NdcAnswerer {
  /** Answers an offer with one sendrecv Opus track; on `oai-events` it sends `session.created` once open. */
  answer(offer: string): Promise<string>;
  readonly calls: readonly AnsweredCall[];
  /** Every text message the offerers sent on `oai-events`, with its call. */
  onClientMessage?: (text: string, call: AnsweredCall) => void;
  /** Sends one event on a call's `oai-events` (never throws). */
  send(call: AnsweredCall, event: Record<string, unknown>): void;
  /** Closes every peer (the process owner then runs ndc.cleanup() once). */
  close(): void;
}

/** A node-datachannel answerer on 127.0.0.1 standing in for the speech provider. */
export function ndcAnswerer(): NdcAnswerer {
  const calls: AnsweredCall[] = [];
  const answerer: NdcAnswerer = {
    calls,
    send(call, event) {
      try {
        if (call.channel?.isOpen()) call.channel.sendMessage(JSON.stringify(event));
      } catch {
        // never throw inside node-datachannel callbacks
      }
    },
    answer(offer) {
      const pc = new ndc.PeerConnection(`fixture-provider-${calls.length + 1}`, { iceServers: [], bindAddress: '127.0.0.1' });
      const audio = new ndc.Audio('0', 'SendRecv');
      audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
      audio.addSSRC(0x0f1c_0001 + calls.length, 'fixture-provider', 'fixture-stream', 'fixture-audio');
      const call: AnsweredCall = { pc, track: pc.addTrack(audio) };
      calls.push(call);
      pc.onDataChannel((channel) => {
        if (channel.getLabel() !== 'oai-events' || call.channel) return;
        call.channel = channel;
        const greet = () => answerer.send(call, { type: 'session.created', session: { id: `sess_fixture_${calls.indexOf(call) + 1}` } });
        channel.onMessage((message) => {
          if (typeof message === 'string') answerer.onClientMessage?.(message, call);
        });
        if (channel.isOpen()) greet();
        else channel.onOpen(greet);
      });
      return gatheredDescription(pc, () => pc.setRemoteDescription(offer, 'offer'));
    },
    close() {
      for (const call of calls.splice(0)) {
        keepUntilExit(call);
        try {
          call.channel?.close();
          call.track.close();
          call.pc.close();
        } catch {
          // already closed
        }
      }
    },
  };
  return answerer;
}
