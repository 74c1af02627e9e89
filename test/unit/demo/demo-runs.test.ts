import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import {
  api,
  custom,
  expectValidRun,
  getThread,
  ofType,
  runInput,
  seenEvents,
  sleep,
  stream,
  text,
  useDemoServers,
  waitFor,
  type AnyEvent,
} from './demo-helpers';

const start = useDemoServers({ timeScale: 0.02 });

const contentDeltas = (events: AnyEvent[]) => ofType(events, 'TEXT_MESSAGE_CONTENT').length;

describe('demo runs: Talkie 1 §11 test mode', () => {
  it('talkie-test:echo streams one text message whose content is exactly the text, in several deltas', async () => {
    const server = await start();
    const exact = '  Spaced  out,\nwith a newline, **not bold to me**, ünïcödé 🚀 and trailing space ';
    const input = runInput(`talkie-test:echo ${exact}`);
    const run = await stream(server, input);
    expect(run.status).toBe(200);
    expect(run.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(run.headers.get('cache-control')).toBe('no-cache');
    expect(run.headers.get('x-accel-buffering')).toBe('no');
    expectValidRun(run.events);
    expect(run.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId });
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId });
    expect(
      run.events
        .slice(1, -1)
        .map((event) => event.type)
        .filter((type) => type !== 'TEXT_MESSAGE_CONTENT'),
    ).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_END']);
    expect(contentDeltas(run.events)).toBeGreaterThan(1);
    expect(text(run.events)).toBe(exact);
    const ids = new Set(run.events.filter((event) => 'messageId' in event).map((event) => event.messageId));
    expect(ids.size).toBe(1);
    const thread = await getThread(server, input.threadId);
    expect(thread.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', `talkie-test:echo ${exact}`],
      ['assistant', exact],
    ]);
  });

  it('talkie-test:card: a tool call with a label and ok, one card with a fields block (all seven block types), then a short text', async () => {
    const server = await start();
    const input = runInput('talkie-test:card');
    const run = await stream(server, input);
    expectValidRun(run.events);
    const types = run.events.map((event) => event.type);
    expect(types.indexOf('TOOL_CALL_START')).toBeLessThan(types.indexOf('TOOL_CALL_END'));
    expect(types.indexOf('TOOL_CALL_END')).toBeLessThan(types.indexOf('CUSTOM'));
    expect(types.indexOf('CUSTOM')).toBeLessThan(types.indexOf('TEXT_MESSAGE_START'));
    const [toolStart] = ofType(run.events, 'TOOL_CALL_START');
    expect(toolStart).toMatchObject({ toolCallName: expect.any(String), metadata: { label: 'Looking up the record…' } });
    expect(ofType(run.events, 'TOOL_CALL_END')).toEqual([expect.objectContaining({ toolCallId: toolStart?.toolCallId, metadata: { ok: true } })]);
    const cards = custom(run.events, 'talkie.card');
    expect(cards).toHaveLength(1);
    const card = cards[0] as { blocks: { type: string; url?: string; size?: number }[]; fallbackText: string; a11yLabel: string; version: number };
    expect(card.version).toBe(1);
    expect(card.fallbackText.length).toBeGreaterThan(0);
    expect(card.a11yLabel.length).toBeGreaterThan(0);
    expect(card.blocks.find((block) => block.type === 'fields')).toMatchObject({
      fields: [{ label: expect.any(String), value: expect.any(String) }, expect.anything()],
    });
    expect(new Set(card.blocks.map((block) => block.type))).toEqual(new Set(['heading', 'text', 'fields', 'list', 'link', 'file', 'badge']));
    expect(card.blocks.find((block) => block.type === 'list')).toMatchObject({ more: 3 });
    const file = card.blocks.find((block) => block.type === 'file');
    expect(file).toMatchObject({ url: '/api/files/demo.txt', mime: 'text/plain' });
    const download = await fetch(server.baseUrl + (file?.url ?? ''), { headers: { Authorization: `Bearer ${server.token}` } });
    expect((await download.arrayBuffer()).byteLength).toBe(file?.size);
    expect(text(run.events).length).toBeGreaterThan(0);
    // Stored with the card attached to the assistant message.
    const thread = await getThread(server, input.threadId);
    expect(thread.messages[1]).toMatchObject({ role: 'assistant', content: text(run.events), cards: [card] });
  });

  it('talkie-test:action: one pending low-risk action that expires ≥ 60 s ahead, then a short text', async () => {
    const server = await start({ timeScale: 1 });
    const input = runInput('talkie-test:action');
    const run = await stream(server, input);
    expectValidRun(run.events);
    const actions = custom(run.events, 'talkie.action');
    expect(actions).toHaveLength(1);
    const action = actions[0] as Record<string, string>;
    expect(action).toMatchObject({
      id: expect.any(String),
      version: 1,
      threadId: input.threadId,
      toolCallId: expect.any(String),
      summary: expect.any(String),
      riskLevel: 'low',
      status: 'pending',
      paramsHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      confirm: { methods: ['button', 'voice'], voice: { keyword: 'send' } },
    });
    const createdAt = Date.parse(action.createdAt ?? '');
    expect(Math.abs(createdAt - Date.now())).toBeLessThan(5000);
    expect(Date.parse(action.expiresAt ?? '') - createdAt).toBeGreaterThanOrEqual(60_000);
    expect(text(run.events).length).toBeGreaterThan(0);
    expect(ofType(run.events, 'TOOL_CALL_START')).toEqual([]);
  });

  it('talkie-test:error ends with RUN_ERROR upstream_unavailable, retryable', async () => {
    const server = await start();
    const run = await stream(server, runInput('talkie-test:error'));
    expectValidRun(run.events);
    expect(run.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    expect(run.events[1]).toMatchObject({ code: 'upstream_unavailable', message: expect.any(String), metadata: { retryable: true } });
  });

  it('talkie-test:slow streams deltas over about 5 s × timeScale', async () => {
    const server = await start({ timeScale: 0.1 });
    const began = Date.now();
    const run = await stream(server, runInput('talkie-test:slow'));
    const took = Date.now() - began;
    expectValidRun(run.events);
    expect(contentDeltas(run.events)).toBeGreaterThanOrEqual(10);
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(2500);
    expect(text(run.events)).toMatch(/^Part 1 of 20\..*Part 20 of 20\.$/);
  });
});

