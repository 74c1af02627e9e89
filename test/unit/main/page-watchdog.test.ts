import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PageWatchdog } from '../../../src/main/webshell/page-watchdog';
import { memoryLogger } from '../../support/logger';

/**
 * The web shell's page watchdog against a scripted browser end of the DevTools pipe (NUL-separated
 * JSON both ways, as Chromium's --remote-debugging-pipe speaks it): the real thing is exercised in
 * Chromium by test/e2e/kiosk.test.ts and bench/kiosk.ts.
 */
const origin = 'http://127.0.0.1:4555';
const watchdogs: PageWatchdog[] = [];
afterEach(() => watchdogs.splice(0).forEach((watchdog) => watchdog.close()));

function fakeBrowser(options: { answerEvaluate: boolean }) {
  const toBrowser = new PassThrough();
  const fromBrowser = new PassThrough();
  const sent: { id: number; method: string; params: Record<string, unknown>; sessionId?: string }[] = [];
  let buffer = '';
  const emit = (message: Record<string, unknown>) => fromBrowser.write(`${JSON.stringify(message)}\0`);
  toBrowser.setEncoding('utf8');
  toBrowser.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const message = JSON.parse(buffer.slice(0, end)) as (typeof sent)[number];
      buffer = buffer.slice(end + 1);
      sent.push(message);
      if (message.method === 'Target.attachToTarget') emit({ id: message.id, result: { sessionId: 'S1' } });
      else if (message.method === 'Runtime.evaluate' && !options.answerEvaluate) continue;
      else emit({ id: message.id, result: {} });
    }
  });
  return { toBrowser, fromBrowser, sent, emit };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the web shell page watchdog', () => {
  it('attaches to the app page (not to others) and navigates it back to the app when its renderer crashes', async () => {
    const browser = fakeBrowser({ answerEvaluate: true });
    const recovered: string[] = [];
    watchdogs.push(new PageWatchdog({ ...browser, origin, log: memoryLogger(), pingMs: 50, hangMs: 200, onRecovered: ({ why }) => recovered.push(why) }));
    browser.emit({ method: 'Target.targetCreated', params: { targetInfo: { targetId: 'other', type: 'page', url: 'https://example.com/' } } });
    browser.emit({ method: 'Target.targetCreated', params: { targetInfo: { targetId: 'T1', type: 'page', url: `${origin}/` } } });
    await until(() => browser.sent.some((message) => message.method === 'Page.enable'), 'the attach');
    expect(browser.sent.filter((message) => message.method === 'Target.attachToTarget').map((message) => message.params.targetId)).toEqual(['T1']);
    // A crash of another page is not ours; ours is navigated back at once, and again for a second crash right after.
    browser.emit({ method: 'Target.targetCrashed', params: { targetId: 'other', status: 'crashed', errorCode: 1 } });
    browser.emit({ method: 'Target.targetCrashed', params: { targetId: 'T1', status: 'crashed', errorCode: 1 } });
    await until(() => recovered.length === 1, 'the first recovery');
    browser.emit({ method: 'Target.targetCrashed', params: { targetId: 'T1', status: 'crashed', errorCode: 1 } });
    await until(() => recovered.length === 2, 'the second recovery');
    const navigations = browser.sent.filter((message) => message.method === 'Page.navigate');
    expect(navigations).toEqual([
      expect.objectContaining({ params: { url: `${origin}/` }, sessionId: 'S1' }),
      expect.objectContaining({ params: { url: `${origin}/` }, sessionId: 'S1' }),
    ]);
    expect(recovered).toEqual(['crashed', 'crashed']);
    expect(browser.sent.some((message) => message.method === 'Page.crash')).toBe(false);
  });

  it('a page that stops answering is crashed on purpose, then navigated back', async () => {
    const browser = fakeBrowser({ answerEvaluate: false });
    const recovered: string[] = [];
    watchdogs.push(new PageWatchdog({ ...browser, origin, log: memoryLogger(), pingMs: 50, hangMs: 200, onRecovered: ({ why }) => recovered.push(why) }));
    browser.emit({ method: 'Target.targetCreated', params: { targetInfo: { targetId: 'T1', type: 'page', url: `${origin}/` } } });
    await until(() => recovered.length === 1, 'the recovery of a hung page');
    expect(recovered).toEqual(['hung']);
    const methods = browser.sent.map((message) => message.method);
    expect(methods.indexOf('Page.crash')).toBeGreaterThan(methods.indexOf('Runtime.evaluate'));
    expect(methods.indexOf('Page.navigate')).toBeGreaterThan(methods.indexOf('Page.crash'));
  });
});

describe('the web shell page watchdog off a kiosk', () => {
  it('with hangMs false asks nothing and leaves a slow page alone; a crash is still recovered', async () => {
    const browser = fakeBrowser({ answerEvaluate: false });
    const recovered: string[] = [];
    watchdogs.push(new PageWatchdog({ ...browser, origin, log: memoryLogger(), pingMs: 20, hangMs: false, onRecovered: ({ why }) => recovered.push(why) }));
    browser.emit({ method: 'Target.targetCreated', params: { targetInfo: { targetId: 'T1', type: 'page', url: `${origin}/` } } });
    await until(() => browser.sent.some((message) => message.method === 'Page.enable'), 'the attach');
    browser.emit({ method: 'Target.targetCrashed', params: { targetId: 'T1', status: 'crashed', errorCode: 1 } });
    await until(() => recovered.length === 1, 'the recovery');
    expect(recovered).toEqual(['crashed']);
    expect(browser.sent.some((message) => message.method === 'Runtime.evaluate' || message.method === 'Page.crash')).toBe(false);
  });
});
