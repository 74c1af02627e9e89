import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainFailure } from './support/app';
import { expectNoViolations } from './support/axe';
import { kioskPin as pin, startKioskShell, waitForStartScreen, type KioskShell } from './support/kiosk-shell';

/**
 * The kiosk (issue #18) in Chromium: the web shell as a kiosk would run it (`--open --policy FILE`,
 * Chromium started by the shell, headless here, its DevTools on the shell's pipe), with the test
 * watching the same Chromium on a debugging port. The agents are the built-in demo's AgentCall and
 * plain AG-UI sides, started as their own server (`agentdesk demo`): a locked agent list refuses
 * the in-app demo, and the policy lists the demo's loopback addresses instead (support/kiosk-shell.ts).
 */

let kiosk: KioskShell;
let page: Page;
let userData = '';
let frames: string[] = [];

const startHeading = (target: Page) => target.getByRole('heading', { level: 1, name: 'Touch the screen to start' });

beforeAll(async () => {
  kiosk = await startKioskShell();
  ({ userData, frames } = kiosk);
  page = await kiosk.page();
}, 90_000);

afterAll(async () => {
  await kiosk?.stop();
});

/**
 * Presses a key and says whether the page saw it and whether it was prevented; the page must still be
 * the same document (not reloaded, not navigated away) either way.
 */
async function pressInKiosk(target: Page, key: string): Promise<'prevented' | 'passed' | 'not delivered'> {
  const url = target.url();
  await target.evaluate(() => {
    const w = window as unknown as { __keys?: KeyboardEvent[]; __alive?: boolean };
    w.__alive = true;
    if (!w.__keys) {
      const seen: KeyboardEvent[] = (w.__keys = []);
      window.addEventListener('keydown', (event) => {
        // The modifier's own keydown is not the shortcut.
        if (!['Control', 'Shift', 'Alt', 'Meta'].includes(event.key)) seen.push(event);
      }, { capture: true });
    }
    w.__keys.length = 0;
  });
  await target.keyboard.press(key);
  await target.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
  const seen = await target.evaluate(() => {
    const w = window as unknown as { __keys: KeyboardEvent[]; __alive?: boolean };
    return { alive: w.__alive === true, events: w.__keys.length, prevented: w.__keys.every((event) => event.defaultPrevented) };
  });
  expect(seen.alive, `${key}: the page was reloaded`).toBe(true);
  expect(target.url(), `${key}: the page navigated`).toBe(url);
  return seen.events === 0 ? 'not delivered' : seen.prevented ? 'prevented' : 'passed';
}

