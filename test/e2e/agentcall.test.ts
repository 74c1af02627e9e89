import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { nfcHardwareUnavailableReason } from '../support/nfc/nfc-harness';
import { startPcscd, type Pcscd } from '../support/nfc/pcscd';
import { randomUid, type2Memory } from '../support/nfc/type2-tag';
import { uidLeaks } from '../support/nfc/uid-forms';
import { VirtualCard } from '../support/nfc/virtual-card';
import { closeBrowser, openApp, startShell, waitForNewestMessageInView, type AppPage, type RunningShell } from './support/app';
import { expectNoViolations } from './support/axe';
import { installFakeReader, type FakeReader } from './support/fake-reader';

/**
 * AgentCall in Chromium through the web shell, against the built-in demo's AgentCall side: an
 * agent-requested photo from the fake camera, and (with pcscd and the virtual reader) a real tap
 * taught to the agent, confirmed and recognised on the next tap, with every IPC frame and the
 * shell's log searched for the tag's hardware ID.
 */

const userDirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(userDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const unavailable = nfcHardwareUnavailableReason();
if (unavailable) console.log(`AgentCall e2e with a real tap skipped: ${unavailable}`);

async function openDemoSession(
  env: Record<string, string> = {},
  options: { fakeReader?: boolean } = {},
): Promise<{ shell: RunningShell; app: AppPage; page: Page; reader: FakeReader | undefined }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
  userDirs.push(dir);
  if (env.AGENTDESK_NFC_KEY_FILE === '') {
    const keyFile = join(dir, 'device-key');
    await writeFile(keyFile, Buffer.alloc(32, 0x42).toString('hex'));
    await chmod(keyFile, 0o600);
    env.AGENTDESK_NFC_KEY_FILE = keyFile;
  }
  const shell = await startShell(dir, { env });
  let reader: FakeReader | undefined;
  const app = await openApp(
    shell,
    { width: 1280, height: 800 },
    options.fakeReader ? { beforeLoad: async (page) => void (reader = await installFakeReader(page)) } : {},
  );
  const { page } = app;
  await page.getByRole('button', { name: 'Scan and teach objects' }).click();
  await messages(page).waitFor();
  // The session is established once the tools are usable.
  await expect.poll(() => page.getByRole('button', { name: /Take a photo/ }).isEnabled()).toBe(true);
  return { shell, app, page, reader };
}

/** The Conversation log's share of the window's height, and the elements inside it that scroll on their own. */
async function layout(page: Page): Promise<{ share: number; nestedScrollers: string[] }> {
  return page.evaluate(() => {
    const log = document.querySelector<HTMLElement>('[role="log"][aria-label="Conversation"]');
    if (!log) return { share: 0, nestedScrollers: ['no log'] };
    const nestedScrollers = [...log.querySelectorAll<HTMLElement>('*')]
      .filter((element) => /(auto|scroll)/.test(getComputedStyle(element).overflowY) && element.scrollHeight > element.clientHeight + 1)
      .map((element) => element.className || element.tagName);
    return { share: log.getBoundingClientRect().height / window.innerHeight, nestedScrollers };
  });
}

