import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translate, type MessageKey } from '../../src/renderer/i18n/strings';
import { closeBrowser, explainFailure, openApp, screenshotDir, startShell, type AppPage, type RunningShell } from './support/app';
import { installFakeReader, type FakeReader } from './support/fake-reader';

/**
 * The user guide's pictures (docs/user-guide.md), taken from the built-in demo in Chromium at
 * 1280×800: Home, a Talkie chat with a card and an action, the plain AG-UI run with its question, the
 * AgentCall "objects and photos" session with a photo sent and a tag read, and Settings.
 *
 * The tag comes from the e2e's fake reader (test/e2e/support/fake-reader.ts: the page believes in a
 * connected reader and gets a scan result), so the pictures need no pcscd; a real tap through pcscd's
 * virtual reader is agentcall.test.ts's job. The tag is shown read, not sent: main would refuse it.
 *
 * `npm run docs:screenshots` runs this file with DOCS_SCREENSHOTS_DIR=docs/images, and the PNGs it
 * writes there are committed; in `npm test` the same walk runs and its pictures go to
 * test-results/screenshots/docs-*.png, so the guide's steps keep working without touching docs/.
 *
 * Elements are found by their role and by the demo's own words (what the demo agent answers), and the
 * few app labels through the string catalogue, so a reworded button does not break the walk.
 */

const outputDir = process.env.DOCS_SCREENSHOTS_DIR ? resolve(process.env.DOCS_SCREENSHOTS_DIR) : undefined;
const viewport = { width: 1280, height: 800 };
const t = (key: MessageKey, params?: Record<string, string | number>) => translate('en', key, params);

let dir: string;
let shell: RunningShell;
let app: AppPage;
let page: Page;
let reader: FakeReader;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-docs-'));
  shell = await startShell(dir);
  app = await openApp(shell, viewport, { beforeLoad: async (opened) => void (reader = await installFakeReader(opened)) });
  page = app.page;
  await page.getByRole('heading', { level: 1, name: t('home.title') }).waitFor();
});

afterAll(async () => {
  await app?.close();
  await shell?.stop();
  await closeBrowser();
  await rm(dir, { recursive: true, force: true });
});

/** Saves the window as it is (not the whole scrolled page): docs/images/<name>.png, or test-results/screenshots/docs-<name>.png. */
async function picture(name: string): Promise<void> {
  // A start-up notice (no keychain on a test machine) is not what a user's screen shows: dismiss it.
  const dismiss = page.getByRole('button', { name: t('shell.dismissNoticesLabel') });
  if (await dismiss.isVisible()) await dismiss.click();
  // Let animations and the streaming caret settle, and nothing keep the focus ring on a clicked button.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
  const path = outputDir ? join(outputDir, `${name}.png`) : join(screenshotDir, `docs-${name}.png`);
  await mkdir(outputDir ?? screenshotDir, { recursive: true });
  await page.screenshot({ path, animations: 'disabled' });
  console.log(`docs screenshot: ${path}`);
}

/** The agent screen's main area, where the conversation is, whichever screen the protocol has. */
const main = (): Locator => page.getByRole('main');

/** Opens one of the demo's three sides from the sidebar and waits until its message box takes text. */
async function openDemo(entry: MessageKey): Promise<void> {
  await page
    .getByRole('navigation', { name: t('shell.navigation') })
    .getByRole('button', { name: t(entry), exact: true })
    .click();
  const box = main().getByRole('textbox', { name: t('chat.composer.label') });
  await box.waitFor({ timeout: 30_000 });
  await expect.poll(() => box.isEnabled(), { timeout: 30_000 }).toBe(true);
}

/**
 * Types a message and sends it with Enter. A screen still ending the previous answer (or still
 * connecting) may keep the text: Enter is pressed again, once a second, until the box is empty.
 */
async function send(text: string): Promise<void> {
  const box = main().getByRole('textbox', { name: t('chat.composer.label') });
  await box.fill(text);
  await expect
    .poll(
      async () => {
        if ((await box.inputValue()) !== '') await box.press('Enter');
        return box.inputValue();
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe('');
}

/** The demo's own words, once they are on the screen. */
async function shows(text: string | RegExp, timeout = 30_000): Promise<void> {
  await main().getByText(text).last().waitFor({ timeout });
}

describe('the user guide’s screenshots, from the built-in demo', () => {
  it('Home: your agents, the built-in demo and the sidebar', async () => {
    await explainFailure(page, 'docs-home-failed', async () => {
      await page.getByRole('heading', { level: 1, name: t('home.title') }).waitFor();
      await page.getByRole('heading', { name: t('demo.title') }).waitFor();
    });
    await picture('home');
    expect(app.problems).toEqual([]);
  });

  it('a Talkie chat: a tool, a card, and an action that waits for Confirm', { timeout: 120_000 }, async () => {
    await explainFailure(page, 'docs-talkie-failed', async () => {
      await openDemo('shell.demoChat');
      await send('search contacts');
      // The demo's card of contacts, then its words.
      await shows('Jana Nováková');
      await shows(/I found/);
      await send('send the offer');
      await shows(/The offer is ready/);
      // The action's own buttons, named after what they do.
      await main()
        .getByRole('button', { name: /^Confirm/ })
        .last()
        .waitFor();
    });
    await picture('talkie-chat');
    expect(app.problems).toEqual([]);
  });

  it('the plain AG-UI run, stopped at its question', { timeout: 120_000 }, async () => {
    await explainFailure(page, 'docs-agui-failed', async () => {
      await openDemo('shell.demoWatch');
      await send('please apply the plan');
      // The demo's question, asked in the conversation.
      await shows(/Apply the plan to demo-network\?/, 60_000);
    });
    await picture('agui-question');
    expect(app.problems).toEqual([]);
  });

  it('the AgentCall "objects and photos" session, with a photo sent and a tag read', { timeout: 120_000 }, async () => {
    await explainFailure(page, 'docs-agentcall-failed', async () => {
      await openDemo('shell.demoAgentCall');
      await send('hello');
      await shows(/I understand "scan an object"/);
      await main()
        .getByRole('button', { name: t('agentcall.photo.open') })
        .click();
      const dialog = page.getByRole('dialog', { name: t('photo.dialogTitle') });
      await dialog.getByRole('button', { name: t('photo.openCamera') }).click();
      await page.waitForFunction(() => {
        const video = document.querySelector('video');
        return video !== null && video.videoWidth > 0 && !video.paused;
      });
      await dialog.getByRole('button', { name: t('photo.capture') }).click();
      // The photo waits in the conversation until Send photo.
      await main()
        .getByRole('button', { name: t('agentcall.staged.sendPhoto') })
        .click();
      await shows(/I received a \d+×\d+ photo/);
      // Then a tag, read and waiting to be sent.
      await main()
        .getByRole('button', { name: t('nfcScan.scan') })
        .click();
      reader.tap('urn:agentcall:object:workshop-router');
      await main()
        .getByRole('region', { name: t('agentcall.staged.tag') })
        .waitFor();
    });
    await picture('agentcall-tag-photo');
    expect(app.problems).toEqual([]);
  });

  it('Settings', async () => {
    await explainFailure(page, 'docs-settings-failed', async () => {
      await page
        .getByRole('navigation', { name: t('shell.navigation') })
        .getByRole('button', { name: t('shell.settings'), exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: t('settings.title') }).waitFor();
    });
    await picture('settings');
    expect(app.problems).toEqual([]);
  });
});
