import type { RunAgentInput } from '@ag-ui/core';
import type { IpcErrorCode } from '../../shared/base/errors';
import { guardedRequest, mediaTypeOf, NetError, type GuardedResponse, type NetPolicy } from '../net/guarded-fetch';
import { formatBytes } from '../net/net-error';
import { readSse } from '../net/sse-reader';

/**
 * One plain AG-UI run over HTTP: POST the RunAgentInput as application/json (Accept:
 * text/event-stream, the bearer token when one is saved, bound to the endpoint's origin and never
 * sent after a redirect — POST redirects are refused) through the guarded network layer, then read
 * the SSE answer (eventsource-parser: "\n\n" and "\r\n\r\n" framing, heartbeat comments ignored),
 * JSON-parse each event's data and hand it on. Bounded: one event ≤ `aguiClientLimits.eventBytes`,
 * an error body ≤ 64 KiB, a stream silent for `idleMs` is dead. Abortable with the signal.
 *
 * Never throws: every way a run ends is an AguiRunEnd. A `data` frame that is not JSON is handed on
 * as `null`, so the run model notes it ("not a JSON object") identically in main and the renderer;
 * the frame's text itself goes nowhere.
 */
export const aguiClientLimits = {
  /** One SSE event. */
  eventBytes: 1024 * 1024,
  /** iac-code pings every 15 s; a stream silent for this long is dead. */
  streamIdleMs: 45_000,
  /** A JSON error body (4xx/5xx). */
  errorBodyBytes: 64 * 1024,
  /** The server's own error message, as shown. */
  errorMessageChars: 500,
} as const;

export interface AguiRunRequest {
  endpoint: string;
  input: RunAgentInput;
  /** Sent as `Authorization: Bearer …`, only to the endpoint's origin. */
  token?: string;
  policy: NetPolicy;
  signal: AbortSignal;
  idleMs?: number;
}

export type AguiRunEnd =
  /** `onEvent` said the run is over (a terminal event arrived); the stream was closed. */
  | { kind: 'stopped' }
  /** The stream closed, broke or went silent before the run said it was over. */
  | { kind: 'dropped'; message: string }
  /** One event was larger than the limit; the stream was closed. */
  | { kind: 'too_large'; message: string }
  /** The request failed before any stream (HTTP error, network, not an event stream). */
  | { kind: 'failed'; code: IpcErrorCode; message: string; retryable: boolean }
  | { kind: 'cancelled' };

export interface AguiRunCallbacks {
  /** One event's data, JSON-parsed (`null` when it is not JSON), and the data's length. Return 'stop' when the run is over. */
  onEvent(event: unknown, dataChars: number): 'stop' | void;
  /** A line the SSE grammar does not know (junk); counted by the caller. */
  onUnknownLine?(): void;
}

export async function runAgui(request: AguiRunRequest, callbacks: AguiRunCallbacks): Promise<AguiRunEnd> {
  const { signal } = request;
  const origin = new URL(request.endpoint).origin;
  let response: GuardedResponse;
  try {
    response = await guardedRequest(
      {
        url: request.endpoint,
        method: 'POST',
        headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
        body: JSON.stringify(request.input),
        maxBytes: aguiClientLimits.errorBodyBytes,
        redirect: 'error',
        timeouts: { idleMs: request.idleMs ?? aguiClientLimits.streamIdleMs },
        ...(request.token === undefined ? {} : { bearer: { token: request.token, origin } }),
        signal,
      },
      request.policy,
    );
  } catch (error) {
    if (signal.aborted) return { kind: 'cancelled' };
    return { kind: 'failed', ...networkFailure(error) };
  }
  if (response.status < 200 || response.status > 299) return { kind: 'failed', ...(await httpFailure(response)) };
  const type = mediaTypeOf(response);
  if (type !== 'text/event-stream') {
    response.cancel();
    return {
      kind: 'failed',
      code: 'protocol_error',
      message: `${new URL(request.endpoint).host} did not answer with an event stream (text/event-stream).`,
      retryable: false,
    };
  }
  const end = await readSse(
    response,
    (message) => {
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch {
        event = null;
      }
      return callbacks.onEvent(event, message.data.length);
    },
    { maxEventBytes: aguiClientLimits.eventBytes, ...(callbacks.onUnknownLine ? { onUnknownLine: callbacks.onUnknownLine } : {}) },
  );
  switch (end.kind) {
    case 'stopped':
      return { kind: 'stopped' };
    case 'too_large':
      return { kind: 'too_large', message: `The server sent an event larger than ${formatBytes(aguiClientLimits.eventBytes)}; the stream was closed.` };
    case 'failed':
      if (signal.aborted) return { kind: 'cancelled' };
      return { kind: 'dropped', message: networkFailure(end.error).message };
    default:
      return { kind: 'dropped', message: 'The connection closed before the run finished.' };
  }
}

