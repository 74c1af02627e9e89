import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translate, type MessageKey } from '../../src/renderer/i18n/strings';
import { defaultSettings, type Settings } from '../../src/shared/settings/settings';
import { speechUnavailableReason } from '../support/speech';
import { closeBrowser, explainFailure, openApp, startShell, type AppPage, type RunningShell } from './support/app';
import { expectNoViolations } from './support/axe';

/**
 * The one conversation screen's geometry (#26) in Chromium: on every agent screen — the demo's plain
 * AG-UI run with its question open, its Talkie chat with a few messages, its AgentCall session with
 * a photo in the conversation, and during a voice call (Talkie, and AgentCall's Talk by voice) — the
 * element with role log named "Conversation" takes at least 60 % of the window's height at 1280×800,
 * and at least 50 % at 800×600 and at 1280×800 with large text; in English and Czech, light and
 * dark, with no axe violation. Every figure is printed (`geometry: …`), every state is kept as a
 * screenshot (test-results/screenshots/geometry-*.png). A start-up notice is shown all along (a
 * damaged agents.json, moved aside): it is one line. The shell around it: at 800×600 the sidebar is a
 * drawer, and Hardware and Settings stay in view however long the agent's chat list is.
 *
 * A screen without that log (not the one conversation screen) fails and says so.
 */

interface Variant {
  language: 'en' | 'cs';
  theme: 'light' | 'dark';
  textSize: 'normal' | 'large';
}

const variants: Variant[] = [
  { language: 'en', theme: 'light', textSize: 'normal' },
  { language: 'cs', theme: 'dark', textSize: 'normal' },
  { language: 'en', theme: 'dark', textSize: 'large' },
  { language: 'cs', theme: 'light', textSize: 'large' },
];

interface Size {
  width: number;
  height: number;
}

const wide: Size = { width: 1280, height: 800 };
const small: Size = { width: 800, height: 600 };

/** The issue's goals: the log's share of the window height, per window size and text size (undefined: a figure only). */
function goal(variant: Variant, size: Size): number | undefined {
  if (variant.textSize === 'large') return size === wide ? 0.5 : undefined;
  return size === wide ? 0.6 : 0.5;
}

const speechMissing = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (speechMissing) console.log(`conversation geometry: the cases during a call are skipped: ${speechMissing}`);

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A shell whose settings file says the variant's language, theme and text size (as Settings would save them). */
async function startVariant(variant: Variant): Promise<RunningShell> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-geometry-'));
  dirs.push(dir);
  const settings: Settings = { ...defaultSettings, language: variant.language, appearance: { theme: variant.theme, textSize: variant.textSize } };
  await writeFile(join(dir, 'settings.json'), JSON.stringify(settings));
  // A start-up notice above every screen, as a user with a damaged file has it.
  await writeFile(join(dir, 'agents.json'), 'not json');
  // Talk by voice (AgentCall's client-owned voice) needs a recognizer: the demo's own, pocketsphinx.
  return startShell(dir, { env: { AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' } });
}

interface LogGeometry {
  window: Size;
  /** The log's box, clipped to the window; undefined when the page has no such log. */
  log: { top: number; bottom: number; height: number } | undefined;
  /** The old screens' transcript (a region named Messages), for the figure "before". */
  oldTranscript: { height: number } | undefined;
  documentScrolls: boolean;
}

function measureLog(page: Page, logName: string, oldName: string): Promise<LogGeometry> {
  return page.evaluate(
    ({ logName, oldName }) => {
      const visible = (element: Element | undefined) => {
        if (!element) return undefined;
        const box = element.getBoundingClientRect();
        const top = Math.max(0, box.top);
        const bottom = Math.min(window.innerHeight, box.bottom);
        return { top, bottom, height: Math.max(0, bottom - top) };
      };
      const named = (role: string, name: string) =>
        [...document.querySelectorAll(`[role="${role}"]`)].find((element) => element.getAttribute('aria-label') === name);
      const root = document.scrollingElement ?? document.documentElement;
      const old = visible(named('region', oldName));
      return {
        window: { width: window.innerWidth, height: window.innerHeight },
        log: visible(named('log', logName)),
        oldTranscript: old ? { height: old.height } : undefined,
        documentScrolls: root.scrollHeight > root.clientHeight + 1,
      };
    },
    { logName, oldName },
  );
}

/** Whether a control is wholly inside the window and nothing covers its middle (it can be seen and clicked). */
function inView(
  control: Locator,
): Promise<{ inside: boolean; uncovered: boolean; box: { top: number; bottom: number; left: number; right: number } | undefined }> {
  return control.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const inside =
      box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight + 0.5 && box.right <= window.innerWidth + 0.5;
    const hit = inside ? document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) : null;
    return { inside, uncovered: hit !== null && element.contains(hit), box: { top: box.top, bottom: box.bottom, left: box.left, right: box.right } };
  });
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** Waits until a resize has been laid out (two animation frames). */
async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

