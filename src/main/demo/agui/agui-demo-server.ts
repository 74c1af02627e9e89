import { EventType, type Event } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { pointer, type Problem } from '../../../shared/talkie/problems';
import type { SavedFileFormat } from '../../../shared/storage/saved-file-format';
import type { Logger } from '../../platform/logger';
import { JsonFileStore } from '../../store/json-file-store';
import type { Notice, NoticeSink } from '../../store/notices';
import { bearerToken, listenOnLoopback, openEventStream, readJsonBody, sendJson, TalkieHttpError } from '../http-util';
import { checkDemoInput, isResume, runAguiDemo, type DemoRunSettings } from './agui-demo-agent';
import { InterruptLedger } from './agui-demo-interrupts';

/**
 * The built-in demo agent's plain AG-UI side (AG-UI 1.0 over HTTP POST + SSE, as an iac-code
 * `agui` adapter serves it), on 127.0.0.1 over plain HTTP. The behaviour is in agui-demo-agent.ts;
 * this file is the HTTP.
 *
 * - POST /agui with `Content-Type: application/json` and a RunAgentInput (≤ 1 MiB), validated with
 *   @ag-ui/core's RunAgentInputSchema and the demo's rules. Refused before any stream (nothing ran):
 *   400 `invalid_run_input` with `problems: [{ code, path (JSON pointer), message }]`, 400
 *   `invalid_request` (not JSON), 413 `too_large`, 415 `unsupported_media_type`, 406
 *   `not_acceptable` (an Accept without text/event-stream), 405 (other methods, Allow: POST), 404,
 *   401 `unauthorized` (with `token`: `Authorization: Bearer <token>` only, never the URL), 421
 *   `misdirected` (the Host header must be 127.0.0.1 or localhost and this port, against DNS
 *   rebinding), 503 `unavailable` (stopping, or `maxRuns` streams open). Error bodies are
 *   `{ error: { code, message, retryable } }` like the other demo servers.
 * - 200 `text/event-stream`: one `data: <event JSON>` per AG-UI event, framed with "\n\n", or with
 *   "\r\n\r\n" when forwardedProps.demo.framing is "crlf" (AG-UI's HTTP binding pins LF; CRLF is an
 *   opt-in so clients can prove they parse the full SSE grammar). `: ping` comments every
 *   `heartbeatMs` while a run streams. Resume problems are in-stream: a stream of just RUN_ERROR.
 * - A client that drops the stream ends the run (nothing is kept; the next run starts afresh).
 *   close() ends open runs with RUN_ERROR `unavailable`.
 * - Interrupt ids are signed (agui-demo-interrupts.ts); `secretPath` keeps the key across restarts.
 */

export interface AguiDemoOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: '127.0.0.1';
  log?: Logger;
  /** When set, every POST needs `Authorization: Bearer <token>` (16–512 printable ASCII characters). */
  token?: string;
  /** How often to send `: ping` while a run streams (ms). Default 3000. */
  heartbeatMs?: number;
  /** Multiplies every pause of the demo agent (0 = as fast as possible; the slow run is ~5 s at 1). Default 1. */
  timeScale?: number;
  /** The clock for interrupt expiry and event timestamps (epoch ms). Default Date.now. */
  now?: () => number;
  /** How long an interrupt stays answerable (ms). Default 10 minutes. */
  interruptTtlMs?: number;
  /** The HMAC key that signs interrupt ids (≥ 32 bytes). Default: `secretPath`'s, else random per start. */
  secret?: Uint8Array;
  /** A file holding the key (created with mode 0600 when missing), so open interrupts survive a restart. */
  secretPath?: string;
  /** Where a damaged or newer key file is reported (default: the log). */
  notices?: NoticeSink;
  /** Default 1 MiB. */
  maxBodyBytes?: number;
  /** Streams open at once. Default 32. */
  maxRuns?: number;
  /** Sees every POSTed body that parsed as JSON, exactly as it arrived (tests inspect resume payloads with it). */
  onRunInput?: (body: unknown) => void;
}

export interface AguiDemoServer {
  /** The POST endpoint: http://127.0.0.1:PORT/agui */
  url: string;
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  close(): Promise<void>;
}

export const aguiDemoPath = '/agui';
export const aguiDemoMaxBodyBytes = 1024 * 1024;
const maxProblems = 20;
const silentLog: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

class ClientGone extends Error {
  constructor() {
    super('the client went away');
    this.name = 'ClientGone';
  }
}