type Failure = { code: IpcErrorCode; message: string; retryable: boolean };

function networkFailure(error: unknown): Failure {
  if (error instanceof NetError) {
    if (error.code === 'insecure_scheme') return { code: 'insecure_scheme', message: error.message, retryable: false };
    if (error.code === 'protocol_error' || error.code === 'too_large') return { code: 'protocol_error', message: error.message, retryable: false };
    return { code: 'network_error', message: error.message, retryable: !['blocked_address', 'cross_origin_redirect', 'invalid_url'].includes(error.code) };
  }
  return { code: 'network_error', message: 'The AG-UI server could not be reached.', retryable: true };
}

/** 401 → sign_in_required; other 4xx → invalid_request/not_allowed with the server's own message (bounded); 5xx → server_error, retryable. */
async function httpFailure(response: GuardedResponse): Promise<Failure> {
  const { status } = response;
  const host = new URL(response.url).host;
  let said: string | undefined;
  try {
    said = serverMessage(JSON.parse(await response.text()));
  } catch {
    said = undefined;
  }
  const because = said === undefined ? '' : `: ${said}`;
  if (status === 401) return { code: 'sign_in_required', message: `${host} needs a valid bearer token (HTTP 401)${because}`, retryable: false };
  if (status === 403) return { code: 'not_allowed', message: `${host} refused the run (HTTP 403)${because}`, retryable: false };
  if (status >= 500) return { code: 'server_error', message: `${host} failed (HTTP ${status})${because}`, retryable: true };
  if (status === 429) return { code: 'server_error', message: `${host} is busy (HTTP 429)${because}`, retryable: true };
  if (status >= 400) return { code: 'invalid_request', message: `${host} refused the run (HTTP ${status})${because}`, retryable: false };
  return { code: 'protocol_error', message: `${host} answered HTTP ${status} instead of an event stream.`, retryable: false };
}

/**
 * The message of a JSON error body in the shapes servers use: `{ error: { message, problems? } }`
 * (the demo, Talkie), `{ error: "…" }`, `{ message }`, `{ detail }` (FastAPI); the first problem's
 * path and message are added. Control characters removed, bounded.
 */
function serverMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  let message: string | undefined;
  let problem: unknown;
  if (isRecord(error)) {
    message = typeof error.message === 'string' ? error.message : undefined;
    problem = Array.isArray(error.problems) ? error.problems[0] : undefined;
  } else if (typeof error === 'string') message = error;
  message ??= typeof body.message === 'string' ? body.message : typeof body.detail === 'string' ? body.detail : undefined;
  if (problem === undefined && Array.isArray(body.problems)) problem = body.problems[0];
  if (isRecord(problem) && typeof problem.message === 'string') {
    const where = typeof problem.path === 'string' && problem.path !== '' ? ` (${problem.path})` : '';
    message = `${message === undefined ? '' : `${message} `}${problem.message}${where}`;
  }
  if (message === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const clean = message.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > aguiClientLimits.errorMessageChars ? `${clean.slice(0, aguiClientLimits.errorMessageChars - 1)}…` : clean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
