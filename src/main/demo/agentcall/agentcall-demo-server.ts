import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { extensionUri, maxFrameBytes, schemaVersion, type Modality } from '../../../shared/agentcall/protocol';
import type { Logger } from '../../platform/logger';
import { bearerToken, listenOnLoopback, sendJson } from '../http-util';
import { webrtcDescriptor } from '../../../shared/agentcall/webrtc-profile';
import { AgentCallDemoSession, agentCallCloseCodes, defaultDemoModalities, type AgentCallModalities } from './agentcall-demo-agent';
import { agentCallWebrtcPath, createAgentCallWebrtcEndpoint, type AgentCallVoiceEngines } from './agentcall-webrtc-endpoint';

/**
 * The built-in demo agent's AgentCall side: an A2A 1.0 Agent Card with the AgentCall AG-UI
 * extension 0.1 (and an AgentMesh UI links entry), and the `agentcall-agui-ws-0.1` WebSocket
 * endpoint, on 127.0.0.1 over plain HTTP (clients allow it under their local-development setting).
 * The protocol behaviour is in agentcall-demo-agent.ts; this file is the sockets.
 *
 * - GET /.well-known/agent-card.json: the card. GET /ui/status: a tiny HTML status page (not in the card's UI links, which must be https).
 * - /agui: WebSocket upgrade only. With `token`, the upgrade needs `Authorization: Bearer <token>`
 *   (401 otherwise); a token in the URL is never looked at. Text frames ≤ 128 KiB (larger: ws closes
 *   1009); binary frames close 1003; no session.start within `sessionStartMs` closes 1008.
 * - The Host header must name this server (127.0.0.1 or localhost and its port): 421 otherwise,
 *   against DNS rebinding.
 * - At most `maxSessions` connections at once (503 at the upgrade beyond that).
 * - Nothing is written to disk; every session's labels, proposals and requests die with its socket.
 */

export interface AgentCallDemoOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: '127.0.0.1';
  log?: Logger;
  /** When set, the card declares an HTTP bearer scheme and the upgrade requires this token. */
  token?: string;
  modalities?: AgentCallModalities;
  /** Default 16. */
  maxSessions?: number;
  /** How long a new connection has to send session.start (ms). Default 30 000. */
  sessionStartMs?: number;
  /** The WebRTC agent's voice (default: espeak-ng and pocketsphinx from Debian). */
  speech?: AgentCallVoiceEngines;
  /** The pause between the parts of "tell me a story" (ms; tests). Default 1 500. */
  storyPartMs?: number;
}

export interface AgentCallDemoServer {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** The A2A Agent Card: `${baseUrl}/.well-known/agent-card.json`. */
  cardUrl: string;
  /** The AG-UI endpoint the card advertises (http form, as on the card; connect with ws://). */
  aguiUrl: string;
  /** The second card: the same agent over agentcall-webrtc-0.1 with agent-owned voice. */
  webrtcCardUrl: string;
  /** What the WebRTC endpoint saw (tests). */
  webrtc: { readonly received: string[]; readonly audioLevels: number[]; readonly openCalls: number };
  close(): Promise<void>;
}

export const agentCallDemoPaths = {
  card: '/.well-known/agent-card.json',
  agui: '/agui',
  status: '/ui/status',
  webrtcCard: '/webrtc/.well-known/agent-card.json',
  webrtc: agentCallWebrtcPath,
} as const;
export const uiLinksExtensionUri = 'https://dev.agentmesh.ai/extensions/ui-links/v1';
export const agentCallDemoName = 'AgentDesk demo agent';

const silentLog: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const drainedBelow = 4;
const pauseAbove = 16;

