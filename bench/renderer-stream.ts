/**
 * Benchmark (not a test): the renderer's figures in Chromium (the web shell, headless), each printed
 * with its goal (issue #15) and whether it was met:
 * - first screen: Home with the user's agents listed, at most 300 ms after the page starts loading
 *   (navigation start: the HTML, the bundle, the IPC socket and the first answers included); the cold
 *   first visit, then reloads of the same page;
 * - switching to a 2,000-message thread: from the click on it in the sidebar to the frame that shows
 *   its last message in view, at most 100 ms (main fetches the thread from the server each time);
 * - streaming: frame times while a Talkie run streams 200 deltas/s into that thread; p95 within one
 *   display frame.
 *
 *   npm run bench:render        (needs `npm run build` and /usr/bin/chromium)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeBrowser, sharedBrowser, startShell } from '../test/e2e/support/app';

const history = 2000;
const deltasPerSecond = 200;
const seconds = Number(process.env.SECONDS ?? 10);
/** Reloads after the cold first visit, and switches back to the long thread after the first. */
const repeats = 5;
const goals = { firstScreenMs: 300, switchMs: 100 };

const messages = Array.from({ length: history }, (_, i) => ({
  id: `m${i}`,
  role: i % 2 === 0 ? 'user' : 'assistant',
  content: i % 2 === 0 ? `Question ${i}: what about item ${i}?` : `Answer ${i}: **item ${i}** is fine. Here is a list:\n\n- one\n- two\n- \`three\``,
  createdAt: new Date(Date.now() - (history - i) * 60_000).toISOString(),
}));

function send(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = request.url ?? '';
  if (url === '/.well-known/talkie.json') {
    return send(response, 200, {
      spec: 'talkie/1',
      issuer: origin,
      serverId: 'bench.local',
      name: 'Bench server',
      auth: { oauth: { issuer: origin }, token: {} },
      endpoints: { run: '/run', threads: '/threads', thread: '/threads/{threadId}', status: '/status', cancelRun: '/runs/{runId}/cancel' },
    });
  }
  if (url === '/threads')
    return send(response, 200, {
      threads: [{ id: 'big', title: 'Long thread', channel: 'chat', createdAt: messages[0]!.createdAt, updatedAt: messages.at(-1)!.createdAt }],
    });
  if (url === '/threads/big') return send(response, 200, { thread: { id: 'big' }, messages, actions: [] });
  if (url === '/status') return send(response, 200, { user: { id: 'b', name: 'Bench' }, chat: true, voice: false, usage: [] });
  if (url === '/run') {
    request.resume();
    response.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const event = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
    event({ type: 'RUN_STARTED', threadId: 'big', runId: 'r' });
    event({ type: 'TEXT_MESSAGE_START', messageId: 'streamed', role: 'assistant' });
    let sent = 0;
    const timer = setInterval(() => {
      event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'streamed', delta: `word${sent} ` });
      if (++sent >= deltasPerSecond * seconds) {
        clearInterval(timer);
        event({ type: 'TEXT_MESSAGE_END', messageId: 'streamed' });
        event({ type: 'RUN_FINISHED', threadId: 'big', runId: 'r' });
        response.end();
      }
    }, 1000 / deltasPerSecond);
    response.on('close', () => clearInterval(timer));
    return;
  }
  send(response, 404, { error: { code: 'not_found', message: 'no', retryable: false } });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const agentUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const userData = await mkdtemp(join(tmpdir(), 'agentdesk-bench-'));
await writeFile(
  join(userData, 'settings.json'),
  JSON.stringify({
    schemaVersion: 1,
    language: 'en',
    appearance: { theme: 'light', textSize: 'normal' },
    developer: { allowLocalHttp: true, allowPastedTokens: true },
  }),
);
await writeFile(
  join(userData, 'agents.json'),
  JSON.stringify({ schemaVersion: 1, agents: [{ id: 'bench', url: agentUrl, display: agentUrl, addedAt: new Date().toISOString() }] }),
);

const shell = await startShell(userData);
const context = await (await sharedBrowser()).newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
/** Figures in milliseconds, each printed with its goal at the end. */
const summary: string[] = [];
const ms = (value: number) => `${value.toFixed(0)} ms`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

