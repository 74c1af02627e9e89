import { talkieErrorBodySchema, parseAction, type Action } from '../../shared/talkie/content';
import type { RunUpdate } from '../../shared/talkie/conversation';
import { endpointUrl, type EndpointName, type TalkieManifest } from '../../shared/talkie/manifest';
import { interpretEvent } from '../../shared/talkie/run-events';
import { guardedRequest, NetError, type GuardedRequest, type GuardedResponse, type NetPolicy } from '../net/guarded-fetch';
import { readSse } from '../net/sse-reader';

/**
 * One Talkie server's endpoints (Talkie 1 §3–§10), through the guarded network layer. The bearer token is
 * bound to the issuer origin and asked for per request; on 401 the client refreshes once and
 * retries, then reports `unauthorized` so the UI asks to sign in again.
 */
export interface TokenSource {
  /** The current access token, or undefined when not signed in. */
  get(): Promise<string | undefined>;
  /** Called once after a 401: a fresh token, or undefined when a new sign-in is needed. */
  refresh(): Promise<string | undefined>;
}

export class TalkieError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'TalkieError';
  }
}

export const limits = {
  jsonBytes: 4 * 1024 * 1024,
  /** One SSE event; a larger one is an error, not a hang or a memory spike (issue #3). */
  eventBytes: 1024 * 1024,
  /** Servers ping every 15 s; a stream silent for this long is dead. */
  streamIdleMs: 45_000,
  /** A downloaded file (Talkie 1 §6 file blocks). */
  downloadBytes: 512 * 1024 * 1024,
} as const;

export type RunOutcome =
  | { kind: 'finished' }
  | { kind: 'error'; code: string; message: string; retryable: boolean }
  /** The request never reached the server (or got no stream): the message was not delivered. */
  | { kind: 'not_sent'; code: string; message: string; retryable: boolean }
  /** The stream broke after it started: the server keeps running (Talkie 1 §5); reload the thread. */
  | { kind: 'interrupted'; message: string }
  | { kind: 'cancelled' };

export interface RunRequest {
  threadId: string;
  runId: string;
  messages: { id: string; role: 'user'; content: string }[];
}

export class TalkieClient {
  constructor(
    readonly manifest: TalkieManifest,
    private readonly policy: NetPolicy,
    private readonly tokens: TokenSource,
    private readonly streamIdleMs: number = limits.streamIdleMs,
  ) {}

  status(): Promise<unknown> {
    return this.json('GET', 'status');
  }

  threads(): Promise<unknown> {
    return this.json('GET', 'threads');
  }

  thread(threadId: string): Promise<unknown> {
    return this.json('GET', 'thread', { threadId });
  }

  deleteThread(threadId: string): Promise<unknown> {
    return this.json('DELETE', 'thread', { threadId });
  }

  async action(actionId: string): Promise<Action> {
    const action = parseAction(await this.json('GET', 'action', { actionId }));
    if (!action) throw new TalkieError(502, 'protocol_error', 'The server sent an action the app cannot read.', true);
    return action;
  }

  decide(actionId: string, body: { decision: 'confirm' | 'cancel'; paramsHash: string; method: 'button' | 'voice' }): Promise<unknown> {
    return this.json('POST', 'decision', { actionId }, body);
  }

  /**
   * GET a same-origin file with the bearer token; the caller streams the body (and caps it at limits.downloadBytes).
   * The headers have the layer's connect and first-byte timeouts; the streamed file only the idle timeout. maxBytes
   * (and with it the body deadline) is for an error answer, which is read whole.
   */
  async download(url: string, signal?: AbortSignal): Promise<GuardedResponse> {
    if (new URL(url).origin !== this.manifest.issuer)
      throw new TalkieError(400, 'not_same_origin', 'Only files on the server itself are downloaded with your sign-in.', false);
    return this.authorized({ url, maxBytes: limits.jsonBytes, redirect: 'error', ...(signal === undefined ? {} : { signal }) });
  }

  /** Talkie 1 §10.1: a new voice session; the answer (with its clientSecret) is validated by the caller before any use. */
  voiceSession(body: { threadId?: string; locale?: string }): Promise<unknown> {
    return this.json('POST', 'voiceSessions', {}, body);
  }

  /** Talkie 1 §10.2: one provider function call, bound by the server to the voice session (a reused callId gets 409). */
  voiceTool(voiceSessionId: string, name: string, body: { callId: string; arguments: string }): Promise<unknown> {
    return this.json('POST', 'voiceTool', { voiceSessionId, name }, body);
  }

  /** Talkie 1 §10.3: one final transcript; resolves with the 2xx status (201 by the spec), the body is not read. */
  async voiceTranscript(voiceSessionId: string, body: { role: 'user' | 'assistant'; text: string; itemId: string }): Promise<number> {
    const response = await this.send('POST', 'voiceTranscript', { voiceSessionId }, body);
    response.cancel();
    return response.status;
  }

  /** Talkie 1 §10.3: cumulative connected seconds; the answer carries remainingSeconds. */
  voiceUsage(voiceSessionId: string, body: { seconds: number; final: boolean }): Promise<unknown> {
    return this.json('POST', 'voiceUsage', { voiceSessionId }, body);
  }

  cancelRun(runId: string): Promise<unknown> {
    return this.json('POST', 'cancelRun', { runId }, {});
  }

