import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, sessionUrl, startShell } from './support/app';

/**
 * The web shell's gesture check in Chromium: a call is the user's only while the page has
 * transient user activation. Playwright's own evaluations and locators run with a user gesture
 * (CDP `userGesture: true`), so the script part runs in a page Playwright has not touched,
 * through a bare CDP Runtime.evaluate (no gesture), exactly like a script of the page itself.
 */

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs page script the way the page's own code runs: no user gesture. */
async function scriptIn(page: Page): Promise<(expression: string) => Promise<unknown>> {
  const cdp = await page.context().newCDPSession(page);
  return async (expression) => {
    const answer = await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text);
    return answer.result.value as unknown;
  };
}

/** A page function that waits (up to 20 s) for the element `find` returns. */
const waitFor = (find: string) => `new Promise((resolve, reject) => {
  const started = Date.now();
  const tick = () => {
    const element = (${find})();
    if (element) return resolve(true);
    if (Date.now() - started > 20000) return reject(new Error('not found: ' + ${JSON.stringify(find)}));
    setTimeout(tick, 50);
  };
  tick();
})`;
const button = (name: string) =>
  `() => [...document.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim().startsWith(${JSON.stringify(name)}))`;

describe('user gestures in the web shell', () => {
  it('refuses a confirmation a script clicked and takes the same one from a real click', { timeout: 90_000 }, async () => {
    const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-gesture-'));
    dirs.push(userData);
    const shell = await startShell(userData);
    const app = await openApp(shell);
    // A second tab with the first one's session (as Duplicate makes it), which Playwright never evaluates in until the real click.
    const page = await app.page.context().newPage();
    const frames: string[] = [];
    page.on('websocket', (socket) => {
      socket.on('framesent', (frame) => frames.push(String(frame.payload)));
      socket.on('framereceived', (frame) => frames.push(String(frame.payload)));
    });
    try {
      await page.goto(await sessionUrl(app.page));
      const run = await scriptIn(page);
      await run(waitFor(button('Chat with the demo assistant')));
      await run(`(${button('Chat with the demo assistant')})().click()`);
      await run(waitFor(`() => document.querySelector('textarea[name="message"]')`));
      await run(`(() => {
        const field = document.querySelector('textarea[name="message"]');
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(field, 'talkie-test:action');
        field.dispatchEvent(new Event('input', { bubbles: true }));
      })()`);
      await run(`document.querySelector('form.composer').requestSubmit()`);
      await run(waitFor(button('Confirm: ')));
      expect(await run('navigator.userActivation.isActive')).toBe(false);

      // The script clicks Confirm: the app's own handler calls talkie.decide, without activation.
      await run(`(${button('Confirm: ')})().click()`);
      await expect.poll(() => frames.find((frame) => frame.includes('no_user_gesture')), { timeout: 10_000 }).toBeDefined();
      const decideCalls = () => frames.filter((frame) => frame.includes('"channel":"agentdesk:talkie.decide"'));
      expect(decideCalls()).toHaveLength(1);
      expect(decideCalls()[0]).toContain('"activation":false');
      expect(await run(`Boolean((${button('Confirm: ')})())`)).toBe(true);

      // A real click (input events through the browser) confirms it.
      await page.getByRole('button', { name: /^Confirm: / }).click();
      await page.getByRole('log', { name: 'Conversation' }).getByRole('article', { name: 'Test action done' }).waitFor();
      expect(decideCalls()).toHaveLength(2);
      expect(decideCalls()[1]).toContain('"activation":true');
    } finally {
      await page.close();
      await app.close();
      await shell.stop();
    }
  });
});