/** Stages a tag (read on the fake reader) and a photo (from the fake camera): both wait at the end of the conversation. */
async function stageTagAndPhoto(page: Page, reader: FakeReader): Promise<void> {
  await page.getByRole('button', { name: 'Scan object' }).click();
  await page.getByText('Hold the tag to the reader.').first().waitFor();
  reader.tap('urn:agentcall:object:workshop-router');
  await messages(page).getByRole('region', { name: 'Tag read, not sent yet' }).waitFor();
  await page.getByRole('button', { name: /Take a photo/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Take or choose a photo' });
  await dialog.getByRole('button', { name: 'Open camera' }).click();
  await page.waitForFunction(() => {
    const video = document.querySelector('video');
    return video !== null && video.videoWidth > 0 && !video.paused;
  });
  await dialog.getByRole('button', { name: 'Take photo' }).click();
  await messages(page).getByRole('region', { name: 'Photo taken, not sent yet' }).waitFor();
  await expect(dialog.count()).resolves.toBe(0);
}

const messages = (page: Page) => page.getByRole('log', { name: 'Conversation' });

async function say(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

describe('AgentCall with the built-in demo in Chromium', () => {
  it('answers the agent’s photo request with a frame from the fake camera, tied to the request; a picture dropped on the window is reviewed and sent', async () => {
    const { shell, app, page } = await openDemoSession();
    try {
      await say(page, 'take a photo');
      // The request is in the conversation, where it was asked, with its controls.
      const request = messages(page).getByRole('region', { name: 'The agent asks you to take a photo' });
      await request.waitFor();
      await request.getByRole('button', { name: 'Take the photo' }).click();
      const dialog = page.getByRole('dialog', { name: 'Take or choose a photo' });
      await dialog.getByRole('button', { name: 'Open camera' }).click();
      await page.waitForFunction(() => {
        const video = document.querySelector('video');
        return video !== null && video.videoWidth > 0 && !video.paused;
      });
      await dialog.getByRole('button', { name: 'Take photo' }).click();
      // The photo waits in the conversation (not in the dialog) for Send.
      const staged = messages(page).getByRole('region', { name: 'Photo taken, not sent yet' });
      await staged.getByRole('img', { name: /^The photo as it will be sent, \d+ × \d+ pixels$/ }).waitFor();
      await expect(dialog.count()).resolves.toBe(0);
      await app.screenshot('agentcall-photo-staged-1280x800');
      await staged.getByRole('button', { name: 'Send to the agent' }).click();
      // The request is answered and the agent verified the JPEG (byte count, hash, real dimensions).
      await messages(page).getByText('Answered.').waitFor();
      await messages(page)
        .getByText(/I received a \d+×\d+ photo/)
        .waitFor();
      await expect(request.count()).resolves.toBe(0);
      await messages(page)
        .getByRole('img', { name: /^The photo you sent, \d+ × \d+ pixels$/ })
        .waitFor();
      // The photo the user sent sits on the right and only as wide as it needs.
      const list = await messages(page).locator('ol').boundingBox();
      const sent = await messages(page)
        .locator('.agentcall-observation', { has: page.getByRole('img', { name: /^The photo you sent/ }) })
        .boundingBox();
      expect(sent && list ? list.x + list.width - (sent.x + sent.width) : Number.NaN).toBeLessThan(2);
      expect(sent && list ? sent.width / list.width : Number.NaN).toBeLessThan(0.6);
      await app.screenshot('agentcall-photo-request');

      // A picture dropped on the window (no request waiting now) opens the review with it, processed in main.
      const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#33aa77' } })
        .png()
        .toBuffer();
      const transfer = await page.evaluateHandle((base64) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))], 'label.png', { type: 'image/png' }));
        return data;
      }, png.toString('base64'));
      await page.evaluate((data) => document.body.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true })), transfer);
      await page.getByText('Drop the picture to review it as a photo for AgentDesk demo agent').waitFor();
      await app.screenshot('agentcall-drop-picture');
      await page.evaluate((data) => document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true })), transfer);
      const review = messages(page).getByRole('region', { name: 'Photo taken, not sent yet' });
      await review.getByText(/^800 × 600 pixels, /).waitFor();
      await review.getByRole('button', { name: 'Send photo' }).click();
      await messages(page)
        .getByText(/I received a 800×600 photo/)
        .waitFor();
      await expect(page.getByText(/^Drop the picture/).count()).resolves.toBe(0);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it(
    'leaves the conversation most of the window with a tag read and a photo staged, at 1280×800 (≥ 60 %), 800×600 and with large text (≥ 50 %), with nothing in it scrolling on its own',
    { timeout: 120_000 },
    async () => {
      const { shell, app, page, reader } = await openDemoSession({}, { fakeReader: true });
      try {
        if (!reader) throw new Error('no fake reader');
        await say(page, 'hello');
        await messages(page)
          .getByText(/I'm the AgentDesk demo agent/)
          .first()
          .waitFor();
        await stageTagAndPhoto(page, reader);
        // The tools are in the composer's row: one line with the field at this width.
        const field = await page.getByRole('textbox', { name: 'Message' }).boundingBox();
        const scan = await page.getByRole('button', { name: 'Scan object' }).boundingBox();
        expect(field && scan ? Math.abs(field.y + field.height / 2 - (scan.y + scan.height / 2)) : Number.NaN).toBeLessThan(field ? field.height / 2 : 0);
        const wide = await layout(page);
        await app.screenshot('agentcall-staged-1280x800');
        await expectNoViolations(page, 'AgentCall with a tag read and a photo staged');
        console.log(`AgentCall, a tag read and a photo staged: the log takes ${(wide.share * 100).toFixed(1)} % of 1280×800`);
        expect(wide.share).toBeGreaterThanOrEqual(0.6);
        expect(wide.nestedScrollers).toEqual([]);

        await page.setViewportSize({ width: 800, height: 600 });
        await page.getByRole('region', { name: 'Photo taken, not sent yet' }).waitFor();
        const small = await layout(page);
        await app.screenshot('agentcall-staged-800x600');
        console.log(`… ${(small.share * 100).toFixed(1)} % of 800×600`);
        expect(small.share).toBeGreaterThanOrEqual(0.5);
        expect(small.nestedScrollers).toEqual([]);

        // Large text (Settings), back in the same live session: staged again, then measured.
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.getByRole('button', { name: 'Settings' }).click();
        await page.getByRole('radio', { name: 'Large' }).check();
        await page
          .getByRole('navigation')
          .getByRole('button', { name: /Demo: objects and photos/ })
          .click();
        await messages(page)
          .getByText(/I'm the AgentDesk demo agent/)
          .first()
          .waitFor();
        await stageTagAndPhoto(page, reader);
        const large = await layout(page);
        await app.screenshot('agentcall-staged-large-text-1280x800');
        console.log(`… ${(large.share * 100).toFixed(1)} % of 1280×800 with large text`);
        expect(large.share).toBeGreaterThanOrEqual(0.5);
        expect(large.nestedScrollers).toEqual([]);
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );

  describe.skipIf(unavailable !== undefined)('with pcscd and the virtual reader', () => {
    it('teaches the agent a tapped tag, confirms it, recognises it on the next tap, and never shows the tag’s ID', { timeout: 120_000 }, async () => {
      const pcscd: Pcscd = await startPcscd();
      const uid = randomUid();
      const tap = () => VirtualCard.insert({ uid, memory: type2Memory({ uid }) });
      let card: VirtualCard | undefined;
      // pcscd stops whatever happens next, opening the session too.
      const opened = await openDemoSession({ AGENTDESK_NFC_KEY_FILE: '' }).catch(async (error: unknown) => {
        await pcscd.stop();
        throw error;
      });
      const { shell, app, page } = opened;
      try {
        // The reader came up in the shell's reader process before the session started.
        const scan = page.getByRole('button', { name: 'Scan object' });
        await expect.poll(() => scan.isEnabled(), { timeout: 20_000 }).toBe(true);

        await scan.click();
        await page.getByText('Hold the tag to the reader.').first().waitFor();
        card = await tap();
        await page.getByRole('button', { name: 'Send scan' }).click();
        await messages(page)
          .getByText(/I don't know this object yet/)
          .waitFor();
        await card.remove();

        await say(page, 'teach object Workshop router');
        await messages(page).getByText('“Workshop router” will be remembered for this object.').waitFor();
        await app.screenshot('agentcall-teaching-proposal');
        await messages(page).getByRole('button', { name: 'Confirm' }).click();
        await messages(page).getByText('Confirmed.').waitFor();

        await scan.click();
        card = await tap();
        await page.getByRole('button', { name: 'Send scan' }).click();
        await messages(page).getByText('This is "Workshop router".').waitFor({ timeout: 15_000 });
        await waitForNewestMessageInView(page);
        await app.screenshot('agentcall-recognised');

        // The hardware ID never left main: not in any IPC frame, not in the shell's log.
        expect(app.frames.length).toBeGreaterThan(10);
        expect(uidLeaks(app.frames.join('\n'), uid)).toEqual([]);
        expect(uidLeaks(shell.output(), uid)).toEqual([]);
        expect(app.problems).toEqual([]);
      } catch (error) {
        await app.screenshot('agentcall-tap-failed');
        console.log(shell.output().split('\n').slice(-40).join('\n'));
        console.log('card controls', card?.controls, 'apdus', card?.apdus);
        console.log(
          app.frames
            .filter((frame) => /nfc/.test(frame) && !/hardware/.test(frame))
            .map((frame) => frame.slice(0, 300))
            .join('\n'),
        );
        throw error;
      } finally {
        await card?.remove().catch(() => undefined);
        await app.close();
        await shell.stop();
        await pcscd.stop();
      }
    });
  });
});