// First screen: before any page script runs, watch for Home with the agent list, and note the frame that shows it.
await page.addInitScript(`(() => {
  const shown = () => document.querySelector('h1')?.textContent === 'Your agents' && document.querySelector('.agent-list__item') !== null;
  const observer = new MutationObserver(() => {
    if (!shown()) return;
    observer.disconnect();
    requestAnimationFrame(() => { window.firstScreen_ = performance.now(); });
  });
  observer.observe(document, { childList: true, subtree: true });
})()`);
/** Polls a page expression until it is true (waitForFunction would evaluate a string with eval, which the CSP refuses). */
const until = async (expression: string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};
type Load = { firstScreen: number; domContentLoaded: number; load: number; firstContentfulPaint: number };
const readLoad = async (): Promise<Load> => {
  await until('window.firstScreen_ !== undefined');
  // Strings, not functions: tsx's esbuild adds helpers to functions that do not exist in the page.
  return (await page.evaluate(`(() => {
    const navigation = performance.getEntriesByType('navigation')[0];
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    return { firstScreen: window.firstScreen_, domContentLoaded: navigation?.domContentLoadedEventEnd ?? NaN, load: navigation?.loadEventEnd ?? NaN, firstContentfulPaint: paint?.startTime ?? NaN };
  })()`)) as Load;
};
try {
  await page.goto(shell.launchUrl);
  const cold = await readLoad();
  const warm: Load[] = [];
  for (let i = 0; i < repeats; i++) {
    await page.reload();
    warm.push(await readLoad());
  }
  const warmFirst = warm.map((entry) => entry.firstScreen);
  process.stdout.write(
    `First screen (Home with the agent list, in the frame that shows it), after navigation start:\n` +
      `  cold first visit: ${ms(cold.firstScreen)} (first contentful paint ${ms(cold.firstContentfulPaint)}, DOMContentLoaded ${ms(cold.domContentLoaded)}, load ${ms(cold.load)})\n` +
      `  ${repeats} reloads:       ${warmFirst.map(ms).join(', ')} (median ${ms(median(warmFirst))}; load event median ${ms(median(warm.map((entry) => entry.load)))})\n`,
  );
  const firstScreenWorst = Math.max(cold.firstScreen, ...warmFirst);
  summary.push(
    `${'first screen after the page loads'.padEnd(38)}goal ≤ ${goals.firstScreenMs} ms   cold ${ms(cold.firstScreen)}, reloads median ${ms(median(warmFirst))}, worst ${ms(firstScreenWorst)}   ${verdict(firstScreenWorst <= goals.firstScreenMs)}`,
  );

  await page.getByRole('button', { name: `Open ${agentUrl}` }).click();
  await page.getByRole('textbox', { name: 'Access token' }).fill('bench-token');
  await page.getByRole('button', { name: 'Use token' }).click();
  const threads = page.getByRole('navigation', { name: 'Chats' });
  const longThread = threads.getByRole('button', { name: /^Long thread/ });
  await longThread.waitFor();

  // Switching: from the click (its event time) to the first frame whose transcript shows the thread's
  // last message in view. Checked once per frame, with a live collection (cheap beside rendering).
  const switchTo = async (): Promise<number> => {
    await page.evaluate(`(() => {
      window.switch_ = { start: undefined, shown: undefined };
      document.addEventListener('click', (event) => { window.switch_.start = event.timeStamp; }, { capture: true, once: true });
      const items = document.getElementsByClassName('transcript__item');
      const check = () => {
        const region = document.querySelector('[role="log"][aria-label="Conversation"]');
        const last = items[items.length - 1];
        if (window.switch_.start !== undefined && region && last && last.textContent.includes('Answer ${history - 1}:')) {
          const box = last.getBoundingClientRect();
          const view = region.getBoundingClientRect();
          if (box.bottom <= view.bottom + 1 && box.top < view.bottom) {
            window.switch_.shown = performance.now();
            return;
          }
        }
        requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    })()`);
    await longThread.click();
    await until('window.switch_.shown !== undefined');
    return (await page.evaluate('window.switch_.shown - window.switch_.start')) as number;
  };
  const coldSwitch = await switchTo();
  const warmSwitches: number[] = [];
  for (let i = 0; i < repeats; i++) {
    await threads.getByRole('button', { name: 'New chat' }).click();
    await page.getByText(`Answer ${history - 1}:`, { exact: false }).waitFor({ state: 'detached' });
    warmSwitches.push(await switchTo());
  }
  process.stdout.write(
    `Switching to the ${history}-message thread (click → its last message in view; main fetches it each time):\n` +
      `  first switch: ${ms(coldSwitch)}\n` +
      `  ${repeats} more (from New chat): ${warmSwitches.map(ms).join(', ')} (median ${ms(median(warmSwitches))})\n`,
  );
  const switchWorst = Math.max(coldSwitch, ...warmSwitches);
  summary.push(
    `${`switch to a ${history.toLocaleString('en')}-message thread`.padEnd(38)}goal ≤ ${goals.switchMs} ms   first ${ms(coldSwitch)}, then median ${ms(median(warmSwitches))}, worst ${ms(switchWorst)}   ${verdict(switchWorst <= goals.switchMs)}`,
  );

  // Strings, not functions: tsx's esbuild adds helpers to functions that do not exist in the page.
  await page.evaluate(`(() => {
    window.frames_ = [];
    window.stop_ = false;
    let last = performance.now();
    const tick = (now) => {
      window.frames_.push(now - last);
      last = now;
      if (!window.stop_) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  // Baseline: the same page, idle, for 2 s (what this machine's headless Chromium does with no work).
  await page.waitForTimeout(2000);
  const idle = (await page.evaluate('(() => { const f = window.frames_.slice(2); window.frames_ = []; return f; })()')) as number[];
  const message = page.getByRole('textbox', { name: 'Message' });
  // PROFILE=1 prints where the page spends its time while streaming (Chromium's CPU profiler).
  const profiler = process.env.PROFILE ? await page.context().newCDPSession(page) : undefined;
  if (profiler) {
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.start');
  }
  await message.fill('stream please');
  await message.press('Enter');
  // Wait without touching the page (a locator would poll the text of every message and skew the
  // measurement), then check once that the whole reply arrived.
  await page.waitForTimeout((seconds + 2) * 1000);
  const frames = (await page.evaluate('(() => { window.stop_ = true; return window.frames_.slice(2); })()')) as number[];
  if (profiler) {
    const { profile } = (await profiler.send('Profiler.stop')) as {
      profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] };
    };
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const byName = new Map<string, number>();
    for (const node of profile.nodes) {
      const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber}`;
      byName.set(name, (byName.get(name) ?? 0) + (self.get(node.id) ?? 0));
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 15);
    process.stdout.write(`top self time while streaming:\n${top.map(([name, us]) => `  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`).join('\n')}\n`);
  }
  await page.getByText(`word${deltasPerSecond * seconds - 1}`, { exact: false }).waitFor({ timeout: 30_000 });
  const describe = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
    return `frames ${values.length}, p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} ms`;
  };
  // Frames are counted between requestAnimationFrame callbacks, so one display frame (16.7 ms at
  // 60 Hz) is the shortest possible: the goal "p95 under 16 ms" is read as "p95 within one display
  // frame", i.e. no longer than idle's p95, and the share of frames that missed a display frame is shown.
  const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(0.95 * values.length)] ?? Number.NaN;
  const missed = frames.filter((frame) => frame > p95(idle) + 1).length;
  process.stdout.write(
    `Chromium (headless, software rendering), a ${history}-message thread open:\n` +
      `  idle:      ${describe(idle)}\n` +
      `  streaming: ${describe(frames)}  (${deltasPerSecond} deltas/s for ${seconds} s)\n` +
      `  frames longer than one display frame: ${missed} of ${frames.length} (${((100 * missed) / Math.max(1, frames.length)).toFixed(1)}%)\n` +
      `  goal (p95 within one display frame, ≤ idle p95 + 1 ms): ${p95(frames) <= p95(idle) + 1 ? 'met' : 'NOT met'}\n`,
  );
  summary.push(
    `${'p95 frame time streaming into it'.padEnd(38)}goal ≤ one display frame (idle p95 + 1 ms = ${(p95(idle) + 1).toFixed(1)} ms)   ${p95(frames).toFixed(1)} ms   ${verdict(p95(frames) <= p95(idle) + 1)}`,
  );
  process.stdout.write(`\nFigures against their goals (issue #15):\n${summary.map((line) => `  ${line}`).join('\n')}\n`);
} finally {
  await context.close();
  await shell.stop();
  await closeBrowser();
  server.close();
  await rm(userData, { recursive: true, force: true });
}
