import { contentToText, EventType, type Event } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { JsonFileStore } from '../store/json-file-store';
import type { Notice, NoticeSink } from '../store/notices';
import { cancelForDeletedThread, decide, decisionBodySchema, resumeAction, settle, type DecisionEnv } from './action-decisions';
import { demoAgent, demoFile } from './demo-agent';
import { DemoStatePersister, demoStateFileFormat, demoStateSchema, emptyDemoState, restoreDemoState, snapshotDemoState } from './demo-persistence';
import { DemoRun, stamp, type RunSink } from './demo-run';
import { demoUser, summary, UserSpace, type ThreadRecord } from './demo-store';
import { bearerToken, checkId, httpErrors, listenOnLoopback, openEventStream, ownHosts, readJsonBody, sendError, sendJson, TalkieHttpError } from './http-util';
import { logoPng } from './png';
import { cardBlockTypes, type TalkieUser } from './talkie-types';
import type { RealtimeProvider } from './voice/realtime-provider';
import { speechUnavailableMessage } from '../speech/speech-engines';
import { DemoVoiceSessions, realtimeCallsPath, type DemoVoiceOptions } from './voice/voice-sessions';

/**
 * AgentDesk's built-in demo agent: a real Talkie 1 server (all of Talkie 1 §1–§11) on 127.0.0.1, plain node:http, for the
 * "Built-in demo", `agentdesk demo` and the client tests. Its voice (Talkie 1 §10) is offline: voice/. Tokens are never
 * saved; every /api/ endpoint needs the bearer token. Decision: docs/architecture.md#talkie-demo-server
 */

export interface TalkieDemoOptions {
  port?: number;
  testMode?: boolean;
  /** Bearer tokens the server accepts; default: one random token generated at start. */
  tokens?: string[];
  /** Optional external token check (a later OAuth authorization server plugs in here). */
  verifyToken?: (token: string) => Promise<{ id: string; name: string; email?: string } | undefined>;
  /** The Authorization Server the manifest names in auth.oauth (see start-demo.ts); without one, auth.oauth is omitted. */
  oauthIssuer?: string;
  /** Speed-up for tests: multiplies every delay (slow run ~5 s, undo window, action lifetime, heartbeats). Default 1. */
  timeScale?: number;
  /** How often to send `: ping` (ms, before timeScale). Default 15000. */
  heartbeatMs?: number;
  /** Brand logo PNG bytes served at /talkie/logo.png; default: a generated 64×64 teal PNG. */
  logo?: Uint8Array;
  log?: { info(area: string, msg: string): void; warn(area: string, msg: string, e?: unknown): void; error(area: string, msg: string, e?: unknown): void };
  /**
   * A JSON file that keeps the threads, messages, actions and usage across restarts: loaded at start
   * (a corrupt file is moved aside and the demo starts clean), saved shortly after every change
   * (coalesced, one write at a time) and on close(). Tokens are never saved. Default: memory only.
   */
  persistPath?: string;
  /** Where the user learns that the saved state was moved aside, is a newer AgentDesk's, or could not be saved (default: the log). */
  notices?: NoticeSink;
  /** Talkie 1 §10 voice: session length, quota, secret lifetime, and the speech engine check (voice/voice-sessions.ts). */
  voice?: DemoVoiceOptions;
}

export interface TalkieDemoServer {
  baseUrl: string;
  manifestUrl: string;
  token: string;
  close(): Promise<void>;
}

export const demoServerId = 'demo.agentdesk.local';
export const maxMessageChars = 4000;
export const maxBodyBytes = 256 * 1024;
const minHeartbeatMs = 5;

export const talkieEndpoints = {
  status: '/api/talkie/status',
  run: '/api/talkie/run',
  cancelRun: '/api/talkie/runs/{runId}/cancel',
  threads: '/api/talkie/threads',
  thread: '/api/talkie/threads/{threadId}',
  action: '/api/talkie/actions/{actionId}',
  decision: '/api/talkie/actions/{actionId}/decision',
  voiceSessions: '/api/talkie/voice/sessions',
  voiceTool: '/api/talkie/voice/sessions/{voiceSessionId}/tools/{name}',
  voiceTranscript: '/api/talkie/voice/sessions/{voiceSessionId}/transcript',
  voiceUsage: '/api/talkie/voice/sessions/{voiceSessionId}/usage',
} as const;