interface Screen {
  /** For names and messages: `talkie`, `agui-question`, … */
  id: string;
  title: string;
  call?: boolean;
  open(context: VariantContext): Promise<void>;
  /** After the measurements: leave nothing running (a call is hung up). */
  close?(context: VariantContext): Promise<void>;
}

interface VariantContext {
  page: Page;
  app: AppPage;
  variant: Variant;
  t(key: MessageKey, params?: Record<string, string | number>): string;
}

async function openFromSidebar({ page, t }: VariantContext, link: MessageKey): Promise<void> {
  await page
    .getByRole('navigation', { name: t('shell.navigation') })
    .getByRole('button', { name: t(link), exact: true })
    .click();
  // Until the demo agent is open the previous screen stays: the new one is there once its entry is the current page.
  await page.locator('.sidebar__item[aria-current="page"]', { hasText: t(link) }).waitFor({ timeout: 30_000 });
  const box = page.getByRole('textbox', { name: t('chat.composer.label') });
  await box.waitFor({ timeout: 30_000 });
  await expect.poll(() => box.isEnabled(), { timeout: 30_000 }).toBe(true);
}

async function send(context: VariantContext, text: string): Promise<void> {
  const box = context.page.getByRole('textbox', { name: context.t('chat.composer.label') });
  await box.fill(text);
  await box.press('Enter');
}

/** The page's transcript, old (region Messages) or new (log Conversation), whichever this screen has. */
function transcriptOf({ page, t }: VariantContext): Locator {
  return page.getByRole('log', { name: t('conversation.label') }).or(page.getByRole('region', { name: t('chat.messagesLabel') }));
}

async function talkieChat(context: VariantContext): Promise<void> {
  await openFromSidebar(context, 'shell.demoChat');
  for (const words of ['Hello there', 'What can you do?', 'Show me something']) {
    await send(context, `talkie-test:echo ${words}`);
    await transcriptOf(context).getByText(words, { exact: true }).last().waitFor({ timeout: 30_000 });
  }
}