  /**
   * POST run and stream its events. `onUpdate` receives each normalized update in order.
   * Never throws: every way a run can end is a RunOutcome.
   */
  async run(request: RunRequest, onUpdate: (update: RunUpdate) => void, signal?: AbortSignal): Promise<RunOutcome> {
    const body = {
      threadId: request.threadId,
      runId: request.runId,
      messages: request.messages,
      tools: [],
      context: [],
      state: {},
      forwardedProps: { talkie: { channel: 'chat' } },
    };
    let response: GuardedResponse;
    try {
      response = await this.send('POST', 'run', {}, body, { accept: 'text/event-stream', idleMs: this.streamIdleMs, signal });
    } catch (error) {
      if (signal?.aborted) return { kind: 'cancelled' };
      const problem = describe(error);
      return { kind: 'not_sent', ...problem };
    }
    if (!(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      response.cancel();
      return { kind: 'not_sent', code: 'protocol_error', message: 'The server did not answer with an event stream.', retryable: true };
    }
    return this.readStream(response, onUpdate, signal);
  }

  private async readStream(response: GuardedResponse, onUpdate: (update: RunUpdate) => void, signal?: AbortSignal): Promise<RunOutcome> {
    let outcome: RunOutcome | undefined;
    const end = await readSse(
      response,
      (message) => {
        let json: unknown;
        try {
          json = JSON.parse(message.data);
        } catch {
          return; // not JSON: not an AG-UI event
        }
        const interpretation = interpretEvent(json, this.manifest.issuer);
        if (interpretation.kind !== 'updates') return;
        for (const update of interpretation.updates) {
          onUpdate(update);
          if (update.type === 'run.finished') outcome = { kind: 'finished' };
          if (update.type === 'run.error') outcome = { kind: 'error', code: update.code, message: update.message, retryable: update.retryable };
          if (outcome) return 'stop';
        }
      },
      { maxEventBytes: limits.eventBytes },
    );
    switch (end.kind) {
      case 'too_large':
        return {
          kind: 'error',
          code: 'event_too_large',
          message: `The server sent an event larger than ${limits.eventBytes / 1024 / 1024} MiB; the run was stopped.`,
          retryable: false,
        };
      case 'failed':
        if (signal?.aborted) return { kind: 'cancelled' };
        return { kind: 'interrupted', message: describe(end.error).message };
      default:
        return outcome ?? { kind: 'interrupted', message: 'The connection closed before the run finished.' };
    }
  }

  private async json(method: 'GET' | 'POST' | 'DELETE', name: EndpointName, params: Record<string, string> = {}, body?: unknown): Promise<unknown> {
    const response = await this.send(method, name, params, body);
    try {
      return await response.json();
    } catch (error) {
      if (error instanceof NetError && error.code === 'too_large')
        throw new TalkieError(502, 'too_large', 'The server answered with more data than the app accepts.', false);
      throw new TalkieError(502, 'protocol_error', 'The server answered with something that is not JSON.', true);
    }
  }

  /** A Talkie endpoint request (JSON or SSE), through `authorized`. */
  private async send(
    method: 'GET' | 'POST' | 'DELETE',
    name: EndpointName,
    params: Record<string, string>,
    body: unknown,
    options: { accept?: string; idleMs?: number; signal?: AbortSignal | undefined } = {},
  ): Promise<GuardedResponse> {
    const url = endpointUrl(this.manifest, name, params);
    if (!url) throw new TalkieError(404, 'not_supported', `This server does not offer ${name}.`, false);
    const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return this.authorized({
      url,
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      maxBytes: limits.jsonBytes,
      redirect: 'error',
      ...(options.idleMs === undefined ? {} : { timeouts: { idleMs: options.idleMs } }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /**
   * One request with the bearer token bound to the issuer origin: on 401 refresh once and retry,
   * then `unauthorized`; any other non-2xx becomes a TalkieError with the server's Talkie 1 §3 message.
   */
  private async authorized(request: Omit<GuardedRequest, 'bearer'>): Promise<GuardedResponse> {
    let token = await this.tokens.get();
    for (let attempt = 0; ; attempt++) {
      const response = await guardedRequest({ ...request, ...(token === undefined ? {} : { bearer: { token, origin: this.manifest.issuer } }) }, this.policy);
      if (response.status >= 200 && response.status < 300) return response;
      if (response.status === 401 && attempt === 0) {
        response.cancel();
        token = await this.tokens.refresh();
        if (token !== undefined) continue;
        throw new TalkieError(401, 'unauthorized', 'The server refused the access token (401): sign in again.', false);
      }
      throw await errorFrom(response);
    }
  }
}

async function errorFrom(response: GuardedResponse): Promise<TalkieError> {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  const parsed = talkieErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, retryable } = parsed.data.error;
    return new TalkieError(response.status, code, message, retryable ?? response.status >= 500);
  }
  return new TalkieError(
    response.status,
    response.status >= 500 ? 'internal' : 'http_error',
    `The server answered HTTP ${response.status}.`,
    response.status >= 500,
  );
}

export function describe(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof TalkieError) return { code: error.code, message: error.message, retryable: error.retryable };
  if (error instanceof NetError)
    return {
      code: error.code,
      message: error.message,
      retryable: !['insecure_scheme', 'blocked_address', 'cross_origin_redirect', 'too_large'].includes(error.code),
    };
  return { code: 'internal', message: 'Something went wrong talking to the server.', retryable: true };
}