export async function startAgentCallDemoServer(options: AgentCallDemoOptions = {}): Promise<AgentCallDemoServer> {
  const log = options.log ?? silentLog;
  const host = options.host ?? '127.0.0.1';
  const modalities = checkModalities(options.modalities ?? defaultDemoModalities);
  if (options.token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(options.token)) {
    throw new RangeError('The AgentCall demo token must be 16–512 printable ASCII characters without spaces.');
  }
  const tokenDigest = options.token === undefined ? undefined : digest(options.token);
  const maxSessions = options.maxSessions ?? 16;
  const sessionStartMs = options.sessionStartMs ?? 30_000;
  const sockets = new Map<WebSocket, AgentCallDemoSession>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes, perMessageDeflate: false });
  let baseUrl = '';
  let allowedHosts: string[] = [];
  let closing = false;
  let closed: Promise<void> | undefined;

  const card = () => agentCard(baseUrl, modalities, tokenDigest !== undefined);
  const webrtc = createAgentCallWebrtcEndpoint({
    modalities,
    log,
    ...(tokenDigest === undefined
      ? {}
      : {
          authorize: (request: IncomingMessage) => {
            // Only the Authorization header counts; a token in the query string is never read.
            const presented = bearerToken(request);
            return presented !== undefined && timingSafeEqual(digest(presented), tokenDigest);
          },
        }),
    ...(options.speech === undefined ? {} : { speech: options.speech }),
    ...(options.storyPartMs === undefined ? {} : { storyPartMs: options.storyPartMs }),
  });

  const server = createServer((request, response) => {
    try {
      handle(request, response);
    } catch (error) {
      log.error('demo', 'an AgentCall demo request failed', error);
      if (!response.headersSent) sendJson(response, 500, { error: { code: 'internal', message: 'Something went wrong in the demo server.' } });
      else response.end();
    }
  });

  function handle(request: IncomingMessage, response: ServerResponse): void {
    if (!allowedHosts.includes(request.headers.host ?? '')) return sendJson(response, 421, { error: { code: 'misdirected', message: 'Unknown host.' } });
    const path = pathOf(request.url);
    if (path === agentCallDemoPaths.webrtc) {
      if (closing) return sendJson(response, 503, { error: { code: 'unavailable', message: 'The demo is stopping.' } });
      webrtc.handle(request, response).catch((error: unknown) => {
        log.error('demo', 'an AgentCall WebRTC offer failed', error);
        if (!response.headersSent) sendJson(response, 500, { error: { code: 'internal', message: 'Something went wrong in the demo server.' } });
        else response.end();
      });
      return;
    }
    if (path === agentCallDemoPaths.webrtcCard) {
      if (request.method !== 'GET') return sendJson(response, 405, { error: { code: 'method_not_allowed', message: 'Use GET here.' } }, { Allow: 'GET' });
      return sendJson(response, 200, webrtcAgentCard(baseUrl, modalities, tokenDigest !== undefined), { 'Cache-Control': 'no-cache' });
    }
    if (path !== agentCallDemoPaths.card && path !== agentCallDemoPaths.status) {
      return sendJson(response, path === agentCallDemoPaths.agui ? 426 : 404, {
        error:
          path === agentCallDemoPaths.agui ? { code: 'upgrade_required', message: 'Connect with a WebSocket.' } : { code: 'not_found', message: 'Not found.' },
      });
    }
    if (request.method !== 'GET') return sendJson(response, 405, { error: { code: 'method_not_allowed', message: 'Use GET here.' } }, { Allow: 'GET' });
    if (path === agentCallDemoPaths.card) return sendJson(response, 200, card(), { 'Cache-Control': 'no-cache' });
    const page = statusPage(sockets.size);
    response.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(page),
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
    response.end(page);
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!allowedHosts.includes(request.headers.host ?? '')) return refuse(socket, 421, 'Misdirected Request');
    if (pathOf(request.url) !== agentCallDemoPaths.agui) return refuse(socket, 404, 'Not Found');
    if (tokenDigest !== undefined) {
      // Only the Authorization header counts; a token in the query string is never read.
      const presented = bearerToken(request);
      if (presented === undefined || !timingSafeEqual(digest(presented), tokenDigest)) {
        log.warn('demo', 'refused an AgentCall connection without a valid bearer token');
        return refuse(socket, 401, 'Unauthorized', {
          'WWW-Authenticate': `Bearer realm="agentcall"${presented === undefined ? '' : ', error="invalid_token"'}`,
        });
      }
    }
    if (closing || sockets.size >= maxSessions) return refuse(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(request, socket, head, (ws) => accept(ws));
  });

  function accept(ws: WebSocket): void {
    let queued = 0;
    let paused = false;
    const session = new AgentCallDemoSession({
      modalities,
      log,
      ...(options.storyPartMs === undefined ? {} : { storyPartMs: options.storyPartMs }),
      io: {
        send: (envelope) => {
          if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(envelope));
        },
        close: (code, reason) => ws.close(code, reason),
      },
    });
    sockets.set(ws, session);
    const startTimer = setTimeout(() => {
      if (!session.isStarted) ws.close(agentCallCloseCodes.policy, 'no session.start');
    }, sessionStartMs);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return ws.close(agentCallCloseCodes.unsupportedData, 'binary frames are not accepted');
      const text = toBuffer(data).toString('utf8');
      queued += 1;
      // Back-pressure: a client that sends faster than photos are checked waits for the agent.
      if (queued > pauseAbove && !paused) {
        paused = true;
        ws.pause();
      }
      void session.receive(text).finally(() => {
        queued -= 1;
        if (paused && queued < drainedBelow) {
          paused = false;
          ws.resume();
        }
      });
    });
    ws.on('close', () => {
      clearTimeout(startTimer);
      session.dispose();
      sockets.delete(ws);
    });
    ws.on('error', (error) => log.warn('demo', 'AgentCall socket error', error));
  }

  const port = await listenOnLoopback(server, host, options.port);
  baseUrl = `http://${host}:${port}`;
  allowedHosts = [`${host}:${port}`, `localhost:${port}`];
  log.info('demo', `AgentCall demo agent listening on ${baseUrl} (card ${baseUrl}${agentCallDemoPaths.card})${tokenDigest ? ', bearer token required' : ''}`);

  return {
    baseUrl,
    cardUrl: `${baseUrl}${agentCallDemoPaths.card}`,
    aguiUrl: `${baseUrl}${agentCallDemoPaths.agui}`,
    webrtcCardUrl: `${baseUrl}${agentCallDemoPaths.webrtcCard}`,
    webrtc,
    close: () => (closed ??= close()),
  };

  async function close(): Promise<void> {
    closing = true;
    webrtc.close();
    const open = [...sockets.keys()];
    const gone = Promise.all(open.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())))));
    for (const ws of open) {
      sockets.get(ws)?.dispose();
      ws.close(agentCallCloseCodes.goingAway, 'server stopping');
    }
    // A client that does not answer the closing handshake is cut off after a second.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
    for (const ws of open) ws.terminate();
    wss.close();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await stopped;
    log.info('demo', 'AgentCall demo agent stopped');
  }
}

