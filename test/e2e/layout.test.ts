import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, screenshotDir, startShell } from './support/app';

/**
 * The app shell's layout in Chromium, for the demo's three agent screens at three window sizes:
 * the composer is wholly inside the window and the transcript is what scrolls (the document does
 * not), on arrival and after a message was sent. Screenshots (of the window, as the user sees it)
 * go to test-results/screenshots/layout-*.png.
 */

const sizes = [
  { width: 1280, height: 800 },
  { width: 1024, height: 640 },
  { width: 390, height: 800 },
] as const;

const screens = [
  { name: 'talkie', link: 'Demo: chat with an assistant', message: 'talkie-test:echo Hello from the layout test' },
  { name: 'agentcall', link: 'Demo: objects and photos', message: 'Hello from the layout test' },
  { name: 'agui', link: 'Demo: an agent at work', message: 'Hello from the layout test' },
] as const;

interface Layout {
  viewport: { width: number; height: number };
  composer: { top: number; bottom: number; left: number; right: number } | undefined;
  documentScrolls: boolean;
  transcript: { overflowY: string; clientHeight: number; scrollHeight: number } | undefined;
}

function measure(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const form = document.querySelector('form.composer');
    const region = document.querySelector('[role="log"][aria-label="Conversation"]');
    const box = form?.getBoundingClientRect();
    const root = document.scrollingElement ?? document.documentElement;
    return {
      viewport: { width: window.innerWidth, height: window.innerHeight },
      composer: box ? { top: box.top, bottom: box.bottom, left: box.left, right: box.right } : undefined,
      documentScrolls: root.scrollHeight > root.clientHeight + 1 || root.scrollWidth > root.clientWidth + 1,
      transcript: region ? { overflowY: getComputedStyle(region).overflowY, clientHeight: region.clientHeight, scrollHeight: region.scrollHeight } : undefined,
    };
  });
}

function expectUsable(layout: Layout, where: string) {
  const { viewport, composer, transcript } = layout;
  expect(composer, `${where}: no composer`).toBeDefined();
  expect(transcript, `${where}: no transcript`).toBeDefined();
  expect(composer!.top, `${where}: composer top`).toBeGreaterThanOrEqual(0);
  expect(composer!.left, `${where}: composer left`).toBeGreaterThanOrEqual(0);
  expect(composer!.bottom, `${where}: composer bottom`).toBeLessThanOrEqual(viewport.height);
  expect(composer!.right, `${where}: composer right`).toBeLessThanOrEqual(viewport.width);
  expect(layout.documentScrolls, `${where}: the document scrolls`).toBe(false);
  expect(transcript!.overflowY, `${where}: the transcript does not scroll`).toBe('auto');
  expect(transcript!.clientHeight, `${where}: the transcript has no room`).toBeGreaterThan(40);
}

/** The sidebar entries whose box (the current one's highlight included) reaches past the sidebar's edge. */
function sidebarOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const sidebar = document.querySelector('nav.sidebar');
    if (!sidebar) return ['no sidebar'];
    const edge = sidebar.getBoundingClientRect().right;
    return [...sidebar.querySelectorAll('button')]
      .filter((button) => button.getBoundingClientRect().right > edge + 0.5)
      .map((button) => `${button.textContent ?? ''}: ${button.getBoundingClientRect().right.toFixed(0)} > ${edge.toFixed(0)}`);
  });
}

/** Fills the transcript until it overflows, so that "the transcript scrolls" is measured, not assumed. */
async function sendUntilItScrolls(page: Page, message: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  for (let sent = 0; sent < 12; sent++) {
    await box.fill(`${message} ${sent + 1}`);
    await box.press('Enter');
    await page
      .getByRole('log', { name: 'Conversation' })
      .getByText(`${message} ${sent + 1}`, { exact: false })
      .first()
      .waitFor({ timeout: 30_000 });
    // The next message waits until the run ended (the composer's Cancel is gone).
    await expect.poll(() => page.locator('form.composer').getByRole('button', { name: 'Cancel' }).count(), { timeout: 30_000 }).toBe(0);
    const layout = await measure(page);
    if (layout.transcript && layout.transcript.scrollHeight > layout.transcript.clientHeight) return;
  }
}

const dirs: string[] = [];

beforeAll(async () => {
  await mkdir(screenshotDir, { recursive: true });
});

afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the app shell layout in Chromium', () => {
  for (const size of sizes) {
    it(`at ${size.width}×${size.height}: the composer stays in the window and only the transcript scrolls`, { timeout: 180_000 }, async () => {
      // A launch link works once: a shell per window size.
      const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-layout-'));
      dirs.push(dir);
      const sized = await startShell(dir);
      const app = await openApp(sized, size);
      const { page } = app;
      const narrow = size.width <= 700;
      try {
        await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
        for (const target of screens) {
          const where = `${target.name} at ${size.width}×${size.height}`;
          if (narrow) {
            const menu = page.getByRole('button', { name: 'Open the menu' });
            await menu.click();
            await page.getByRole('button', { name: target.link }).click();
          } else {
            await page.getByRole('button', { name: target.link }).click();
          }
          // Opening a demo agent takes a moment, and until then the previous screen (and its composer) stays:
          // the new screen is there once its sidebar entry is the current page (the drawer may hide it).
          await page.locator('.sidebar__item[aria-current="page"]', { hasText: target.link }).waitFor({ state: 'attached', timeout: 30_000 });
          const box = page.getByRole('textbox', { name: 'Message' });
          await box.waitFor({ timeout: 30_000 });
          await expect.poll(() => box.isEnabled(), { timeout: 30_000 }).toBe(true);
          expectUsable(await measure(page), `${where}, on arrival`);
          if (!narrow) expect(await sidebarOverflow(page), `${where}: sidebar entries wider than the sidebar`).toEqual([]);
          await page.screenshot({ path: `${screenshotDir}/layout-${target.name}-${size.width}x${size.height}.png` });

          await sendUntilItScrolls(page, target.message);
          const after = await measure(page);
          expectUsable(after, `${where}, after sending`);
          expect(after.transcript!.scrollHeight, `${where}: the transcript did not fill up`).toBeGreaterThan(after.transcript!.clientHeight);
          // The focused box is still on screen after sending.
          await expect(page.evaluate(() => document.activeElement?.getAttribute('name'))).resolves.toBe('message');
          await page.screenshot({ path: `${screenshotDir}/layout-${target.name}-${size.width}x${size.height}-sent.png` });
        }
        if (narrow) {
          // The drawer: the menu button opens it, Escape closes it and focus goes back to the button.
          const menu = page.getByRole('button', { name: 'Open the menu' });
          await menu.click();
          await page.getByRole('button', { name: 'Settings', exact: true }).waitFor();
          await expect(page.getByRole('button', { name: 'Settings', exact: true }).isVisible()).resolves.toBe(true);
          await page.screenshot({ path: `${screenshotDir}/layout-drawer-${size.width}x${size.height}.png` });
          await page.keyboard.press('Escape');
          await expect.poll(() => page.getByRole('button', { name: 'Settings', exact: true }).isVisible()).toBe(false);
          await expect(menu.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
        }
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await sized.stop();
      }
    });
  }
});