export async function startAguiDemoServer(options: AguiDemoOptions = {}): Promise<AguiDemoServer> {
  const log = options.log ?? silentLog;
  const host = options.host ?? '127.0.0.1';
  if (options.token !== undefined && !/^[\x21-\x7e]{16,512}$/.test(options.token)) {
    throw new RangeError('The AG-UI demo token must be 16–512 printable ASCII characters without spaces.');
  }
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale >= 0)) throw new RangeError('timeScale must be 0 or more');
  const heartbeatMs = Math.max(5, options.heartbeatMs ?? 3000);
  const now = options.now ?? Date.now;
  const maxBody = options.maxBodyBytes ?? aguiDemoMaxBodyBytes;
  const maxRuns = options.maxRuns ?? 32;
  const tokenDigest = options.token === undefined ? undefined : digest(options.token);
  const secret = options.secret ?? (options.secretPath === undefined ? randomBytes(32) : await loadSecret(options.secretPath, log, options.notices));
  const ledger = new InterruptLedger({ secret, ttlMs: options.interruptTtlMs ?? 10 * 60_000, now });
  const runs = new Set<{ abort: AbortController; response: ServerResponse; done: Promise<void> }>();
  let allowedHosts: string[] = [];
  let closing = false;
  let closed: Promise<void> | undefined;

  const fail = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    new TalkieHttpError(status, code, message, status >= 500, headers);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!allowedHosts.includes(request.headers.host ?? '')) throw fail(421, 'misdirected', 'Unknown host.');
    if (pathOf(request.url) !== aguiDemoPath) throw fail(404, 'not_found', 'Not found.');
    if (request.method !== 'POST') throw fail(405, 'method_not_allowed', 'POST a RunAgentInput here.', { Allow: 'POST' });
    if (tokenDigest !== undefined) {
      const presented = bearerToken(request);
      if (presented === undefined || !timingSafeEqual(digest(presented), tokenDigest)) {
        log.warn('demo', 'refused an AG-UI run without a valid bearer token');
        throw fail(401, 'unauthorized', presented === undefined ? 'This endpoint needs a bearer token.' : 'The bearer token is not valid.', {
          'WWW-Authenticate': `Bearer realm="agui"${presented === undefined ? '' : ', error="invalid_token"'}`,
        });
      }
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      request.resume();
      throw fail(415, 'unsupported_media_type', 'Send the RunAgentInput as application/json.');
    }
    const accept = request.headers.accept;
    if (accept !== undefined && !/text\/event-stream|text\/\*|\*\/\*/i.test(accept)) {
      request.resume();
      throw fail(406, 'not_acceptable', 'The run answers text/event-stream; accept it.');
    }
    const body = await readJsonBody(request, maxBody);
    options.onRunInput?.(body);
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) {
      const problems = parsed.error.issues.slice(0, maxProblems).map((issue): Problem => ({
        code: 'schema',
        path: pointer(issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))),
        message: issue.message,
      }));
      return refuseInput(response, 'The body is not a valid AG-UI RunAgentInput.', problems);
    }
    const input = parsed.data;
    const checked = checkDemoInput(input);
    if (!checked.ok) return refuseInput(response, 'The RunAgentInput breaks a rule of the demo agent.', checked.problems.slice(0, maxProblems));
    if (closing || runs.size >= maxRuns) throw fail(503, 'unavailable', closing ? 'The demo server is stopping.' : 'Too many runs at once; try again shortly.');
    await stream(response, input, checked.settings);
  }

  function refuseInput(response: ServerResponse, message: string, problems: Problem[]): void {
    sendJson(response, 400, { error: { code: 'invalid_run_input', message, retryable: false, problems } });
  }

  async function stream(response: ServerResponse, input: Parameters<typeof runAguiDemo>[0], settings: DemoRunSettings): Promise<void> {
    const eol = settings.framing === 'crlf' ? '\r\n' : '\n';
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const run = { abort, response, done };
    runs.add(run);
    const write = openEventStream(response);
    let ended = false;
    response.on('close', () => {
      if (!ended) {
        log.info('demo', 'an AG-UI client dropped its stream before the run ended; the run stops');
        abort.abort();
      }
    });
    const heartbeat = setInterval(() => write(`: ping${eol}${eol}`), heartbeatMs);
    const sleep = (ms: number) =>
      new Promise<void>((resolve, reject) => {
        if (abort.signal.aborted) return reject(new ClientGone());
        const timer = setTimeout(() => {
          abort.signal.removeEventListener('abort', stop);
          resolve();
        }, ms * timeScale);
        const stop = () => {
          clearTimeout(timer);
          reject(new ClientGone());
        };
        abort.signal.addEventListener('abort', stop, { once: true });
      });
    const send = (event: Event) => write(`data: ${JSON.stringify(event)}${eol}${eol}`);
    log.info('demo', `AG-UI run ${isResume(input) ? 'resuming interrupts' : 'started'}`);
    try {
      for await (const event of runAguiDemo(input, settings, { ledger, sleep, now })) {
        if (abort.signal.aborted) break;
        send(event);
      }
      // Stopped by close() between two events: say so (a dropped client hears nothing anyway).
      if (abort.signal.aborted && closing) send(stopping());
    } catch (error) {
      if (error instanceof ClientGone) {
        if (closing) send(stopping());
      } else {
        log.error('demo', 'an AG-UI demo run failed', error);
        send({ type: EventType.RUN_ERROR, code: 'internal', message: 'Something went wrong in the demo agent.', timestamp: Math.floor(now()) });
      }
    } finally {
      ended = true;
      clearInterval(heartbeat);
      runs.delete(run);
      if (!response.writableEnded) response.end();
      finish();
    }
  }

  const stopping = (): Event => ({
    type: EventType.RUN_ERROR,
    code: 'unavailable',
    message: 'The demo server is stopping; nothing more happens in this run.',
    timestamp: Math.floor(now()),
  });

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const known = error instanceof TalkieHttpError ? error : undefined;
      if (!known) log.error('demo', 'an AG-UI demo request failed', error);
      if (response.headersSent) {
        if (!response.writableEnded) response.end();
        return;
      }
      const failure = known ?? fail(500, 'internal', 'Something went wrong in the demo server.');
      sendJson(response, failure.status, { error: { code: failure.code, message: failure.message, retryable: failure.retryable } }, failure.headers);
    });
  });

  const port = await listenOnLoopback(server, host, options.port);
  const baseUrl = `http://${host}:${port}`;
  allowedHosts = [`${host}:${port}`, `localhost:${port}`];
  log.info('demo', `AG-UI demo agent listening on ${baseUrl}${aguiDemoPath}${tokenDigest ? ', bearer token required' : ''}`);

  return { url: `${baseUrl}${aguiDemoPath}`, baseUrl, close: () => (closed ??= close()) };

  async function close(): Promise<void> {
    closing = true;
    const open = [...runs];
    for (const run of open) run.abort.abort();
    await Promise.all(open.map((run) => run.done));
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await stopped;
    log.info('demo', 'AG-UI demo agent stopped');
  }
}