/** The A2A 1.0 Agent Card (proto3 JSON names) with the AgentCall and UI links extensions. */
export function agentCard(baseUrl: string, modalities: AgentCallModalities, bearer: boolean) {
  return {
    name: agentCallDemoName,
    description:
      'The built-in AgentDesk demo agent over AgentCall: text turns, NFC object scans and photos, and teaching it the names of scanned objects (session-local, confirmed explicitly). No model, nothing stored on disk.',
    // No A2A task interface: the AG-UI endpoint is advertised in the AgentCall extension instead.
    supportedInterfaces: [],
    version: '0.1.0',
    capabilities: {
      extensions: [
        {
          uri: extensionUri,
          description: 'AgentCall AG-UI extension 0.1: public base and physical observations',
          required: false,
          params: {
            schemaVersion,
            agui: { url: `${baseUrl}${agentCallDemoPaths.agui}`, transport: 'websocket', session: { resume: false, replay: false } },
            voice: { owner: 'client' },
            physicalObservations: { accepted: [...modalities.accepted], agentRequests: [...modalities.agentRequests] },
          },
        },
        {
          uri: uiLinksExtensionUri,
          description: "Web surfaces this agent's publisher offers to people",
          required: false,
          params: {
            // UI links must be https (the AgentMesh spec allows no local exception), so the demo's own
            // loopback status page is not listed; the protocol's public documentation is.
            uis: [
              {
                url: 'https://agentcall.smartycode.com/',
                label: 'AgentCall AG-UI extension',
                purpose: 'The public protocol this demo agent speaks: sessions, NFC and photo observations, teaching.',
                audience: 'public',
                access: 'open',
                kind: 'docs',
              },
            ],
          },
        },
      ],
    },
    ...(bearer
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: {
                scheme: 'Bearer',
                description: "A bearer token in the AG-UI WebSocket upgrade's Authorization header, never in the URL.",
              },
            },
          },
          securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        }
      : {}),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'object-teaching',
        name: 'Recognise taught objects',
        description:
          'Scan an object; if it is unknown, teach its name with "teach object <name>" and confirm with "confirm object". Rescans are recognised for the rest of the session.',
        tags: ['nfc', 'objects', 'teaching'],
        examples: ['scan an object', 'teach object Workshop router', 'confirm object', 'cancel teaching'],
      },
      {
        id: 'photo-receipt',
        name: 'Receive a photo',
        description: 'Ask for a photo with "take a photo"; the agent verifies it and reports its size, without keeping it.',
        tags: ['photo'],
        examples: ['take a photo'],
      },
    ],
  };
}