describe('the kiosk (issue #18) in Chromium', () => {
  it('opens on the start screen; a touch opens the start agent; the agent list is locked', async () => {
    await explainFailure(page, 'kiosk-start', () => waitForStartScreen(page));
    await expectNoViolations(page, 'kiosk start screen');
    // A touch anywhere on the screen starts (not only the button).
    await page.getByRole('heading', { level: 1 }).click();
    await explainFailure(page, 'kiosk-start-agent', () => page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 20_000 }));
    const nav = page.getByRole('navigation');
    await nav.getByRole('button', { name: /Workshop/ }).waitFor();
    await nav.getByRole('button', { name: /Runner/ }).waitFor();
    expect(await nav.getByRole('button', { name: /Add an agent|Demo/ }).count()).toBe(0);
    await nav.getByRole('button', { name: 'AgentDesk' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Rename|Remove)/ }).count()).toBe(0);
    expect(await page.getByRole('textbox', { name: /address/i }).count()).toBe(0);
  });

  it('blocks navigation away, new windows, the context menu and the browser keys the page sees', async () => {
    const before = page.url();
    await page.evaluate(() => {
      const link = document.createElement('a');
      link.href = 'https://example.com/';
      link.id = 'kiosk-probe';
      link.textContent = 'probe';
      document.body.append(link);
    });
    await page.locator('#kiosk-probe').click();
    await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
    expect(page.url()).toBe(before);
    expect(await page.evaluate(() => window.open('https://example.com/'))).toBeNull();
    const contextMenu = await page.evaluate(() => {
      const event = new MouseEvent('contextmenu', { bubbles: true, cancelable: true });
      document.body.dispatchEvent(event);
      return event.defaultPrevented;
    });
    expect(contextMenu).toBe(true);
    await page.evaluate(() => document.getElementById('kiosk-probe')?.remove());
    const outcomes: Record<string, string> = {};
    for (const key of ['F5', 'Control+r', 'Control+Shift+r', 'Alt+ArrowLeft', 'Alt+ArrowRight', 'Control+o', 'Control+s', 'Control+p', 'Control+l', 'Control+f', 'Control+Shift+i', 'F12']) {
      outcomes[key] = await pressInKiosk(page, key);
    }
    console.log(`kiosk keys: ${Object.entries(outcomes).map(([key, outcome]) => `${key} ${outcome}`).join(', ')}`);
    // Every browser key the page sees is swallowed; Chromium keeps some for itself (those are the Electron window's to block).
    expect(Object.entries(outcomes).filter(([, outcome]) => outcome === 'passed')).toEqual([]);
    expect(Object.values(outcomes).filter((outcome) => outcome === 'prevented').length).toBeGreaterThan(5);
    // The page's own keys pass.
    expect(await pressInKiosk(page, 'Tab')).toBe('passed');
  });

  it('opens Settings only with the admin PIN, and Settings names what the policy sets', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Administrator PIN' });
    await dialog.waitFor();
    await expectNoViolations(page, 'kiosk PIN prompt');
    await dialog.getByLabel('PIN').fill(pin);
    await dialog.getByRole('button', { name: 'Unlock' }).click();
    await explainFailure(page, 'kiosk-settings', () => page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor());
    const forced = page.getByRole('region', { name: 'Set by the administrator' });
    await forced.getByText('Text size').waitFor();
  });

  it('after idleResetSeconds a countdown shows; then every session ends and the transcript, a draft, a staged photo and the AG-UI thread file are wiped', async () => {
    const nav = page.getByRole('navigation');
    // An AG-UI run: its thread is saved on disk.
    await nav.getByRole('button', { name: /Runner/ }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('hello runner');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const threads = join(userData, 'agui-threads');
    await expect.poll(async () => (existsSync(threads) ? (await readdir(threads, { recursive: true })).length : 0), { timeout: 15_000 }).toBeGreaterThan(0);
    // The AgentCall session: a message answered, a draft, and a staged photo.
    await nav.getByRole('button', { name: /Workshop/ }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor();
    await box.fill('hello kiosk');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const messages = page.getByRole('log', { name: 'Conversation' });
    await messages.getByText('hello kiosk').waitFor();
    await page.getByRole('main').getByRole('button', { name: /Take a photo/ }).click();
    const photo = page.getByRole('dialog', { name: 'Take or choose a photo' });
    await photo.getByRole('button', { name: 'Open camera' }).click();
    await page.waitForFunction(() => {
      const video = document.querySelector('video');
      return video !== null && video.videoWidth > 0;
    });
    await photo.getByRole('button', { name: 'Take photo' }).click();
    // The photo waits in the conversation for Send (main holds it staged).
    await messages.getByRole('region', { name: 'Photo taken, not sent yet' }).getByRole('img').waitFor();
    await expect.poll(() => frames.some((frame) => frame.includes('"photoId"')), { timeout: 10_000 }).toBe(true);
    await box.fill('half typed').catch(() => undefined);

    // Nothing touched for 10 s: the countdown. The demo's answer is read aloud first (Read answers aloud is on),
    // and the agent's voice playing counts as someone there (kiosk/activity.ts): about 13 s of espeak-ng, then 10 s.
    const countdown = page.getByRole('alertdialog', { name: 'Are you still there?' });
    await explainFailure(page, 'kiosk-countdown', () => countdown.waitFor({ timeout: 60_000 }));
    await expectNoViolations(page, 'kiosk idle countdown');
    await explainFailure(page, 'kiosk-reset', () => waitForStartScreen(page));

    // Main's answer: a session and the two runs ended, the staged photo dropped, the AG-UI file deleted.
    const reset = frames.map((frame) => /"discardedPhotos":(\d+)[^}]*"removedFiles":(\d+)/.exec(frame) ?? /"ended":(\d+),"discardedPhotos":(\d+),"removedFiles":(\d+)/.exec(frame)).filter(Boolean).at(-1);
    expect(reset, 'a kiosk.reset answer').toBeTruthy();
    expect(kiosk.shell.output(), kiosk.shell.output()).toMatch(/\[kiosk\] reset in \d+ ms: [1-9]\d* ended, 1 photos, [1-9]\d* files/);
    expect(existsSync(threads)).toBe(false);
    // Main's UI memory is empty: a reload of the page restores nothing.
    frames.length = 0;
    await page.reload();
    await startHeading(page).waitFor();
    await expect.poll(() => frames.find((frame) => frame.includes('"drafts"')), { timeout: 10_000 }).toMatch(/"drafts":\[\]/);
    expect(frames.join('\n')).not.toContain('half typed');
    // The next person gets a fresh session: no transcript, no draft, no photo.
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.getByRole('log', { name: 'Conversation' }).waitFor();
    expect(await page.getByRole('log', { name: 'Conversation' }).getByText('hello kiosk').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    // A live session, not the last one's ended view.
    await page.getByRole('textbox', { name: 'Message' }).fill('the next person');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('log', { name: 'Conversation' }).getByText('the next person').waitFor();
  }, 90_000);

  it('the admin PIN prompt shows the lockout wait after wrong tries', async () => {
    await page.getByRole('navigation').getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Administrator PIN' });
    await dialog.waitFor();
    for (let attempt = 1; attempt <= 6; attempt += 1) {
      const input = dialog.getByLabel('PIN');
      if (!(await input.isEnabled())) break;
      await input.fill('0000');
      await dialog.getByRole('button', { name: 'Unlock' }).click();
      await dialog.getByText('Wrong PIN.').waitFor();
    }
    await explainFailure(page, 'kiosk-pin-lockout', () => dialog.getByText(/Try again in \d+ s\./).waitFor());
    expect(await dialog.getByLabel('PIN').isDisabled()).toBe(true);
    await expectNoViolations(page, 'kiosk PIN prompt after wrong tries');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  }, 60_000);

  it('a crashed renderer is reloaded by the shell onto the start screen', async () => {
    const session = await page.context().newCDPSession(page);
    void session.send('Page.crash').catch(() => undefined);
    await expect.poll(() => /page crashed: reloaded in \d+ ms/.test(kiosk.shell.output()), { timeout: 10_000 }).toBe(true);
    await kiosk.disconnect();
    page = await kiosk.page();
    await explainFailure(page, 'kiosk-after-crash', () => startHeading(page).waitFor({ timeout: 10_000 }));
  }, 60_000);

  it('a hung renderer (a script that never returns) is crashed and reloaded by the shell onto the start screen', async () => {
    const session = await page.context().newCDPSession(page);
    const before = kiosk.shell.output().match(/page hung: reloaded in/g)?.length ?? 0;
    void session.send('Runtime.evaluate', { expression: 'for (;;) {}' }).catch(() => undefined);
    await expect.poll(() => kiosk.shell.output().match(/page hung: reloaded in/g)?.length ?? 0, { timeout: 15_000 }).toBe(before + 1);
    await kiosk.disconnect();
    page = await kiosk.page();
    await explainFailure(page, 'kiosk-after-hang', () => waitForStartScreen(page, 10_000));
  }, 60_000);
});