const screens: Screen[] = [
  {
    id: 'agui-question',
    title: 'plain AG-UI: the demo run with its question open',
    async open(context) {
      await openFromSidebar(context, 'shell.demoWatch');
      await send(context, 'please apply the plan');
      // The demo's question (Approve the change), in the transcript: answered with Allow or Deny.
      await transcriptOf(context)
        .getByRole('button', { name: context.t('conversation.approval.allow') })
        .first()
        .waitFor({ timeout: 60_000 });
    },
  },
  {
    id: 'talkie-chat',
    title: 'Talkie: the demo chat with a few messages',
    open: talkieChat,
  },
  {
    id: 'agentcall-photo',
    title: 'AgentCall: the demo session with a photo taken in the photo dialog',
    async open(context) {
      const { page, t } = context;
      await openFromSidebar(context, 'shell.demoAgentCall');
      await page
        .getByRole('main')
        .getByRole('button', { name: t('agentcall.photo.open') })
        .click();
      const dialog = page.getByRole('dialog', { name: t('photo.dialogTitle') });
      await dialog.getByRole('button', { name: t('photo.openCamera') }).click();
      await page.waitForFunction(() => {
        const video = document.querySelector('video');
        return video !== null && video.videoWidth > 0 && !video.paused;
      });
      await dialog.getByRole('button', { name: t('photo.capture') }).click();
      // Staged in main. Where the dialog still holds it, its Send puts it in the conversation.
      const photoInTranscript = transcriptOf(context).getByRole('img').first();
      // The dialog hands the photo to the conversation by itself (staged, with Send photo there): a Send
      // of the dialog's own is clicked only while it is still there (the dialog may close meanwhile).
      await dialog.or(photoInTranscript).first().waitFor();
      const send = dialog.getByRole('button', { name: t('photo.send'), exact: true });
      if (await send.isVisible()) await send.click({ timeout: 5_000 }).catch(() => undefined);
      await photoInTranscript.waitFor({ timeout: 30_000 });
    },
  },
  {
    id: 'talkie-call',
    title: 'Talkie: during a voice call',
    call: true,
    async open(context) {
      const { page, t } = context;
      await talkieChat(context);
      const callPrefix = t('voice.callNamed', { name: '\u0000' }).split('\u0000')[0]!;
      await page.getByRole('button', { name: new RegExp(`^${escapeRegExp(callPrefix)}`) }).click();
      const consent = page.getByRole('dialog');
      await consent.getByRole('button', { name: t('voice.consent.continue') }).click();
      await explainFailure(page, `geometry-talkie-call-failed-${context.variant.language}`, () =>
        page
          .getByRole('group', { name: t('voice.controlsLabel') })
          .getByText(t('voice.phase.listening'), { exact: true })
          .waitFor({ timeout: 60_000 }),
      );
    },
    async close({ page, t }) {
      await page.getByRole('button', { name: t('voice.hangUp') }).click();
    },
  },
  {
    id: 'agentcall-call',
    title: 'AgentCall: during Talk by voice',
    call: true,
    async open(context) {
      const { page, t } = context;
      await openFromSidebar(context, 'shell.demoAgentCall');
      await page.getByRole('button', { name: t('agentcall.voice.talk') }).click();
      await explainFailure(page, `geometry-agentcall-call-failed-${context.variant.language}`, () =>
        page
          .getByRole('group', { name: t('agentcall.voice.label') })
          .getByText(t('voice.phase.listening'), { exact: true })
          .waitFor({ timeout: 60_000 }),
      );
    },
  },
];

const variantName = (variant: Variant) => `${variant.language}-${variant.theme}-${variant.textSize}`;