describe('demo runs: validation', () => {
  it('refuses malformed RunAgentInput with 400 invalid_request before any stream', async () => {
    const server = await start();
    const valid = runInput('hello');
    const bad: unknown[] = [
      { ...valid, runId: undefined },
      { ...valid, messages: 'hello' },
      { ...valid, messages: [{ id: 'm1', role: 'user' }] },
      { ...valid, messages: [{ id: 'm1', role: 'wizard', content: 'hi' }] },
      { ...valid, messages: [] },
      { ...valid, messages: [{ id: 'm1', role: 'assistant', content: 'hi' }] },
      { ...valid, threadId: '' },
      { ...valid, messages: [{ id: 'm1', role: 'user', content: '   ' }] },
    ];
    for (const body of bad) {
      const response = await api(server, 'POST', '/api/talkie/run', { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json).toMatchObject({ error: { code: 'invalid_request', message: expect.any(String), retryable: false } });
    }
    const notJson = await api(server, 'POST', '/api/talkie/run', { rawBody: '{"threadId":', headers: { 'Content-Type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect((await api(server, 'GET', '/api/talkie/threads')).json.threads).toEqual([]);
  });

  it('answers 413 too_large for a message over maxMessageChars, and accepts exactly the limit', async () => {
    const server = await start();
    const over = await stream(server, runInput(`talkie-test:echo ${'a'.repeat(4000)}`));
    expect(over.status).toBe(413);
    expect(over.error).toMatchObject({ error: { code: 'too_large', retryable: false } });
    const atLimit = await stream(server, runInput('é'.repeat(4000)));
    expect(atLimit.status).toBe(200);
    expect(atLimit.events.at(-1)?.type).toBe('RUN_FINISHED');
  });

  it('bounds request bodies (413 for a body over 256 KiB)', async () => {
    const server = await start();
    const input = runInput('hello');
    const response = await api(server, 'POST', '/api/talkie/run', { body: { ...input, context: [{ description: 'x', value: 'y'.repeat(300 * 1024) }] } });
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ error: { code: 'too_large' } });
  });

  it('refuses a runId that belongs to another running run with 409', async () => {
    const server = await start({ timeScale: 0.2 });
    const first = runInput('talkie-test:slow');
    const running = stream(server, first);
    await sleep(100);
    const clash = await stream(server, runInput('hello', { runId: first.runId }));
    expect(clash.status).toBe(409);
    expect(clash.error).toMatchObject({ error: { code: 'conflict' } });
    await api(server, 'POST', `/api/talkie/runs/${first.runId}/cancel`, { body: {} });
    await running;
  });
});

describe('demo runs: idempotent retries and stored threads', () => {
  it('ignores a retried message id: one user message, and the retry replays nothing new', async () => {
    const server = await start();
    const input = runInput('talkie-test:echo once');
    const first = await stream(server, input);
    expect(text(first.events)).toBe('once');
    const retry = await stream(server, { ...input, runId: 'r_retry' });
    expectValidRun(retry.events);
    expect(retry.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(retry.events[1]).toMatchObject({ threadId: input.threadId, runId: 'r_retry' });
    const thread = await getThread(server, input.threadId);
    expect(thread.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(thread.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    // A new message in the same thread is answered normally and keeps the history.
    const next = await stream(server, runInput('talkie-test:echo twice', { threadId: input.threadId }));
    expect(text(next.events)).toBe('twice');
    expect((await getThread(server, input.threadId)).messages.map((message) => message.content)).toEqual([
      'talkie-test:echo once',
      'once',
      'talkie-test:echo twice',
      'twice',
    ]);
  });

  it('stores every new user message of one request and answers the last one', async () => {
    const server = await start();
    const input = {
      ...runInput('unused', { threadId: 't_multi' }),
      messages: [
        { id: 'm_a', role: 'user', content: 'talkie-test:echo first' },
        { id: 'm_sys', role: 'system', content: 'ignored: the server keeps the history' },
        { id: 'm_b', role: 'user', content: 'talkie-test:echo second' },
      ],
    };
    const run = await stream(server, input);
    expect(text(run.events)).toBe('second');
    expect((await getThread(server, 't_multi')).messages.map((message) => [message.id.startsWith('m_') ? message.id : message.role, message.content])).toEqual([
      ['m_a', 'talkie-test:echo first'],
      ['m_b', 'talkie-test:echo second'],
      ['assistant', 'second'],
    ]);
  });

  it('answers a retried message again when its run failed, still storing it once', async () => {
    const server = await start();
    const input = runInput('talkie-test:error');
    await stream(server, input);
    const retry = await stream(server, { ...input, runId: 'r_again' });
    expect(retry.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'upstream_unavailable' });
    expect((await getThread(server, input.threadId)).messages).toHaveLength(1);
  });

  it('talkie-test:error-once (the demo’s own) fails the first run of a message; the same message retried is answered', async () => {
    const server = await start();
    const input = runInput('talkie-test:error-once');
    const first = await stream(server, input);
    expectValidRun(first.events);
    expect(first.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'upstream_unavailable', metadata: { retryable: true } });
    const retry = await stream(server, { ...input, runId: 'r_again' });
    expectValidRun(retry.events);
    expect(retry.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: 'r_again' });
    expect(text(retry.events)).toBe('Answered on the second try.');
    expect((await getThread(server, input.threadId)).messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'talkie-test:error-once'],
      ['assistant', 'Answered on the second try.'],
    ]);
    // A new message with the same words fails again: only a retry of the same message is answered.
    const fresh = await stream(server, runInput('talkie-test:error-once', { threadId: input.threadId }));
    expect(fresh.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'upstream_unavailable' });
  });

  it('disconnect is not cancel: the run goes on and the thread later holds the full answer', async () => {
    const server = await start({ timeScale: 0.1 });
    const input = runInput('talkie-test:slow');
    const dropped = await stream(server, input, { until: (events) => contentDeltas(events) >= 1 });
    expect(dropped.disconnected).toBe(true);
    expect(dropped.events.some((event) => event.type === 'RUN_FINISHED')).toBe(false);
    // Right after the drop the answer is not complete yet …
    expect((await getThread(server, input.threadId)).messages.map((message) => message.role)).toEqual(['user']);
    // … and later it is, in full.
    const answer = await waitFor(async () => (await getThread(server, input.threadId)).messages.find((message) => message.role === 'assistant'));
    expect(answer.content).toMatch(/^Part 1 of 20\. Part 2 of 20\..*Part 20 of 20\.$/);
    expect(answer.content.match(/Part \d+ of 20\./g)).toHaveLength(20);
  });

  it('a retry while the run is still going attaches to it: everything so far, then live, under its own runId', async () => {
    const server = await start({ timeScale: 0.1 });
    const input = runInput('talkie-test:slow');
    await stream(server, input, { until: (events) => contentDeltas(events) >= 2 });
    const retry = await stream(server, { ...input, runId: 'r_reattach' });
    expectValidRun(retry.events);
    expect(retry.events[0]).toMatchObject({ type: 'RUN_STARTED', runId: 'r_reattach' });
    expect(retry.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', runId: 'r_reattach' });
    expect(text(retry.events).match(/Part \d+ of 20\./g)).toHaveLength(20);
    const thread = await getThread(server, input.threadId);
    expect(thread.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('cancelRun stops the run: RUN_ERROR cancelled on the open stream, partial text stored, { ok: true } always', async () => {
    const server = await start({ timeScale: 0.2 });
    const input = runInput('talkie-test:slow');
    let cancelled: Promise<unknown> | undefined;
    const run = await stream(server, input, {
      until: (events) => {
        if (contentDeltas(events) === 2 && !cancelled) cancelled = api(server, 'POST', `/api/talkie/runs/${input.runId}/cancel`, { body: {} });
        return false;
      },
    });
    expect(await cancelled).toMatchObject({ status: 200, json: { ok: true } });
    expectValidRun(run.events);
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'cancelled', message: 'Cancelled', metadata: { retryable: false } });
    expect(contentDeltas(run.events)).toBeLessThan(20);
    // The open text message was closed before the terminal event.
    expect(run.events.at(-2)?.type).toBe('TEXT_MESSAGE_END');
    const stored = (await getThread(server, input.threadId)).messages.find((message) => message.role === 'assistant');
    expect(stored?.content).toBe(text(run.events));
    expect(stored?.content).not.toContain('Part 20 of 20');
    // After the end, and for runs that never existed: still ok.
    expect((await api(server, 'POST', `/api/talkie/runs/${input.runId}/cancel`, { body: {} })).json).toEqual({ ok: true });
    expect((await api(server, 'POST', '/api/talkie/runs/r_unknown/cancel')).json).toEqual({ ok: true });
    expect((await api(server, 'POST', '/api/talkie/runs/r_unknown/cancel', { token: null })).status).toBe(401);
  });

  it('sends `: ping` heartbeats while a stream is open', async () => {
    const server = await start({ timeScale: 0.1, heartbeatMs: 100 });
    const run = await stream(server, runInput('talkie-test:slow'));
    expect(run.comments.filter((comment) => comment.trim() === 'ping').length).toBeGreaterThanOrEqual(3);
    const quiet = await start({ timeScale: 0.1 });
    const none = await stream(quiet, runInput('talkie-test:slow'));
    expect(none.comments).toEqual([]);
  });

  it('keeps the client threadId and titles the thread with the first user message (≤ 60 characters)', async () => {
    const server = await start();
    const long = 'Please tell me everything about the quarterly results of Alfa and Beta, in detail';
    const input = runInput(long, { threadId: 'client-thread-1' });
    const run = await stream(server, input);
    expect(run.events[0]).toMatchObject({ threadId: 'client-thread-1' });
    const { threads } = (await api(server, 'GET', '/api/talkie/threads')).json as { threads: { id: string; title: string; channel: string }[] };
    expect(threads).toEqual([expect.objectContaining({ id: 'client-thread-1', channel: 'chat' })]);
    expect([...(threads[0]?.title ?? '')].length).toBeLessThanOrEqual(60);
    expect(long.startsWith((threads[0]?.title ?? '').replace(/…$/, ''))).toBe(true);
    await stream(server, runInput('hello', { threadId: 'client-thread-1' }));
    expect(((await api(server, 'GET', '/api/talkie/threads')).json.threads as { title: string }[])[0]?.title).toBe(threads[0]?.title);
  });
});

describe('demo runs: the rule-based assistant', () => {
  it('help answers in Markdown: a bullet list, bold, code and an https link', async () => {
    const server = await start();
    const answer = text((await stream(server, runInput('help'))).events);
    expect(answer).toMatch(/^- /m);
    expect(answer).toMatch(/\*\*[^*]+\*\*/);
    expect(answer).toMatch(/`[^`]+`/);
    expect(answer).toMatch(/\[[^\]]+\]\(https:\/\/[^)]+\)/);
  });

  it('greets, and answers other topics by echoing them safely', async () => {
    const server = await start();
    expect(text((await stream(server, runInput('Hello there'))).events)).toMatch(/AgentDesk demo/);
    const other = text((await stream(server, runInput('quantum bananas'))).events);
    expect(other).toContain('**quantum bananas**');
    const sneaky = text((await stream(server, runInput('[click](javascript:alert(1))'))).events);
    expect(sneaky).not.toContain('](javascript:');
  });

  it('contacts: a "Searching contacts…" tool call and a card with a list block', async () => {
    const server = await start();
    const run = await stream(server, runInput('search contacts at Alfa'));
    expectValidRun(run.events);
    expect(ofType(run.events, 'TOOL_CALL_START')[0]).toMatchObject({ metadata: { label: 'Searching contacts…' } });
    expect(ofType(run.events, 'TOOL_CALL_END')[0]).toMatchObject({ metadata: { ok: true } });
    const [card] = custom(run.events, 'talkie.card');
    expect(card).toMatchObject({
      blocks: [{ type: 'list', items: expect.arrayContaining([expect.objectContaining({ title: expect.any(String) })]), more: 2 }],
    });
    expect(card?.fallbackText).toEqual(expect.any(String));
  });

  it('usage emits talkie.usage; open emits talkie.open with the example link', async () => {
    const server = await start();
    await stream(server, runInput('hello'));
    const usage = await stream(server, runInput('show my usage'));
    // The same meters as GET status: messages, and (since voice, #16) voice minutes.
    expect(custom(usage.events, 'talkie.usage')).toEqual([
      {
        usage: [
          { label: 'Messages today', used: 2, limit: 200, unit: 'messages' },
          { label: 'Voice today', used: 0, limit: 30, unit: 'minutes' },
        ],
      },
    ]);
    const open = await stream(server, runInput('open something'));
    expect(custom(open.events, 'talkie.open')).toEqual([{ url: 'https://example.com/', label: 'Example' }]);
    expect(text(open.events).length).toBeGreaterThan(0);
  });

  it('streams longer answers in several deltas', async () => {
    const server = await start();
    const run = await stream(server, runInput('help'));
    expect(contentDeltas(run.events)).toBeGreaterThan(5);
  });
});

describe('demo runs: every event is valid AG-UI', () => {
  it('validates every scenario, and the decision events, against EventSchemas', async () => {
    const server = await start({ timeScale: 0.05 });
    const messages = [
      'talkie-test:echo hi',
      'talkie-test:card',
      'talkie-test:action',
      'talkie-test:error',
      'talkie-test:slow',
      'talkie-test:unknown',
      'hello',
      'help',
      'search contacts',
      'send the offer',
      'usage',
      'open',
      'what about the weather',
    ];
    const runs = await Promise.all(messages.map((message) => stream(server, runInput(message))));
    const all: AnyEvent[] = [];
    for (const run of runs) {
      expectValidRun(run.events);
      all.push(...run.events);
    }
    // A cancelled run, too.
    const input = runInput('talkie-test:slow');
    const cancelled = await stream(server, input, {
      until: (events) => {
        if (contentDeltas(events) === 1) void api(server, 'POST', `/api/talkie/runs/${input.runId}/cancel`);
        return false;
      },
    });
    expectValidRun(cancelled.events);
    expect(cancelled.events.at(-1)?.code).toBe('cancelled');
    // Decision results.
    for (const action of all
      .filter((event) => event.type === 'CUSTOM' && event.name === 'talkie.action')
      .map((event) => event.value as { id: string; paramsHash: string })) {
      const decided = await api(server, 'POST', `/api/talkie/actions/${action.id}/decision`, {
        body: { decision: 'confirm', paramsHash: action.paramsHash, method: 'button' },
      });
      const events = decided.json.events as AnyEvent[];
      expect(events.length).toBeGreaterThan(0);
      all.push(...events);
    }
    expect(new Set(all.map((event) => event.type))).toEqual(
      new Set([
        'RUN_STARTED',
        'RUN_FINISHED',
        'RUN_ERROR',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'TOOL_CALL_START',
        'TOOL_CALL_END',
        'CUSTOM',
      ]),
    );
    for (const event of [...all, ...seenEvents]) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  });
});
