import { EventSchemas, RunFinishedEventSchema } from '@ag-ui/core/schemas';
import { createParser } from 'eventsource-parser';
// The RFC 6902 applier @ag-ui/client itself uses (a dependency of that devDependency): an independent check.
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encryptedReasoning } from '../../../src/main/demo/agui/agui-demo-agent';
import { startAguiDemoServer, type AguiDemoOptions, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { confirmationResponseSchema, resumeErrorCodes, toolApprovalResponseSchema } from '../../../src/main/demo/agui/agui-demo-interrupts';
import { startDemo } from '../../../src/main/demo/start-demo';
import { memoryLogger } from '../../support/logger';
import { useTempDirs } from '../../support/temp-dir';

/**
 * The built-in demo agent's plain AG-UI side over real HTTP on 127.0.0.1: every event checked with
 * @ag-ui/core's schemas and the run's open/close discipline, both SSE framings, heartbeats, a dropped
 * stream, the confirmation interrupt and every way of resuming it (right and wrong), and the
 * requests refused before a stream opens.
 */

type AnyEvent = { type: string; [key: string]: unknown };
type Json = Record<string, unknown>;
type Message = { id: string; role: string; content?: string };

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: AguiDemoOptions = {}): Promise<AguiDemoServer> {
  const server = await startAguiDemoServer({ timeScale: 0, ...options });
  servers.push(server);
  return server;
}

const tempDir = useTempDirs();

/** A client's view of a thread: the same threadId, a new runId per turn, the whole history each time. */
class Thread {
  readonly threadId = `thread_${randomUUID()}`;
  readonly messages: Message[] = [];

  constructor(readonly forwardedProps: Json = { iacCode: { schemaVersion: 1, cwd: '/work/stacks/demo', runMode: 'normal' } }) {}

  say(content: string): Json {
    this.messages.push({ id: `user_${randomUUID()}`, role: 'user', content });
    return this.input();
  }

  resume(resume: Json[]): Json {
    return { ...this.input(), resume };
  }

  /** Keeps what the run said (its text messages) in the history, as a client does. */
  keep(events: AnyEvent[]): void {
    const said = texts(events).join('\n');
    if (said) this.messages.push({ id: `asst_${randomUUID()}`, role: 'assistant', content: said });
  }

  private input(): Json {
    return { threadId: this.threadId, runId: `run_${randomUUID()}`, messages: [...this.messages], tools: [], context: [], forwardedProps: this.forwardedProps };
  }
}

interface Run {
  status: number;
  headers: Headers;
  events: AnyEvent[];
  comments: string[];
  raw: string;
  error?: Json;
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers }, body });
}

/** POSTs a RunAgentInput and reads the SSE stream; `until` drops the connection early; `onEvent` sees each event as it arrives. */
async function run(
  server: AguiDemoServer,
  input: unknown,
  options: { token?: string; until?: (events: AnyEvent[]) => boolean; onEvent?: (event: AnyEvent) => void } = {},
): Promise<Run> {
  const controller = new AbortController();
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) },
    body: JSON.stringify(input),
    signal: controller.signal,
  });
  if (response.status !== 200 || !response.body) {
    return { status: response.status, headers: response.headers, events: [], comments: [], raw: '', error: (await response.json()) as Json };
  }
  const events: AnyEvent[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = JSON.parse(message.data) as AnyEvent;
      events.push(event);
      options.onEvent?.(event);
    },
    onComment: (comment) => comments.push(comment.trim()),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    raw += text;
    parser.feed(text);
    if (options.until?.(events)) {
      controller.abort();
      break;
    }
  }
  return { status: response.status, headers: response.headers, events, comments, raw };
}

/**
 * Every event valid by @ag-ui/core's schemas, and the run well formed: RUN_STARTED first (or a lone
 * RUN_ERROR), one terminal event, last; text messages, tool calls, reasoning spans/messages and steps
 * opened once and closed before the end; a chunk message continued only while nothing else intervenes.
 */