for (const variant of variants) {
  describe(`the conversation's height in ${variant.language === 'en' ? 'English' : 'Czech'}, ${variant.theme} theme, ${variant.textSize} text`, () => {
    let shell: RunningShell;
    let app: AppPage;
    let context: VariantContext;

    beforeAll(async () => {
      shell = await startVariant(variant);
      app = await openApp(shell, wide);
      context = { page: app.page, app, variant, t: (key, params) => translate(variant.language, key, params) };
      await app.page.getByRole('heading', { level: 1, name: context.t('home.title') }).waitFor();
      expect(await app.page.evaluate(() => ({ ...document.documentElement.dataset }))).toMatchObject({ theme: variant.theme, textSize: variant.textSize });
    });

    afterAll(async () => {
      await app?.close();
      await shell?.stop();
    });

    for (const screen of screens) {
      it.skipIf(screen.call === true && speechMissing !== undefined)(screen.title, { timeout: 180_000 }, async () => {
        const { page, t } = context;
        const problemsBefore = app.problems.length;
        await page.setViewportSize(wide);
        const name = `geometry-${screen.id}-${variantName(variant)}`;
        await explainFailure(page, `${name}-failed`, () => screen.open(context));
        const failures: string[] = [];
        try {
          for (const size of [wide, small]) {
            await page.setViewportSize(size);
            await settle(page);
            const where = `${screen.title}, ${variantName(variant)}, ${size.width}×${size.height}`;
            await app.screenshot(`${name}-${size.width}x${size.height}`);
            const shape = await measureLog(page, t('conversation.label'), t('chat.messagesLabel'));
            if (shape.documentScrolls) failures.push(`${where}: the document scrolls`);
            if (!shape.log) {
              const before = shape.oldTranscript
                ? ` (its old transcript takes ${percent(shape.oldTranscript.height / shape.window.height)} of the height)`
                : '';
              console.log(`geometry: ${where}: no Conversation log${before}`);
              failures.push(`${where}: no element with role log named "${t('conversation.label')}"${before}: this screen is not the one conversation screen`);
              continue;
            }
            const share = shape.log.height / shape.window.height;
            const wanted = goal(variant, size);
            console.log(
              `geometry: ${where}: the Conversation log is ${shape.log.height.toFixed(0)} px of ${shape.window.height} px = ${percent(share)}${wanted === undefined ? ' (a figure, no goal)' : ` (goal ≥ ${percent(wanted)})`}`,
            );
            if (wanted !== undefined && share < wanted)
              failures.push(`${where}: the Conversation log takes ${percent(share)} of the window height, the goal is ≥ ${percent(wanted)}`);
            await expectNoViolations(page, where).catch((error: unknown) => failures.push(error instanceof Error ? error.message : String(error)));
          }
        } finally {
          await page.setViewportSize(wide);
          await screen.close?.(context).catch(() => undefined);
        }
        expect(failures).toEqual([]);
        // The page's console errors in this case (the page is shared by the variant's cases).
        expect(app.problems.slice(problemsBefore)).toEqual([]);
      });
    }

    it('the start-up notice is one line, with Details and Dismiss', async () => {
      const { page, t } = context;
      const problemsBefore = app.problems.length;
      for (const size of [wide, small]) {
        await page.setViewportSize(size);
        await settle(page);
        const banner = page.locator('.notices__banner');
        const dismiss = banner.getByRole('button', { name: t('shell.dismissNoticesLabel') });
        const details = banner.getByRole('button', { name: t('error.details') });
        await dismiss.waitFor();
        const [bannerBox, dismissBox, detailsBox, title] = await Promise.all([
          banner.boundingBox(),
          dismiss.boundingBox(),
          details.boundingBox(),
          banner.getByText(t('shell.noticesTitle')).boundingBox(),
        ]);
        console.log(`geometry: the start-up notice at ${size.width}×${size.height}, ${variantName(variant)}: ${bannerBox?.height.toFixed(0)} px high`);
        // One row: Dismiss, Details and the title side by side, the banner hardly taller than Dismiss.
        expect(bannerBox!.height, `${size.width}×${size.height}: the notice is more than one line`).toBeLessThanOrEqual(dismissBox!.height + 16);
        expect(Math.abs(detailsBox!.y + detailsBox!.height / 2 - (dismissBox!.y + dismissBox!.height / 2))).toBeLessThan(4);
        expect(Math.abs(title!.y + title!.height / 2 - (dismissBox!.y + dismissBox!.height / 2))).toBeLessThan(4);
      }
      // Details shows the whole text and the cause; Hide details makes it one line again.
      await page.setViewportSize(small);
      await page
        .locator('.notices__banner')
        .getByRole('button', { name: t('error.details') })
        .click();
      await page.locator('.notices__banner').getByText('not valid JSON', { exact: false }).waitFor();
      await app.screenshot(`geometry-notice-open-${variantName(variant)}-800x600`);
      await page
        .locator('.notices__banner')
        .getByRole('button', { name: t('error.hideDetails') })
        .click();
      await page.setViewportSize(wide);
      expect(app.problems.slice(problemsBefore)).toEqual([]);
    });

    it(
      'the sidebar: Hardware and Settings stay in view with the Talkie demo open and its chats listed; at 800×600 it is a drawer',
      { timeout: 180_000 },
      async () => {
        const { page, t } = context;
        const problemsBefore = app.problems.length;
        await page.setViewportSize(wide);
        await explainFailure(page, `geometry-sidebar-failed-${variantName(variant)}`, async () => {
          await openFromSidebar(context, 'shell.demoChat');
          // Chats enough to fill the sidebar: each a new chat with one message.
          const chats = page.getByRole('navigation', { name: t('chat.threads.title') });
          for (let made = 0; made < 6; made++) {
            await chats.getByRole('button', { name: t('chat.threads.new') }).click();
            // The new chat is open (empty) before its message is typed: typed earlier, it met the chat that was closing.
            await expect.poll(() => transcriptOf(context).locator('.transcript__item').count(), { timeout: 30_000 }).toBe(0);
            const before = await chats.getByRole('listitem').count();
            await send(context, `talkie-test:echo Chat number ${made + 1}`);
            await expect.poll(() => chats.getByRole('listitem').count(), { timeout: 30_000 }).toBeGreaterThan(before);
          }
        });
        const nav = page.getByRole('navigation', { name: t('shell.navigation') });
        const hardware = nav.getByRole('button', { name: new RegExp(`^${escapeRegExp(t('hardware.title'))}`) });
        const settings = nav.getByRole('button', { name: t('shell.settings'), exact: true });
        const problems: string[] = [];
        const footerInView = async (where: string) => {
          for (const [name, control] of [
            ['Hardware', hardware],
            ['Settings', settings],
          ] as const) {
            const seen = await inView(control);
            console.log(`geometry: ${where}: ${name} ${seen.inside && seen.uncovered ? 'in view' : `NOT in view (${JSON.stringify(seen.box)})`}`);
            if (!seen.inside || !seen.uncovered) problems.push(`${where}: ${name} is not in view (${seen.inside ? 'covered' : 'outside the window'})`);
          }
        };

        await settle(page);
        const sidebarWide = await nav.boundingBox();
        console.log(`geometry: the sidebar at 1280×800, ${variantName(variant)}: ${sidebarWide?.width.toFixed(0)} px wide`);
        await footerInView(`1280×800, ${variantName(variant)}`);
        // The lists scroll, the footer does not: scrolled to the end, Hardware is where it was.
        const before = await hardware.boundingBox();
        await page.locator('.sidebar__scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
        await settle(page);
        expect((await hardware.boundingBox())?.y, 'Hardware moved when the sidebar scrolled').toBe(before?.y);
        await app.screenshot(`geometry-sidebar-${variantName(variant)}-1280x800`);

        await page.setViewportSize(small);
        await settle(page);
        const menu = page.getByRole('button', { name: t('shell.openMenuLabel') });
        const closed = await page.evaluate(() => ({
          sidebarVisible: document.querySelector('nav.sidebar')?.checkVisibility({ visibilityProperty: true }) ?? false,
          mainLeft: document.querySelector('main')?.getBoundingClientRect().left ?? Number.NaN,
        }));
        console.log(
          `geometry: the sidebar at 800×600, ${variantName(variant)}: ${closed.sidebarVisible ? 'shown beside the conversation' : 'a closed drawer'}; the conversation starts at x = ${closed.mainLeft.toFixed(0)} px`,
        );
        if (closed.sidebarVisible) problems.push(`800×600, ${variantName(variant)}: the sidebar is shown beside the conversation, not a drawer`);
        await menu.click();
        await settle(page);
        const drawer = await nav.boundingBox();
        console.log(`geometry: the drawer at 800×600, ${variantName(variant)}: ${drawer?.width.toFixed(0)} px wide`);
        await footerInView(`800×600 drawer, ${variantName(variant)}`);
        await expectNoViolations(page, `the drawer at 800×600, ${variantName(variant)}`);
        await app.screenshot(`geometry-drawer-${variantName(variant)}-800x600`);
        // Escape closes the drawer, gives the focus back to Menu, and stays on the conversation.
        await page.keyboard.press('Escape');
        await expect.poll(() => nav.isVisible()).toBe(false);
        expect(await menu.evaluate((element) => element === document.activeElement)).toBe(true);
        await page.getByRole('textbox', { name: t('chat.composer.label') }).waitFor();
        await page.setViewportSize(wide);
        expect(problems).toEqual([]);
        expect(app.problems.slice(problemsBefore)).toEqual([]);
      },
    );
  });
}
