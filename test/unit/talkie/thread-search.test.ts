import { afterEach, describe, expect, it } from 'vitest';
import { startAguiDemoServer, type AguiDemoServer } from '../../../src/main/demo/agui/agui-demo-server';
import { startTalkieDemoServer, type TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { ThreadTexts } from '../../../src/main/talkie/thread-texts';
import { builtInAgentCallDemoId, builtInAguiDemoId, builtInDemoAgentId, type EventPayload } from '../../../src/shared/ipc/contract';
import { searchThreads, snippetAround, threadSearchLimits } from '../../../src/shared/threads/thread-search';
import { followAguiRuns, runToEnd } from '../../support/agui-runs';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

describe('searchThreads (the matcher main uses)', () => {
  const threads = [
    { threadId: 't1', title: 'Offer for Alfa', texts: ['Prepare the offer', 'Here is the offer for Alfa s.r.o.'] },
    { threadId: 't2', title: 'Weather', texts: ['Jaké je počasí v Brně?', 'V Brně je slunečno.'] },
    { threadId: 't3', title: '', texts: ['Send the offer to Bravo', 'Sent to Bravo.'] },
  ];

  it('finds every word of the query in a title or the text, case and accents ignored, titles first', () => {
    expect(searchThreads(threads, 'offer').map((result) => result.threadId)).toEqual(['t1', 't3']);
    expect(searchThreads(threads, 'POCASI brne')).toEqual([{ threadId: 't2', title: 'Weather', snippet: 'Jaké je počasí v Brně?' }]);
    // Both words must be there (in any message or the title).
    expect(searchThreads(threads, 'offer bravo').map((result) => result.threadId)).toEqual(['t3']);
    expect(searchThreads(threads, 'offer charlie')).toEqual([]);
    // A text match comes after a title match even when its thread is listed first.
    expect(searchThreads([threads[2]!, threads[0]!], 'offer').map((result) => result.threadId)).toEqual(['t1', 't3']);
  });

  it('finds nothing for an empty query, and at most the limit', () => {
    expect(searchThreads(threads, '   ')).toEqual([]);
    const many = Array.from({ length: 50 }, (_, i) => ({ threadId: `t${i}`, title: `Chat ${i}`, texts: [] }));
    expect(searchThreads(many, 'chat')).toHaveLength(threadSearchLimits.results);
    expect(searchThreads(many, 'chat', 3).map((result) => result.threadId)).toEqual(['t0', 't1', 't2']);
  });

  it('cuts a snippet around the match, one line, bounded, with ellipses where it cut', () => {
    const long = `${'lorem ipsum '.repeat(40)}the needle\nis here ${'dolor sit '.repeat(40)}`;
    const [result] = searchThreads([{ threadId: 't', title: 'x', texts: ['nothing', long] }], 'NEEDLE');
    expect(result!.snippet).toContain('the needle is here');
    expect(result!.snippet.startsWith('…')).toBe(true);
    expect(result!.snippet.endsWith('…')).toBe(true);
    expect([...result!.snippet].length).toBeLessThanOrEqual(threadSearchLimits.snippetChars);
    // Only the title matched: no snippet.
    expect(searchThreads(threads, 'weather')[0]!.snippet).toBe('');
    // Short text is kept whole; an emoji is never cut in half.
    expect(snippetAround('a 😀 b', 2, 4)).toBe('a 😀 b');
    expect(snippetAround('😀'.repeat(300), 200, 202, 20)).toBe(`…${'😀'.repeat(18)}…`);
  });
});

describe('search snippets in words (everyday wording)', () => {
  it('quotes an agent’s Markdown as the words it shows: no **, backticks, link targets, heading or list marks', () => {
    const answer = [
      '## Plan for **web**',
      '',
      '- Deploy the `web` stack to _staging_ first, see [the runbook](https://example.com/runbook).',
      '- Then **production**.',
      '',
      '```sh',
      'deploy --stack web',
      '```',
    ].join('\n');
    const [result] = searchThreads([{ threadId: 't', title: 'Deploys', texts: ['How do I deploy?', answer] }], 'staging');
    expect(result!.snippet).toBe('Plan for web Deploy the web stack to staging first, see the runbook. Then production. deploy --stack web');
    // A match inside a link's target is not shown as the target.
    expect(searchThreads([{ threadId: 't', title: 'x', texts: [answer] }], 'runbook')[0]!.snippet).not.toContain('https://');
    // Text that only looks like Markdown stays as typed: a lone star, snake_case, 2 * 3 * 4.
    expect(searchThreads([{ threadId: 't', title: 'x', texts: ['Is 2 * 3 * 4 in my_var_name? *'] }], 'var')[0]!.snippet).toBe('Is 2 * 3 * 4 in my_var_name? *');
  });
});

describe('ThreadTexts (what main saw of Talkie threads)', () => {
  it('keeps titles from the list, sent and streamed text, and a loaded thread replaces what was seen', () => {
    const texts = new ThreadTexts();
    texts.listed('a', [
      { id: 't1', title: 'Server title' },
      { id: 't2', title: '', firstMessage: 'First message title' },
    ]);
    texts.message('a', 't1', 'm1', 'hello alfa');
    texts.message('a', 't1', 'm1', 'hello alfa'); // a retry: the same message once
    texts.append('a', 't1', 'r1', 'the ans');
    texts.append('a', 't1', 'r1', 'wer bravo');
    expect(texts.search('a', 'answer bravo')).toEqual([{ threadId: 't1', title: 'Server title', snippet: 'the answer bravo' }]);
    expect(texts.search('a', 'alfa')[0]!.snippet).toBe('hello alfa');
    expect(texts.search('a', 'first message').map((result) => result.threadId)).toEqual(['t2']);
    // Another agent sees nothing of it.
    expect(texts.search('b', 'alfa')).toEqual([]);

    texts.loaded('a', 't1', [
      { kind: 'user', id: 'u', text: 'charlie only', state: 'sent' },
      { kind: 'tool', id: 'x', label: 'alfa tool', state: 'ok' },
    ]);
    expect(texts.search('a', 'alfa')).toEqual([]);
    expect(texts.search('a', 'charlie')).toHaveLength(1);
    texts.forget('a', 't1');
    expect(texts.search('a', 'charlie')).toEqual([]);
  });

  it('orders new threads first, then as the server listed them; keeps its bounds', () => {
    const texts = new ThreadTexts({ threadsPerAgent: 3, charsPerThread: 10, agents: 2 });
    texts.listed('a', [
      { id: 'newer', title: 'chat newer' },
      { id: 'older', title: 'chat older' },
    ]);
    texts.untitled('a', 'fresh', 'chat fresh');
    texts.untitled('a', 'newer', 'never replaces a title');
    expect(texts.search('a', 'chat').map((result) => result.threadId)).toEqual(['fresh', 'newer', 'older']);
    texts.untitled('a', 'fourth', 'chat fourth');
    // The least recently seen thread went.
    expect(texts.search('a', 'chat').map((result) => result.threadId)).toEqual(['fourth', 'fresh', 'newer']);
    texts.message('a', 'fourth', 'm', '0123456789abc');
    expect(texts.search('a', '0123456789')).toHaveLength(1);
    expect(texts.search('a', 'abc')).toEqual([]);
    texts.message('b', 't', 'm', 'bee');
    texts.message('c', 't', 'm', 'sea');
    // At most two agents: the least recently seen one (a) went.
    expect(texts.search('a', 'chat')).toEqual([]);
    expect(texts.search('c', 'sea')).toHaveLength(1);
  });
});

describe('agents.searchThreads through the real dispatcher', () => {
  const tempDir = useTempDirs();
  const closers: { close(): Promise<void> }[] = [];
  const apps: TestServices[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.dispose()));
    await Promise.all(closers.splice(0).map((server) => server.close()));
  });

  /** The real services with the demo's Talkie and plain AG-UI sides (`servers` once started). */
  async function services(): Promise<TestServices & { servers: () => { talkie: TalkieDemoServer; agui: AguiDemoServer } }> {
    let servers: { talkie: TalkieDemoServer; agui: AguiDemoServer } | undefined;
    const app = await startTestServices(await tempDir(), {
      demo: {
        start: async () => {
          if (!servers) {
            servers = { talkie: await startTalkieDemoServer({ timeScale: 0.02 }), agui: await startAguiDemoServer({ timeScale: 0.02 }) };
            closers.push(servers.talkie, servers.agui);
          }
          return { baseUrl: servers.talkie.baseUrl, token: servers.talkie.token, aguiUrl: servers.agui.url };
        },
      },
    });
    apps.push(app);
    return Object.assign(app, { servers: () => servers! });
  }

  async function say(app: TestServices, text: string, threadId?: string): Promise<string> {
    const ended = new Promise<EventPayload<'talkie.runEnded'>>((resolve) =>
      app.events.connect((channel, payload) => channel === 'agentdesk:event:talkie.runEnded' && resolve(payload as EventPayload<'talkie.runEnded'>)),
    );
    const sent = await app.call('talkie.send', { agentId: builtInDemoAgentId, messageId: `m_${Math.random()}`, text, ...(threadId ? { threadId } : {}) });
    if (!sent.ok) throw new Error(sent.error.message);
    expect((await ended).outcome.kind).toBe('finished');
    return sent.value.threadId;
  }

  it('finds the Talkie demo’s threads by what was sent and what streamed back, without asking the server', async () => {
    const app = await services();
    await app.call('demo.open');
    const alfa = await say(app, 'talkie-test:echo The offer for Alfa is ready');
    const brno = await say(app, 'talkie-test:echo Weather in Brno');
    await say(app, 'talkie-test:echo Sunny and warm', brno);

    // The demo server is gone: whatever is found comes from main alone.
    await app.servers().talkie.close();
    const search = async (query: string) => {
      const result = await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.results;
    };
    expect(await search('alfa')).toEqual([
      { threadId: alfa, title: 'talkie-test:echo The offer for Alfa is ready', snippet: 'talkie-test:echo The offer for Alfa is ready' },
    ]);
    // The assistant's streamed answer (the echo, without the prefix) is searched too: a later message of that thread.
    expect((await search('sunny')).map((result) => result.threadId)).toEqual([brno]);
    expect((await search('warm')).map((result) => result.snippet)).toEqual(['talkie-test:echo Sunny and warm']);
    expect(await search('echo')).toHaveLength(2);
    expect(await search('charlie')).toEqual([]);
  });

  it('a thread not opened since AgentDesk started is found by its text: the search reads the listed threads first', async () => {
    const first = await services();
    await first.call('demo.open');
    const bravo = await say(first, 'talkie-test:echo Hello there');
    await say(first, 'talkie-test:echo The parcel for Bravo left today', bravo);
    const talkie = first.servers().talkie;
    // A new main (AgentDesk started again) on the same demo server: it knows the threads by the list only.
    const second = await startTestServices(await tempDir(), {
      demo: { start: async () => ({ baseUrl: talkie.baseUrl, token: talkie.token, aguiUrl: 'http://127.0.0.1:9' }) },
    });
    apps.push(second);
    await second.call('demo.open');
    expect((await second.call('talkie.threads', { agentId: builtInDemoAgentId })).ok).toBe(true);
    const found = await second.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'parcel bravo' });
    expect(found).toMatchObject({ ok: true, value: { results: [{ threadId: bravo, snippet: 'talkie-test:echo The parcel for Bravo left today' }] } });
  });

  it('with the server gone, a search still answers from the titles it has', async () => {
    const first = await services();
    await first.call('demo.open');
    await say(first, 'talkie-test:echo Charlie asked about the invoice');
    const talkie = first.servers().talkie;
    const second = await startTestServices(await tempDir(), {
      demo: { start: async () => ({ baseUrl: talkie.baseUrl, token: talkie.token, aguiUrl: 'http://127.0.0.1:9' }) },
    });
    apps.push(second);
    await second.call('demo.open');
    expect((await second.call('talkie.threads', { agentId: builtInDemoAgentId })).ok).toBe(true);
    await talkie.close();
    const found = await second.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'invoice' });
    expect(found).toMatchObject({ ok: true, value: { results: [{ title: 'talkie-test:echo Charlie asked about the invoice', snippet: '' }] } });
  });

  it('a deleted thread is no longer found; the AgentCall side has none; a plain AG-UI agent’s saved thread is searched', async () => {
    const app = await services();
    await app.call('demo.open');
    const gone = await say(app, 'talkie-test:echo Delete me later');
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'delete' })).toMatchObject({
      ok: true,
      value: { results: [{ threadId: gone }] },
    });
    expect((await app.call('talkie.deleteThread', { agentId: builtInDemoAgentId, threadId: gone })).ok).toBe(true);
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'delete' })).toEqual({ ok: true, value: { results: [] } });
    expect(await app.call('agents.searchThreads', { agentId: builtInAgentCallDemoId, query: 'delete' })).toEqual({ ok: true, value: { results: [] } });

    await runToEnd(
      followAguiRuns(app),
      builtInAguiDemoId,
      app.call('agui.send', { agentId: builtInAguiDemoId, messageId: 'msg-1', text: 'Please greet Žluťoučký kůň' }),
    );
    const found = await app.call('agents.searchThreads', { agentId: builtInAguiDemoId, query: 'zlutoucky' });
    expect(found).toMatchObject({ ok: true, value: { results: [{ title: 'Please greet Žluťoučký kůň', snippet: 'Please greet Žluťoučký kůň' }] } });
    expect(await app.call('agents.searchThreads', { agentId: builtInAguiDemoId, query: 'nowhere' })).toEqual({ ok: true, value: { results: [] } });
  });

  it('refuses a query longer than 200 characters and an unknown agent, with the field named', async () => {
    const app = await services();
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'x'.repeat(201) })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/query' },
    });
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', path: '/query' },
    });
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'x', limit: 1000 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
    expect(await app.call('agents.searchThreads', { agentId: 'no-such-agent', query: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // The longest query is fine (and finds nothing here).
    expect(await app.call('agents.searchThreads', { agentId: builtInDemoAgentId, query: 'x'.repeat(200) })).toEqual({ ok: true, value: { results: [] } });
  });
});