/**
 * The same agent over `agentcall-webrtc-0.1`: the exact profile object with explicit turns, agent-owned
 * voice (it speaks with espeak-ng and hears with pocketsphinx), the AG-UI URL taking the SDP offer.
 * The card lives at /webrtc/.well-known/agent-card.json (a second card for the same origin; AgentDesk
 * reads a URL ending in agent-card.json as it is).
 */
export function webrtcAgentCard(baseUrl: string, modalities: AgentCallModalities, bearer: boolean) {
  const base = agentCard(baseUrl, modalities, bearer);
  const [extension, ...others] = base.capabilities.extensions;
  return {
    ...base,
    name: `${agentCallDemoName} (voice)`,
    description: `${base.description} Over WebRTC: the agent speaks its answers and hears "${['scan an object', 'take a photo', 'confirm object', 'cancel teaching', 'hello'].join('", "')}" (push to talk).`,
    capabilities: {
      extensions: [
        {
          ...extension!,
          params: {
            ...extension!.params,
            agui: {
              url: `${baseUrl}${agentCallDemoPaths.webrtc}`,
              transport: 'webrtc',
              session: { resume: false, replay: false },
              webrtc: { ...webrtcDescriptor, supportsExplicitTurns: true },
            },
            voice: { owner: 'agent' },
          },
        },
        ...others,
      ],
    },
  };
}

function checkModalities(modalities: AgentCallModalities): AgentCallModalities {
  const unique = (list: readonly Modality[]) => new Set(list).size === list.length && list.length <= 2 && list.every((m) => m === 'nfc' || m === 'photo');
  if (!unique(modalities.accepted) || !unique(modalities.agentRequests)) throw new RangeError('modalities must be unique lists of "nfc" and "photo"');
  if (!modalities.agentRequests.every((modality) => modalities.accepted.includes(modality)))
    throw new RangeError('every agentRequests modality must be accepted too');
  return { accepted: [...modalities.accepted], agentRequests: [...modalities.agentRequests] };
}

function statusPage(sessions: number): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>AgentDesk demo agent</title></head>',
    '<body><h1>AgentDesk demo agent</h1>',
    `<p>Running. Open AgentCall sessions: ${sessions}.</p>`,
    '<p>Nothing is stored on disk; what a session learns is forgotten when it ends.</p>',
    '</body></html>',
  ].join('\n');
}

function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function refuse(socket: Duplex, status: number, text: string, headers: Record<string, string> = {}): void {
  const lines = [
    `HTTP/1.1 ${status} ${text}`,
    'Connection: close',
    'Content-Length: 0',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n`);
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