function expectValidRun(events: AnyEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) {
    const result = EventSchemas.safeParse(event);
    if (!result.success) throw new Error(`invalid AG-UI event ${JSON.stringify(event)}: ${result.error.message}`);
  }
  const terminals = events.filter((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR');
  expect(terminals).toHaveLength(1);
  expect(events.at(-1)).toBe(terminals[0]);
  if (events[0]?.type === 'RUN_ERROR') return expect(events).toHaveLength(1);
  expect(events[0]?.type).toBe('RUN_STARTED');
  const open = { text: new Set<unknown>(), tool: new Set<unknown>(), span: new Set<unknown>(), thought: new Set<unknown>(), step: new Set<unknown>() };
  const opened = (set: Set<unknown>, key: unknown) => {
    expect(set.has(key), `opened twice: ${String(key)}`).toBe(false);
    set.add(key);
  };
  const inside = (set: Set<unknown>, key: unknown) => expect(set.has(key), `not open: ${String(key)}`).toBe(true);
  let chunk: unknown;
  for (const event of events.slice(1, -1)) {
    if (event.type === 'TEXT_MESSAGE_CHUNK') {
      if (event.messageId !== undefined) chunk = event.messageId;
      expect(chunk, 'a continuation chunk with nothing open').toBeDefined();
      continue;
    }
    chunk = undefined;
    const key = event.messageId ?? event.toolCallId ?? event.stepName;
    switch (event.type) {
      case 'TEXT_MESSAGE_START':
        opened(open.text, key);
        break;
      case 'TEXT_MESSAGE_CONTENT':
        inside(open.text, key);
        break;
      case 'TEXT_MESSAGE_END':
        inside(open.text, key);
        open.text.delete(key);
        break;
      case 'TOOL_CALL_START':
        opened(open.tool, key);
        break;
      case 'TOOL_CALL_ARGS':
        inside(open.tool, key);
        break;
      case 'TOOL_CALL_END':
        inside(open.tool, key);
        open.tool.delete(key);
        break;
      case 'REASONING_START':
        opened(open.span, key);
        break;
      case 'REASONING_END':
        inside(open.span, key);
        open.span.delete(key);
        break;
      case 'REASONING_MESSAGE_START':
        opened(open.thought, key);
        break;
      case 'REASONING_MESSAGE_CONTENT':
        inside(open.thought, key);
        break;
      case 'REASONING_MESSAGE_END':
        inside(open.thought, key);
        open.thought.delete(key);
        break;
      case 'STEP_STARTED':
        opened(open.step, key);
        break;
      case 'STEP_FINISHED':
        inside(open.step, key);
        open.step.delete(key);
        break;
      default:
        expect(['TOOL_CALL_RESULT', 'STATE_SNAPSHOT', 'STATE_DELTA', 'ACTIVITY_SNAPSHOT', 'ACTIVITY_DELTA', 'REASONING_ENCRYPTED_VALUE']).toContain(event.type);
    }
  }
  if (events.at(-1)?.type === 'RUN_FINISHED') for (const set of Object.values(open)) expect([...set]).toEqual([]);
}

const ofType = (events: AnyEvent[], type: string) => events.filter((event) => event.type === type);
/** The first event of a type, read as the shape the test expects of it. */
const firstOf = <T>(events: AnyEvent[], type: string) => ofType(events, type)[0] as unknown as T;
/** The explicit text messages' contents, one string per message. */
function texts(events: AnyEvent[]): string[] {
  const byId = new Map<unknown, string>();
  for (const event of events) {
    if (event.type === 'TEXT_MESSAGE_START') byId.set(event.messageId, '');
    if (event.type === 'TEXT_MESSAGE_CONTENT') byId.set(event.messageId, `${byId.get(event.messageId) ?? ''}${String(event.delta)}`);
  }
  return [...byId.values()];
}
const joined = (events: AnyEvent[], type: string, field: string) =>
  ofType(events, type)
    .map((event) => String(event[field]))
    .join('');
/** Consecutive duplicates collapsed: the shape of the run. */
const shape = (events: AnyEvent[]) => events.map((event) => event.type).filter((type, index, all) => type !== all[index - 1]);
const finished = (events: AnyEvent[]) => events.at(-1) as { type: string; outcome?: { type: string; interrupts?: Json[] }; result?: unknown };
const interruptsOf = (events: AnyEvent[]) =>
  (finished(events).outcome?.interrupts ?? []) as { id: string; reason: string; message: string; responseSchema: Json; expiresAt: string; metadata: Json }[];

describe('the demo agent over plain AG-UI (POST + SSE)', () => {
  it('streams a run whose every event @ag-ui/core validates: reasoning, steps, a tool call, activity, state, text and a chunk message', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agui$/);
    const thread = new Thread();
    const input = thread.say('What would change in my stack?');
    const result = await run(server, input);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(result.headers.get('cache-control')).toBe('no-cache');
    expectValidRun(result.events);
    expect(shape(result.events)).toEqual([
      'RUN_STARTED',
      'STATE_SNAPSHOT',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_ENCRYPTED_VALUE',
      'REASONING_END',
      'STEP_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'ACTIVITY_SNAPSHOT',
      'ACTIVITY_DELTA',
      'STATE_DELTA',
      'STEP_FINISHED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TEXT_MESSAGE_CHUNK',
      'RUN_FINISHED',
    ]);
    expect(result.events[0]).toMatchObject({ threadId: input.threadId, runId: input.runId, protocolVersion: '1.0' });
    expect(finished(result.events)).toMatchObject({ threadId: input.threadId, runId: input.runId, outcome: { type: 'success' } });
    expect(ofType(result.events, 'STEP_STARTED').map((event) => event.stepName)).toEqual(['plan', 'check']);

    // Streamed in pieces: reasoning, tool arguments (a JSON document once joined) and text.
    expect(ofType(result.events, 'REASONING_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(ofType(result.events, 'TOOL_CALL_ARGS').length).toBeGreaterThan(1);
    expect(ofType(result.events, 'TEXT_MESSAGE_CONTENT').length).toBeGreaterThan(1);
    expect(ofType(result.events, 'TOOL_CALL_START')[0]).toMatchObject({ toolCallName: 'iac_plan' });
    const args = JSON.parse(joined(result.events, 'TOOL_CALL_ARGS', 'delta')) as Json;
    expect(args).toMatchObject({ stack: 'demo-network', cwd: '/work/stacks/demo' });
    const toolResult = firstOf<{ toolCallId: string; content: string }>(result.events, 'TOOL_CALL_RESULT');
    expect(toolResult.toolCallId).toBe(ofType(result.events, 'TOOL_CALL_START')[0]?.toolCallId);
    expect(JSON.parse(toolResult.content)).toMatchObject({ add: 1, change: 1, destroy: 0 });

    // The encrypted reasoning names the reasoning message and appears nowhere a client would show.
    const thought = ofType(result.events, 'REASONING_MESSAGE_START')[0]?.messageId;
    expect(ofType(result.events, 'REASONING_ENCRYPTED_VALUE')).toEqual([
      expect.objectContaining({ subtype: 'message', entityId: thought, encryptedValue: encryptedReasoning }),
    ]);
    const shown = [
      joined(result.events, 'REASONING_MESSAGE_CONTENT', 'delta'),
      ...texts(result.events),
      joined(result.events, 'TEXT_MESSAGE_CHUNK', 'delta'),
    ].join(' ');
    expect(shown).not.toContain(encryptedReasoning);

    // The activity and the state patches apply (RFC 6902) to their snapshots.
    const activity = firstOf<{ messageId: string; content: Json }>(result.events, 'ACTIVITY_SNAPSHOT');
    const activityDelta = firstOf<{ messageId: string; patch: Operation[] }>(result.events, 'ACTIVITY_DELTA');
    expect(activityDelta.messageId).toBe(activity.messageId);
    const checks = fastJsonPatch.applyPatch(structuredClone(activity.content), activityDelta.patch, true).newDocument as {
      checks: { name: string; status: string }[];
    };
    expect(checks.checks.map((check) => [check.name, check.status])).toEqual([
      ['naming', 'passed'],
      ['cost', 'passed'],
      ['estimate', 'passed'],
    ]);
    const state = firstOf<{ snapshot: Json }>(result.events, 'STATE_SNAPSHOT').snapshot;
    const stateDelta = firstOf<{ delta: Operation[] }>(result.events, 'STATE_DELTA');
    expect(fastJsonPatch.applyPatch(structuredClone(state), stateDelta.delta, true).newDocument).toMatchObject({ status: 'checked', plan: { add: 1 } });

    // The chunk message: an opening chunk with its id and role, then a continuation without.
    const chunks = ofType(result.events, 'TEXT_MESSAGE_CHUNK');
    expect(chunks[0]).toMatchObject({ messageId: expect.any(String), role: 'assistant', delta: expect.any(String) });
    expect(chunks.slice(1).every((chunk) => chunk.messageId === undefined && typeof chunk.delta === 'string')).toBe(true);
    expect(texts(result.events).join('')).toContain('first message of the thread');
  });

  it('carries forwardedProps through: iacCode.cwd in the plan step label and the state, and says when it is missing', async () => {
    const server = await start();
    const withCwd = await run(server, new Thread({ iacCode: { cwd: '/srv/iac/cwd-from-forwarded-props' } }).say('plan please'));
    expect(ofType(withCwd.events, 'STEP_STARTED')[0]).toMatchObject({
      stepName: 'plan',
      metadata: { label: expect.stringContaining('/srv/iac/cwd-from-forwarded-props') },
    });
    expect(ofType(withCwd.events, 'STATE_SNAPSHOT')[0]).toMatchObject({ snapshot: { cwd: '/srv/iac/cwd-from-forwarded-props' } });
    const without = await run(server, new Thread({}).say('plan please'));
    expectValidRun(without.events);
    expect(ofType(without.events, 'STEP_STARTED')[0]).toMatchObject({ metadata: { label: expect.stringContaining('no forwardedProps.iacCode.cwd') } });
  });

  it('is stateless per run: the history the client sends is what the agent sees', async () => {
    const server = await start();
    const thread = new Thread();
    thread.keep((await run(server, thread.say('hello'))).events);
    const second = await run(server, thread.say('and now?'));
    expectValidRun(second.events);
    expect(texts(second.events).join('')).toContain('2 user messages so far');
  });

  it('frames events with \\n\\n by default and with \\r\\n\\r\\n when forwardedProps.demo.framing is "crlf"; both parse to the same run', async () => {
    const server = await start();
    const lf = await run(server, new Thread().say('hello'));
    expect(lf.raw).toContain('\n\n');
    expect(lf.raw).not.toContain('\r');
    const crlf = await run(server, new Thread({ demo: { framing: 'crlf' }, iacCode: { cwd: '/work/stacks/demo' } }).say('hello'));
    expect(crlf.raw).toContain('\r\n\r\n');
    expect(crlf.raw.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(
      crlf.raw
        .split('\r\n\r\n')
        .filter((frame) => frame !== '')
        .every((frame) => frame.startsWith('data: {')),
    ).toBe(true);
    expectValidRun(crlf.events);
    expect(shape(crlf.events)).toEqual(shape(lf.events));
  });

  it('sends `: ping` heartbeats during a slow run, in the framing asked for', async () => {
    const server = await start({ timeScale: 0.1, heartbeatMs: 10 });
    const slow = await run(server, new Thread().say('go slow'));
    expectValidRun(slow.events);
    expect(slow.comments.filter((comment) => comment === 'ping').length).toBeGreaterThan(0);
    expect(slow.raw).toMatch(/(^|\n\n): ping\n\n/);
    expect(texts(slow.events)[1]).toMatch(/^Slowly: (· )+done\.$/);
    const crlf = await run(server, new Thread({ demo: { framing: 'crlf' } }).say('slow'));
    expect(crlf.raw).toMatch(/(^|\r\n\r\n): ping\r\n\r\n/);
    expect(crlf.comments).toContain('ping');
  });

  it('stops a run whose client drops the stream, and keeps serving', async () => {
    const log = memoryLogger();
    const server = await start({ timeScale: 0.2, log });
    const dropped = await run(server, new Thread().say('slow please'), { until: (events) => texts(events).some((text) => text.startsWith('Slowly')) });
    expect(dropped.events.some((event) => event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR')).toBe(false);
    for (let waited = 0; !log.lines.some((line) => line.includes('dropped its stream')); waited += 1) {
      if (waited > 1000) throw new Error('the server never noticed the dropped stream');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const next = await run(server, new Thread().say('hello again'));
    expectValidRun(next.events);
  });

  it('ends an open run with RUN_ERROR unavailable when the server stops', async () => {
    const server = await start({ timeScale: 1 });
    let closing: Promise<void> | undefined;
    const stopped = await run(server, new Thread().say('slow'), { onEvent: (event) => void (event.type === 'RUN_STARTED' && (closing = server.close())) });
    await closing;
    expectValidRun(stopped.events);
    expect(stopped.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'unavailable' });
    expect(ofType(stopped.events, 'TEXT_MESSAGE_END')).toEqual([]);
  });

  it('fails on purpose with RUN_ERROR demo_failure after planning when asked to "fail"', async () => {
    const server = await start();
    const failed = await run(server, new Thread().say('please fail'));
    expectValidRun(failed.events);
    expect(failed.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'demo_failure', message: expect.any(String) });
    expect(ofType(failed.events, 'STEP_FINISHED').map((event) => event.stepName)).toEqual(['plan']);
  });
});

describe('confirmation interrupts and resume', () => {
  const t0 = Date.parse('2030-01-01T10:00:00.000Z');

  it('"apply" ends with one confirmation interrupt; resuming with approve: true applies ("Applied.") and a replay is refused', async () => {
    const server = await start({ now: () => t0, interruptTtlMs: 60_000 });
    const thread = new Thread();
    const first = await run(server, thread.say('Please apply the plan'));
    expectValidRun(first.events);
    const end = RunFinishedEventSchema.parse(first.events.at(-1));
    expect(end.outcome?.type).toBe('interrupt');
    const interrupts = interruptsOf(first.events);
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]).toEqual({
      id: expect.stringMatching(/^agi1\./),
      reason: 'confirmation',
      message: expect.stringContaining('demo-network'),
      responseSchema: confirmationResponseSchema,
      expiresAt: new Date(t0 + 60_000).toISOString(),
      metadata: { subject: 'demo-network' },
    });
    expect(interrupts[0]?.responseSchema).toEqual({
      type: 'object',
      properties: { approve: { type: 'boolean', title: expect.any(String) }, note: { type: 'string', maxLength: 200, title: expect.any(String) } },
      required: ['approve'],
    });
    expect(ofType(first.events, 'STATE_DELTA').at(-1)).toMatchObject({ delta: [{ op: 'replace', path: '/status', value: 'awaiting_confirmation' }] });
    thread.keep(first.events);

    const answer = thread.resume([{ interruptId: interrupts[0]?.id, status: 'resolved', payload: { approve: true, note: 'ticket CHG-1' } }]);
    const resumed = await run(server, answer);
    expectValidRun(resumed.events);
    expect(resumed.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: thread.threadId, runId: answer.runId });
    expect(ofType(resumed.events, 'STEP_STARTED').map((event) => event.stepName)).toEqual(['apply']);
    expect(ofType(resumed.events, 'TOOL_CALL_START')).toEqual([expect.objectContaining({ toolCallName: 'iac_apply' })]);
    expect(JSON.parse(joined(resumed.events, 'TOOL_CALL_ARGS', 'delta'))).toEqual({ target: 'demo-network', cwd: '/work/stacks/demo', note: 'ticket CHG-1' });
    expect(texts(resumed.events)).toEqual(['Applied.']);
    expect(finished(resumed.events)).toMatchObject({ outcome: { type: 'success' }, result: { applied: ['demo-network'], cancelled: [] } });

    const replay = await run(server, thread.resume([{ interruptId: interrupts[0]?.id, status: 'resolved', payload: { approve: true } }]));
    expectValidRun(replay.events);
    expect(replay.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.answered })]);
  });

  it('"delete" asks to approve a delete_file call as pydantic-ai does; editedArgs replaces the arguments (an empty one deletes nothing)', async () => {
    const server = await start();
    const cases: [Json | undefined, string, string][] = [
      [{ approved: true }, 'Deleted notes/old-plan.md.', JSON.stringify({ deleted: 'notes/old-plan.md' })],
      [{ approved: true, editedArgs: { path: 'notes/new.md' } }, 'Deleted notes/new.md.', JSON.stringify({ deleted: 'notes/new.md' })],
      [{ approved: true, editedArgs: {} }, expect.stringContaining('without a path') as unknown as string, JSON.stringify({ error: 'missing argument: path' })],
      [{ approved: false }, 'Kept notes/old-plan.md: nothing was deleted.', 'The user did not approve this call.'],
      [undefined, 'Kept notes/old-plan.md: nothing was deleted.', 'The user did not approve this call.'],
    ];
    for (const [payload, text, result] of cases) {
      const thread = new Thread();
      const first = await run(server, thread.say('Please delete the old plan'));
      expectValidRun(first.events);
      const call = ofType(first.events, 'TOOL_CALL_START')[0];
      expect(call).toMatchObject({ toolCallName: 'delete_file' });
      expect(JSON.parse(joined(first.events, 'TOOL_CALL_ARGS', 'delta'))).toEqual({ path: 'notes/old-plan.md' });
      const [interrupt] = interruptsOf(first.events);
      expect(interrupt).toMatchObject({
        reason: 'tool_call',
        toolCallId: call?.toolCallId,
        responseSchema: toolApprovalResponseSchema,
        message: 'Approve delete_file({"path": "notes/old-plan.md"})?',
      });
      thread.keep(first.events);
      const resumed = await run(
        server,
        thread.resume([
          payload === undefined ? { interruptId: interrupt?.id, status: 'cancelled' } : { interruptId: interrupt?.id, status: 'resolved', payload },
        ]),
      );
      expectValidRun(resumed.events);
      expect(ofType(resumed.events, 'TOOL_CALL_RESULT')).toEqual([expect.objectContaining({ toolCallId: call?.toolCallId, content: result })]);
      expect(texts(resumed.events)).toEqual([text]);
    }
    const thread = new Thread();
    const [interrupt] = interruptsOf((await run(server, thread.say('delete'))).events);
    const bad = await run(server, thread.resume([{ interruptId: interrupt?.id, status: 'resolved', payload: { approved: true, editedArgs: 'x' } }]));
    expect(bad.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.payload })]);
  });

  it('approve: false and a cancelled interrupt both end with "Cancelled, nothing changed." and no apply call', async () => {
    const server = await start();
    for (const entry of [{ status: 'resolved', payload: { approve: false } }, { status: 'cancelled' }]) {
      const thread = new Thread();
      const first = await run(server, thread.say('apply it'));
      const [interrupt] = interruptsOf(first.events);
      const resumed = await run(server, thread.resume([{ interruptId: interrupt?.id, ...entry }]));
      expectValidRun(resumed.events);
      expect(texts(resumed.events)).toEqual(['Cancelled, nothing changed.']);
      expect(ofType(resumed.events, 'TOOL_CALL_START')).toEqual([]);
      expect(finished(resumed.events)).toMatchObject({ outcome: { type: 'success' }, result: { applied: [], cancelled: ['demo-network'] } });
    }
  });

  it('"deploy" raises two interrupts; a resume answering one of them is refused with resume_incomplete, and answering both works', async () => {
    const server = await start();
    const thread = new Thread();
    const first = await run(server, thread.say('deploy the app'));
    expectValidRun(first.events);
    const interrupts = interruptsOf(first.events);
    expect(interrupts.map((interrupt) => [interrupt.reason, interrupt.metadata.subject])).toEqual([
      ['confirmation', 'staging'],
      ['confirmation', 'production'],
    ]);
    expect(new Set(interrupts.map((interrupt) => interrupt.id)).size).toBe(2);

    const partial = await run(server, thread.resume([{ interruptId: interrupts[0]?.id, status: 'resolved', payload: { approve: true } }]));
    expectValidRun(partial.events);
    expect(partial.events).toEqual([
      expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.incomplete, message: expect.stringContaining('1 of 2') }),
    ]);

    const duplicate = await run(
      server,
      thread.resume([
        { interruptId: interrupts[0]?.id, status: 'resolved', payload: { approve: true } },
        { interruptId: interrupts[0]?.id, status: 'cancelled' },
      ]),
    );
    expect(duplicate.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.duplicate })]);

    // Refused resumes changed nothing: the interrupts are still open.
    const both = await run(
      server,
      thread.resume([
        { interruptId: interrupts[1]?.id, status: 'cancelled' },
        { interruptId: interrupts[0]?.id, status: 'resolved', payload: { approve: true } },
      ]),
    );
    expectValidRun(both.events);
    expect(ofType(both.events, 'TOOL_CALL_START')).toHaveLength(1);
    expect(texts(both.events)).toEqual(['Applied to staging. Cancelled for production: nothing changed there.']);
    expect(finished(both.events)).toMatchObject({ result: { applied: ['staging'], cancelled: ['production'] } });
  });

  it("refuses interrupts it did not raise on this thread (forged, tampered, another thread's) and mixed runs, with clear codes", async () => {
    const server = await start();
    const thread = new Thread();
    const [interrupt] = interruptsOf((await run(server, thread.say('apply'))).events);
    const id = interrupt?.id ?? '';
    const tampered = `${id.slice(0, -2)}${id.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const interruptId of ['int-1', tampered, 'x'.repeat(5000)]) {
      const refused = await run(server, thread.resume([{ interruptId, status: 'resolved', payload: { approve: true } }]));
      expect(refused.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.unknown })]);
      expect(String(refused.events[0]?.message).length).toBeLessThan(300);
    }
    const other = new Thread();
    const elsewhere = await run(server, other.resume([{ interruptId: id, status: 'resolved', payload: { approve: true } }]));
    expect(elsewhere.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.unknown })]);

    const [later] = interruptsOf((await run(server, thread.say('apply again'))).events);
    const mixed = await run(
      server,
      thread.resume([
        { interruptId: id, status: 'cancelled' },
        { interruptId: later?.id, status: 'cancelled' },
      ]),
    );
    expect(mixed.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.mixed })]);
  });

  it('refuses a resolved answer that does not match the responseSchema', async () => {
    const server = await start();
    const thread = new Thread();
    const [interrupt] = interruptsOf((await run(server, thread.say('apply'))).events);
    for (const payload of [{ approve: 'yes' }, { note: 'no approve' }, { approve: true, note: 'n'.repeat(201) }, { approve: true, note: 7 }, ['approve']]) {
      const refused = await run(server, thread.resume([{ interruptId: interrupt?.id, status: 'resolved', payload }]));
      expect(refused.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.payload })]);
    }
    const exactly200 = await run(
      server,
      thread.resume([{ interruptId: interrupt?.id, status: 'resolved', payload: { approve: true, note: '✓'.repeat(200) } }]),
    );
    expect(texts(exactly200.events)).toEqual(['Applied.']);
  });

  it('refuses to apply an expired interrupt (interrupt_expired) but accepts cancelling it', async () => {
    let clock = t0;
    const server = await start({ now: () => clock, interruptTtlMs: 60_000 });
    const thread = new Thread();
    const [interrupt] = interruptsOf((await run(server, thread.say('apply'))).events);
    expect(interrupt?.expiresAt).toBe('2030-01-01T10:01:00.000Z');
    clock = t0 + 60_000;
    const late = await run(server, thread.resume([{ interruptId: interrupt?.id, status: 'resolved', payload: { approve: true } }]));
    expectValidRun(late.events);
    expect(late.events).toEqual([
      expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.expired, message: expect.stringContaining('2030-01-01T10:01:00.000Z') }),
    ]);
    const cancelled = await run(server, thread.resume([{ interruptId: interrupt?.id, status: 'cancelled' }]));
    expectValidRun(cancelled.events);
    expect(texts(cancelled.events)).toEqual(['Cancelled, nothing changed.']);
  });

  it('keeps open interrupts answerable across a restart when the key is kept in secretPath', async () => {
    const secretPath = join(await tempDir(), 'demo-agent.json.agui-key');
    const before = await start({ secretPath });
    const thread = new Thread();
    const [interrupt] = interruptsOf((await run(before, thread.say('apply'))).events);
    await before.close();
    const after = await start({ secretPath });
    const resumed = await run(after, thread.resume([{ interruptId: interrupt?.id, status: 'resolved', payload: { approve: true } }]));
    expect(texts(resumed.events)).toEqual(['Applied.']);
    // Without the key, another server does not know the interrupt.
    const stranger = await start();
    const refused = await run(stranger, thread.resume([{ interruptId: interrupt?.id, status: 'cancelled' }]));
    expect(refused.events).toEqual([expect.objectContaining({ type: 'RUN_ERROR', code: resumeErrorCodes.unknown })]);
  });
});

describe('requests refused before a stream opens', () => {
  const problemsOf = (result: Run) => ((result.error?.error as Json | undefined)?.problems ?? []) as { code: string; path: string; message: string }[];

  it('answers 400 invalid_run_input with JSON-pointer problems for a bad RunAgentInput or a demo rule it breaks', async () => {
    const server = await start();
    const valid = new Thread().say('hello');
    const cases: [unknown, string, string][] = [
      [{ ...valid, runId: undefined }, 'schema', '/runId'],
      [{ ...valid, messages: [{ id: 'm', role: 'wizard', content: 'x' }] }, 'schema', '/messages/0/role'],
      [{ ...valid, resume: [{ interruptId: 'i', status: 'maybe' }] }, 'schema', '/resume/0/status'],
      [{ ...valid, forwardedProps: { demo: { framing: 'cr' } } }, 'invalid_framing', '/forwardedProps/demo/framing'],
      [{ ...valid, forwardedProps: { iacCode: { cwd: 42 } } }, 'invalid_cwd', '/forwardedProps/iacCode/cwd'],
      [{ ...valid, forwardedProps: 'cwd=/x' }, 'invalid_forwarded_props', '/forwardedProps'],
      [{ ...valid, tools: [{ name: 'mine', description: 'a client tool' }] }, 'tools_not_supported', '/tools'],
      [{ ...valid, messages: [{ id: 'a', role: 'assistant', content: 'hi' }] }, 'no_user_message', '/messages'],
      [{ ...valid, messages: [{ id: 'u', role: 'user', content: '   ' }] }, 'empty_message', '/messages/0/content'],
      [{ ...valid, threadId: '' }, 'invalid_id', '/threadId'],
    ];
    for (const [input, code, path] of cases) {
      const refused = await run(server, input);
      expect(refused.status, JSON.stringify(input).slice(0, 200)).toBe(400);
      expect(refused.error).toMatchObject({ error: { code: 'invalid_run_input', message: expect.any(String), retryable: false } });
      expect(problemsOf(refused)).toContainEqual({ code, path, message: expect.any(String) });
    }
  });

  it('answers 400 for a body that is not JSON, 415 for another media type, 413 above 1 MiB, 406 without text/event-stream, 405 and 404', async () => {
    const server = await start();
    const notJson = await post(server.url, '{"threadId":');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: Json }).error.code).toBe('invalid_request');
    const form = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(new Thread().say('hi')) });
    expect(form.status).toBe(415);
    const huge = new Thread().say('x'.repeat(3000));
    const big = await post(server.url, JSON.stringify({ ...huge, context: [{ description: 'padding', value: 'p'.repeat(1024 * 1024) }] }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: Json }).error.code).toBe('too_large');
    const html = await post(server.url, JSON.stringify(new Thread().say('hi')), { Accept: 'text/html' });
    expect(html.status).toBe(406);
    const get = await fetch(server.url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await fetch(`${server.baseUrl}/other`, { method: 'POST' })).status).toBe(404);
  });

  it('answers 421 to a Host header that does not name the server, and accepts localhost', async () => {
    const server = await start();
    const { port } = new URL(server.url);
    const statusFor = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/agui', method: 'POST', headers: { Host: host, 'Content-Type': 'application/json' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify(new Thread().say('hi')));
      });
    expect(await statusFor(`attacker.example:${port}`)).toBe(421);
    expect(await statusFor(`127.0.0.1:${Number(port) + 1}`)).toBe(421);
    expect(await statusFor(`localhost:${port}`)).toBe(200);
  });

  it('requires the bearer token when one is set (header only, never the URL)', async () => {
    const token = 'agui-demo-token-0123456789';
    const server = await start({ token });
    const input = new Thread().say('hello');
    const missing = await run(server, input);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="agui"');
    expect(missing.error).toMatchObject({ error: { code: 'unauthorized' } });
    const wrong = await run(server, input, { token: 'not-the-token-0123456789' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const inUrl = await run({ ...server, url: `${server.url}?access_token=${token}` }, input);
    expect(inUrl.status).toBe(401);
    const right = await run(server, input, { token });
    expect(right.status).toBe(200);
    expectValidRun(right.events);
    await expect(startAguiDemoServer({ token: 'short' })).rejects.toThrow(RangeError);
  });
});

it('starts beside the other demo servers in `startDemo` (aguiUrl) and closes with them', async () => {
  const demo = await startDemo();
  try {
    expect(demo.aguiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/agui$/);
    const result = await run({ url: demo.aguiUrl, baseUrl: '', close: async () => undefined }, new Thread().say('hello'));
    expectValidRun(result.events);
  } finally {
    await demo.close();
  }
  await expect(fetch(demo.aguiUrl, { method: 'POST' })).rejects.toThrow();
});