const silentLog: Required<TalkieDemoOptions>['log'] = { info: () => undefined, warn: () => undefined, error: () => undefined };

type Handler = (request: IncomingMessage, response: ServerResponse, params: string[], user: TalkieUser) => Promise<void> | void;
interface Route {
  pattern: RegExp;
  methods: Partial<Record<string, Handler>>;
}

export async function startTalkieDemoServer(options: TalkieDemoOptions = {}): Promise<TalkieDemoServer> {
  const log = options.log ?? silentLog;
  const testMode = options.testMode ?? true;
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale > 0)) throw new RangeError('timeScale must be a positive number');
  const heartbeatMs = Math.max(minHeartbeatMs, (options.heartbeatMs ?? 15_000) * timeScale);
  const tokens = (options.tokens ?? [`demo_${randomBytes(24).toString('base64url')}`]).filter((token) => token !== '');
  const tokenDigests = tokens.map((token) => digest(token));
  const logo = options.logo ? Buffer.from(options.logo) : logoPng();
  const spaces = new Map<string, UserSpace>();
  const runs = new Set<DemoRun>();
  const sinks = new Set<RunSink>();
  let closing = false;
  let closed: Promise<void> | undefined;
  let baseUrl = '';
  let allowedHosts: string[] = [];
  const voice = new DemoVoiceSessions(options.voice ?? {}, {
    spaceFor: (user) => spaceFor(user),
    signalingUrl: () => `${baseUrl}${realtimeCallsPath}`,
    timeScale,
    log,
  });
  /** The speech provider, loaded on the first SDP offer (node-datachannel is native code: a demo without voice calls never loads it). */
  let provider: Promise<RealtimeProvider> | undefined;
  const realtime = (): Promise<RealtimeProvider> =>
    (provider ??= import('./voice/realtime-provider').then(
      ({ createRealtimeProvider }) =>
        createRealtimeProvider({ isClientSecret: (secret) => voice.isClientSecret(secret), log: (message) => log.info('demo', message) }),
      (error: unknown) => {
        provider = undefined;
        log.error('demo', 'the demo voice provider could not be loaded', error);
        throw new TalkieHttpError(503, 'upstream_unavailable', 'The demo voice provider could not start.', true);
      },
    ));
  const persister = options.persistPath === undefined ? undefined : await loadState(options.persistPath);

  async function loadState(path: string): Promise<DemoStatePersister | undefined> {
    const store = new JsonFileStore(path, demoStateSchema, emptyDemoState, demoStateFileFormat);
    let loaded: Awaited<ReturnType<typeof store.load>>;
    try {
      loaded = await store.load();
    } catch (error) {
      // Not a bad file but one that cannot be read (or moved aside): leave it alone, keep this run in memory.
      log.error('demo', `the saved demo state ${path} could not be read; this run keeps its state in memory only`, error);
      return undefined;
    }
    const notices = options.notices ?? { push: (notice: Notice) => log.warn('demo', notice.message) };
    if (loaded.notice) notices.push(loaded.notice);
    for (const space of restoreDemoState(loaded.value)) {
      space.voiceLimitSeconds = voice.dailySeconds;
      spaces.set(space.user.id, space);
    }
    if (loaded.readOnly) {
      // A newer AgentDesk's file, or one that cannot be read or moved aside: never changed by this run.
      log.warn('demo', `the saved demo state ${path} is left as it is; this run keeps its state in memory only`);
      return undefined;
    }
    const warned = new Set<string>();
    const skipped = (userId: string, problem: string) => {
      if (warned.has(userId)) return; // once per user, not on every save
      warned.add(userId);
      log.warn('demo', `the demo state of user ${JSON.stringify(userId.slice(0, 80))} is not saved (${problem})`);
    };
    const saver = new DemoStatePersister(
      store,
      () => snapshotDemoState(spaces.values(), skipped),
      log,
      undefined,
      (error) => {
        const detail = error instanceof Error ? error.message : 'unknown error';
        notices.push({ code: 'demo_not_saved', detail, message: `The demo agent's conversations are kept until AgentDesk closes, but not on disk: ${detail}` });
      },
    );
    for (const space of spaces.values()) space.onChange = () => saver.schedule();
    return saver;
  }

  const spaceFor = (user: TalkieUser): UserSpace => {
    let space = spaces.get(user.id);
    if (!space) {
      spaces.set(user.id, (space = new UserSpace(user)));
      space.voiceLimitSeconds = voice.dailySeconds;
      if (persister) space.onChange = () => persister.schedule();
    }
    return space;
  };
  const envFor = (space: UserSpace): DecisionEnv => ({ space, timeScale, log });
  /** Active runs by runId (the client's id, plus the ids of retries attached to the same run). */
  const runsById = new Map<string, DemoRun>();
  const runKey = (user: TalkieUser, runId: string) => `${user.id}\u0000${runId}`;

  async function authenticate(request: IncomingMessage): Promise<TalkieUser> {
    const token = bearerToken(request);
    if (!token) throw httpErrors.unauthorized('Sign in first: this endpoint needs a bearer token.', false);
    const presented = digest(token);
    if (tokenDigests.some((accepted) => timingSafeEqual(accepted, presented))) return demoUser;
    if (options.verifyToken) {
      let user: TalkieUser | undefined;
      try {
        user = await options.verifyToken(token);
      } catch (error) {
        log.error('demo', 'the token check failed', error);
        throw httpErrors.internal('The token could not be checked.');
      }
      if (user) return { id: user.id, name: user.name, ...(user.email === undefined ? {} : { email: user.email }) };
    }
    throw httpErrors.unauthorized('The token is not valid (expired or revoked). Sign in again.', true);
  }

  // ---- SSE -------------------------------------------------------------------------------------

  /** The run each open stream listens to. */
  const sinkRuns = new Map<RunSink, DemoRun>();
  const attach = (run: DemoRun, sink: RunSink) => {
    sinkRuns.set(sink, run);
    run.attach(sink);
  };

  function openStream(response: ServerResponse, runId: string, threadId: string): RunSink {
    const write = openEventStream(response);
    const heartbeat = setInterval(() => write(': ping\n\n'), heartbeatMs);
    const sink: RunSink = {
      runId,
      threadId,
      write: (event: Event) => write(`data: ${JSON.stringify(event)}\n\n`),
      end: () => {
        clearInterval(heartbeat);
        sinks.delete(sink);
        if (!response.writableEnded) response.end();
      },
    };
    sinks.add(sink);
    response.on('close', () => {
      clearInterval(heartbeat);
      sinks.delete(sink);
      // Disconnect is not cancel: only the stream goes away, the run goes on.
      sinkRuns.get(sink)?.detach(sink);
      sinkRuns.delete(sink);
    });
    return sink;
  }

  // ---- Handlers --------------------------------------------------------------------------------

  const status: Handler = (_request, response, _params, user) => {
    const speech = voice.speech();
    sendJson(response, 200, {
      user,
      chat: true,
      voice: speech.available,
      usage: spaceFor(user).usage(),
      // Not in Talkie 1 §4 (clients ignore unknown fields): why voice is off, and how to switch it on.
      ...(speech.available
        ? {}
        : { voiceUnavailable: { message: speechUnavailableMessage(speech), missing: speech.missing, installCommand: speech.installCommand } }),
    });
  };

  const run: Handler = async (request, response, _params, user) => {
    const parsed = RunAgentInputSchema.safeParse(await readJsonBody(request, maxBodyBytes));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw httpErrors.invalid(`Not a valid RunAgentInput${issue ? ` (${issue.path.join('.') || 'body'}: ${issue.message})` : ''}.`);
    }
    const input = parsed.data;
    checkId(input.threadId, 'threadId');
    checkId(input.runId, 'runId');
    const userMessages: { id: string; text: string }[] = [];
    for (const message of input.messages) {
      if (message.role !== 'user') continue; // the server keeps the history; only new user messages count
      checkId(message.id, 'message id');
      const text = contentToText(message.content);
      if ([...text].length > maxMessageChars) throw httpErrors.tooLarge(`A message can have at most ${maxMessageChars} characters.`);
      if (text.trim() === '') throw httpErrors.invalid('The demo understands text messages only; this one has no text.');
      userMessages.push({ id: message.id, text });
    }
    const last = userMessages.at(-1);
    if (!last) throw httpErrors.invalid('The request has no user message.');

    const space = spaceFor(user);
    const existing = space.threads.get(input.threadId);
    const fresh = userMessages.filter(
      (message, index) => !(existing && space.hasMessage(existing, message.id)) && userMessages.findIndex((other) => other.id === message.id) === index,
    );
    const target = fresh.at(-1) ?? last;
    const inUse = runsById.get(runKey(user, input.runId));

    if (existing && fresh.length === 0) {
      const answer = existing.answers.get(target.id);
      if (answer?.state === 'running') {
        const original = runsById.get(runKey(user, answer.runId));
        if (original?.active) {
          if (inUse && inUse !== original) throw httpErrors.conflict('This runId belongs to another running run.');
          runsById.set(runKey(user, input.runId), original);
          attach(original, openStream(response, input.runId, existing.id));
          return;
        }
      }
      if (answer?.state === 'answered') {
        // Nothing new to say: the answer is in the thread.
        const sink = openStream(response, input.runId, existing.id);
        sink.write(stamp({ type: EventType.RUN_STARTED, threadId: existing.id, runId: input.runId }));
        sink.write(stamp({ type: EventType.RUN_FINISHED, threadId: existing.id, runId: input.runId }));
        sink.end();
        return;
      }
      // Its run failed or was cancelled: answer it again (the message itself stays stored once).
    }
    if (inUse?.active) throw httpErrors.conflict('This runId belongs to a run that is still going.');
    if (closing) throw new TalkieHttpError(503, 'upstream_unavailable', 'The demo server is stopping.', true);
    if (!space.countRun()) throw httpErrors.quota('The demo answers 200 messages a day. Try again tomorrow.');

    const thread = existing && !existing.deleted ? existing : space.createThread(input.threadId, (fresh[0] ?? target).text);
    for (const message of fresh) {
      space.addMessage(thread, { id: message.id, role: 'user', content: message.text, createdAt: new Date().toISOString(), cards: [] });
      // Earlier new messages of the same request are covered by the one answer.
      if (message !== target) thread.answers.set(message.id, { state: 'answered' });
    }
    space.changed();
    const demoRun = new DemoRun({
      runId: input.runId,
      space,
      thread,
      userMessageId: target.id,
      userText: target.text,
      timeScale,
      testMode,
      log,
    });
    runs.add(demoRun);
    runsById.set(runKey(user, input.runId), demoRun);
    attach(demoRun, openStream(response, input.runId, thread.id));
    demoRun.start(demoAgent, (ended) => {
      runs.delete(ended);
      for (const id of ended.runIds) if (runsById.get(runKey(user, id)) === ended) runsById.delete(runKey(user, id));
    });
  };

  const cancelRun: Handler = (_request, response, [runId], user) => {
    // Always { ok: true }: also when the run already ended or never existed (Talkie 1 §5).
    const target = runId === undefined ? undefined : runsById.get(runKey(user, runId));
    if (target?.active) {
      log.info('demo', 'run cancelled');
      target.cancel('cancelled');
    }
    sendJson(response, 200, { ok: true });
  };

  const threads: Handler = (_request, response, _params, user) => {
    sendJson(response, 200, { threads: spaceFor(user).listThreads() });
  };

  const findThread = (user: TalkieUser, threadId: string | undefined): ThreadRecord => {
    const thread = threadId === undefined ? undefined : spaceFor(user).threads.get(threadId);
    if (!thread) throw httpErrors.notFound('There is no such thread.');
    return thread;
  };

  const getThread: Handler = (_request, response, [threadId], user) => {
    const space = spaceFor(user);
    const thread = findThread(user, threadId);
    const actions = thread.actionIds.flatMap((id) => {
      const record = space.actions.get(id);
      if (!record) return [];
      settle(record, envFor(space));
      return [record.action];
    });
    sendJson(response, 200, { thread: summary(thread), messages: thread.messages, actions });
  };

  const deleteThread: Handler = (_request, response, [threadId], user) => {
    const space = spaceFor(user);
    const thread = findThread(user, threadId);
    thread.deleted = true;
    space.threads.delete(thread.id);
    space.changed();
    for (const active of runs) if (active.thread === thread) active.cancel('cancelled');
    for (const id of thread.actionIds) {
      const record = space.actions.get(id);
      if (record) cancelForDeletedThread(record, envFor(space));
    }
    sendJson(response, 200, { ok: true });
  };

  const findAction = (user: TalkieUser, actionId: string | undefined) => {
    const space = spaceFor(user);
    const record = actionId === undefined ? undefined : space.actions.get(actionId);
    if (!record) throw httpErrors.notFound('There is no such action.');
    settle(record, envFor(space));
    return { space, record };
  };

  const getAction: Handler = (_request, response, [actionId], user) => {
    sendJson(response, 200, findAction(user, actionId).record.action);
  };

  const decision: Handler = async (request, response, [actionId], user) => {
    const body = await readJsonBody(request, maxBodyBytes);
    const { space, record } = findAction(user, actionId);
    const parsed = decisionBodySchema.safeParse(body);
    if (!parsed.success) throw httpErrors.invalid('A decision needs { decision: "confirm" | "cancel", paramsHash, method: "button" | "voice" }.');
    const result = decide(record, parsed.data, envFor(space));
    log.info('demo', `decision ${parsed.data.decision} (${parsed.data.method}) on action ${record.action.id}: ${result.action.status}`);
    sendJson(response, 200, result);
  };

  const voiceSessions: Handler = async (request, response, _params, user) => {
    sendJson(response, 201, voice.create(user, await readJsonBody(request, maxBodyBytes)));
  };

  const voiceTool: Handler = async (request, response, [voiceSessionId, name], user) => {
    sendJson(response, 200, voice.tool(user, voiceSessionId, name, await readJsonBody(request, maxBodyBytes)));
  };

  const voiceTranscript: Handler = async (request, response, [voiceSessionId], user) => {
    const answer = voice.transcript(user, voiceSessionId, await readJsonBody(request, maxBodyBytes));
    sendJson(response, answer.status, answer.body);
  };

  const voiceUsage: Handler = async (request, response, [voiceSessionId], user) => {
    sendJson(response, 200, voice.usage(user, voiceSessionId, await readJsonBody(request, maxBodyBytes)));
  };

  const file: Handler = (_request, response) => {
    response.writeHead(200, {
      'Content-Type': `${demoFile.mime}; charset=utf-8`,
      'Content-Length': demoFile.body.length,
      'Content-Disposition': `attachment; filename="${demoFile.name}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    response.end(demoFile.body);
  };

  /** Which recognizer listens and what it understands, said where the app shows the server's description. */
  const demoVoiceUnderstands =
    'Voice runs offline: espeak-ng speaks, and pocketsphinx (English only) understands “search contacts”, “send the offer”, “yes, send it”, “no” and “cancel”.';

  const manifest = () => {
    const speech = voice.speech();
    return {
      spec: 'talkie/1',
      issuer: baseUrl,
      serverId: demoServerId,
      name: 'AgentDesk demo',
      description: `A built-in demo agent that shows chat, cards, actions and voice – no account and no model needed.${speech.available ? ` ${demoVoiceUnderstands}` : ` ${speechUnavailableMessage(speech)}`}`,
      locale: 'en',
      brand: { logo: '/talkie/logo.png', accent: '#0b7a75' },
      auth: {
        ...(options.oauthIssuer ? { oauth: { issuer: options.oauthIssuer, scopes: ['talkie', 'offline_access'] } } : {}),
        token: { hint: 'Printed by `agentdesk demo`' },
      },
      endpoints: talkieEndpoints,
      capabilities: {
        // Offered even while the speech engines are missing: `GET status` then says `voice: false` (the client greys it out).
        voice: { transports: ['webrtc'], eventProtocols: ['openai-realtime/1'], signalingHosts: ['127.0.0.1'] },
        actions: { voiceConfirm: true },
        cards: { blocks: [...cardBlockTypes] },
      },
      limits: { maxMessageChars },
      testMode,
    };
  };

  const segment = '([^/]+)';
  const authRoutes: Route[] = [
    { pattern: /^\/api\/talkie\/status$/, methods: { GET: status } },
    { pattern: /^\/api\/talkie\/run$/, methods: { POST: run } },
    { pattern: new RegExp(`^/api/talkie/runs/${segment}/cancel$`), methods: { POST: cancelRun } },
    { pattern: /^\/api\/talkie\/threads$/, methods: { GET: threads } },
    { pattern: new RegExp(`^/api/talkie/threads/${segment}$`), methods: { GET: getThread, DELETE: deleteThread } },
    { pattern: new RegExp(`^/api/talkie/actions/${segment}$`), methods: { GET: getAction } },
    { pattern: new RegExp(`^/api/talkie/actions/${segment}/decision$`), methods: { POST: decision } },
    { pattern: /^\/api\/talkie\/voice\/sessions$/, methods: { POST: voiceSessions } },
    { pattern: new RegExp(`^/api/talkie/voice/sessions/${segment}/tools/${segment}$`), methods: { POST: voiceTool } },
    { pattern: new RegExp(`^/api/talkie/voice/sessions/${segment}/transcript$`), methods: { POST: voiceTranscript } },
    { pattern: new RegExp(`^/api/talkie/voice/sessions/${segment}/usage$`), methods: { POST: voiceUsage } },
    { pattern: /^\/api\/files\/demo\.txt$/, methods: { GET: file } },
  ];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // DNS rebinding: a page on another site whose name now points at 127.0.0.1 sends its own Host.
    if (!allowedHosts.includes(request.headers.host ?? '')) throw new TalkieHttpError(421, 'misdirected', 'Unknown host.');
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const method = request.method ?? 'GET';
    if (path === '/.well-known/talkie.json' || path === '/talkie/logo.png') {
      if (method !== 'GET') throw httpErrors.method(['GET']);
      if (path === '/talkie/logo.png') {
        response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': logo.length, 'Cache-Control': 'max-age=3600' });
        return void response.end(logo);
      }
      return sendJson(response, 200, manifest(), { 'Cache-Control': 'max-age=3600' });
    }
    if (path === realtimeCallsPath) {
      // The speech provider: its bearer is a client secret minted by POST voiceSessions, not a Talkie token.
      await (await realtime()).handle(request, response);
      return;
    }
    for (const route of authRoutes) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      const handler = route.methods[method];
      if (!handler) throw httpErrors.method(Object.keys(route.methods));
      const params = match.slice(1).map((raw) => {
        try {
          return decodeURIComponent(raw);
        } catch {
          throw httpErrors.invalid('A path segment is not valid percent-encoding.');
        }
      });
      const user = await authenticate(request);
      return handler(request, response, params, user);
    }
    throw httpErrors.notFound();
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const known = error instanceof TalkieHttpError ? error : undefined;
      if (!known) log.error('demo', 'a request failed', error);
      if (response.headersSent) {
        if (!response.writableEnded) response.end();
        return;
      }
      sendError(response, known ?? httpErrors.internal());
    });
  });

  const port = await listenOnLoopback(server, '127.0.0.1', options.port);
  baseUrl = `http://127.0.0.1:${port}`;
  allowedHosts = ownHosts('127.0.0.1', port);
  // Loaded actions: expired ones read as expired, undo windows that closed while stopped complete,
  // open ones get their timers again (only now that the server runs and close() will clear them).
  for (const space of spaces.values()) for (const record of space.actions.values()) resumeAction(record, envFor(space));
  log.info('demo', `Talkie demo server listening on ${baseUrl}${testMode ? ' (test mode)' : ''}`);

  return {
    baseUrl,
    manifestUrl: `${baseUrl}/.well-known/talkie.json`,
    token: tokens[0] ?? '',
    close: () => (closed ??= close()),
  };

  async function close(): Promise<void> {
    closing = true;
    voice.close();
    (await provider?.catch(() => undefined))?.close();
    for (const active of runs) active.cancel('shutdown');
    await Promise.all([...runs].map((active) => active.done));
    for (const space of spaces.values()) space.clearTimers();
    for (const sink of [...sinks]) sink.end();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await stopped;
    // Last: what the cancelled runs stored is in the final write.
    await persister?.close();
    log.info('demo', 'Talkie demo server stopped');
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