const secretFileSchema = z.strictObject({ schemaVersion: z.literal(1), key: z.string().regex(/^[0-9a-f]{64}$/) });
/**
 * The interrupt key file: `{ schemaVersion: 1, key: <64 hex digits> }`. Version 0 is the file the
 * first releases wrote, the 64 hex digits alone; it is read as `{ key }` and rewritten as version 1.
 */
export const aguiDemoSecretFileFormat: SavedFileFormat = {
  versionField: 'schemaVersion',
  current: 1,
  migrations: { 0: (document) => document },
  unversioned: {
    version: 0,
    fromText: (text) => (/^[0-9a-f]{64}$/.test(text.trim()) ? { key: text.trim() } : undefined),
  },
};

/**
 * Reads the 32-byte key at `path`, or creates it (mode 0600). A damaged file is moved aside with a
 * notice (open demo interrupts become unknown); a newer AgentDesk's file is left as it is.
 */
async function loadSecret(path: string, log: Logger, notices?: NoticeSink): Promise<Uint8Array> {
  const store = new JsonFileStore(
    path,
    secretFileSchema,
    () => ({ schemaVersion: 1 as const, key: randomBytes(32).toString('hex') }),
    aguiDemoSecretFileFormat,
  );
  const loaded = await store.load();
  const tell = notices ?? { push: (notice: Notice) => log.warn('demo', notice.message) };
  if (loaded.notice) tell.push(loaded.notice);
  // A new key (no file, or the damaged one moved aside) and a migrated one are written now: nothing else saves this file.
  if (!loaded.readOnly && (loaded.fromFile !== true || loaded.migratedFrom !== undefined)) {
    try {
      await store.save(loaded.value);
    } catch (error) {
      log.error('demo', 'the AG-UI demo interrupt key could not be saved', error);
      const detail = error instanceof Error ? error.message : 'its key could not be saved';
      tell.push({ code: 'demo_questions_not_kept', detail, message: `The demo's open AG-UI questions end when AgentDesk closes: ${detail}` });
    }
  }
  return Buffer.from(loaded.value.key, 'hex');
}

function pathOf(url: string | undefined): string {
  return (url ?? '/').split('?')[0] ?? '/';
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
