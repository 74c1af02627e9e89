import { EventSchemas } from '@ag-ui/core/schemas';
import { createParser } from 'eventsource-parser';
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import { startTalkieDemoServer, type TalkieDemoOptions, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';

export type AnyEvent = { type: string; [key: string]: unknown };
export type Json = Record<string, unknown>;

/** Starts demo servers for a test file and closes them after each test. Fast by default. */
export function useDemoServers(defaults: TalkieDemoOptions = { timeScale: 0.02 }) {
  const servers: TalkieDemoServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (options: TalkieDemoOptions = {}): Promise<TalkieDemoServer> => {
    const server = await startTalkieDemoServer({ ...defaults, ...options });
    servers.push(server);
    return server;
  };
}

export async function api(
  server: TalkieDemoServer,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; json: Json }> {
  const token = options.token === undefined ? server.token : options.token;
  const headers: Record<string, string> = { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...options.headers };
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(server.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Json) : {} };
}

export function runInput(content: string, ids: { threadId?: string; runId?: string; messageId?: string } = {}) {
  return {
    threadId: ids.threadId ?? `t_${randomUUID()}`,
    runId: ids.runId ?? `r_${randomUUID()}`,
    messages: [{ id: ids.messageId ?? `m_${randomUUID()}`, role: 'user', content }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: { talkie: { channel: 'chat' } },
  };
}

export interface StreamResult {
  status: number;
  headers: Headers;
  events: AnyEvent[];
  comments: string[];
  /** The Talkie 1 §3 error body when the server refused before the stream. */
  error?: Json;
  /** True when the stream was dropped by the test (`until`). */
  disconnected: boolean;
}

/** Every event any stream in the tests received, for the schema test. */
export const seenEvents: AnyEvent[] = [];

/** POSTs a run and reads the SSE stream with eventsource-parser; `until` drops the connection early. */
export async function stream(
  server: TalkieDemoServer,
  input: unknown,
  options: { token?: string; until?: (events: AnyEvent[]) => boolean } = {},
): Promise<StreamResult> {
  const controller = new AbortController();
  const response = await fetch(`${server.baseUrl}/api/talkie/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${options.token ?? server.token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(input),
    signal: controller.signal,
  });
  if (!response.ok || !response.body) {
    return { status: response.status, headers: response.headers, events: [], comments: [], error: (await response.json()) as Json, disconnected: false };
  }
  const events: AnyEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as AnyEvent;
      events.push(event);
      seenEvents.push(event);
    },
    onComment: (comment) => comments.push(comment),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let disconnected = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (options.until?.(events)) {
      disconnected = true;
      controller.abort();
      break;
    }
  }
  return { status: response.status, headers: response.headers, events, comments, disconnected };
}

export const ofType = (events: AnyEvent[], type: string) => events.filter((event) => event.type === type);
export const custom = (events: AnyEvent[], name: string) =>
  events.filter((event) => event.type === 'CUSTOM' && event.name === name).map((event) => event.value as Json);
export const text = (events: AnyEvent[]) =>
  ofType(events, 'TEXT_MESSAGE_CONTENT')
    .map((event) => event.delta as string)
    .join('');

/** Validates every event against the AG-UI schemas and the run framing (first RUN_STARTED, one terminal event, last). */
export function expectValidRun(events: AnyEvent[]): void {
  for (const event of events) {
    const result = EventSchemas.safeParse(event);
    if (!result.success) throw new Error(`invalid AG-UI event ${JSON.stringify(event)}: ${result.error.message}`);
  }
  if (events[0]?.type !== 'RUN_STARTED') throw new Error(`first event is ${events[0]?.type}`);
  const terminals = events.filter((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR');
  if (terminals.length !== 1 || events.at(-1) !== terminals[0]) throw new Error(`bad terminal events: ${events.map((event) => event.type).join(',')}`);
}

export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function getThread(server: TalkieDemoServer, threadId: string) {
  const { json } = await api(server, 'GET', `/api/talkie/threads/${encodeURIComponent(threadId)}`);
  return json as { thread: Json; messages: { id: string; role: string; content: string; cards: Json[] }[]; actions: Json[] };
}
