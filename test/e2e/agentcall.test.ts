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

async function openDemoSession(env: Record<string, string> = {}): Promise<{ shell: RunningShell; app: AppPage; page: Page }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
  userDirs.push(dir);
  if (env.AGENTDESK_NFC_KEY_FILE === '') {
    const keyFile = join(dir, 'device-key');
    await writeFile(keyFile, Buffer.alloc(32, 0x42).toString('hex'));
    await chmod(keyFile, 0o600);
    env.AGENTDESK_NFC_KEY_FILE = keyFile;
  }
  const shell = await startShell(dir, { env });
  const app = await openApp(shell);
  const { page } = app;
  await page.getByRole('button', { name: 'Scan and teach objects' }).click();
  await page.getByText('Accepts NFC scans and photos').waitFor();
  // The session is established once the composer is usable.
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return { shell, app, page };
}

async function say(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

const messages = (page: Page) => page.getByRole('region', { name: 'Messages' });

describe('AgentCall with the built-in demo in Chromium', () => {
  it('answers the agent’s photo request with a frame from the fake camera, tied to the request; a picture dropped on the window is reviewed and sent', async () => {
    const { shell, app, page } = await openDemoSession();
    try {
      await say(page, 'take a photo');
      const panel = page.getByRole('region', { name: 'The agent asks you to take a photo' });
      await panel.waitFor();
      await panel.getByRole('button', { name: 'Take the photo' }).click();
      const dialog = page.getByRole('dialog', { name: 'Take or choose a photo' });
      await dialog.getByRole('button', { name: 'Open camera' }).click();
      await page.waitForFunction(() => {
        const video = document.querySelector('video');
        return video !== null && video.videoWidth > 0 && !video.paused;
      });
      await dialog.getByRole('button', { name: 'Take photo' }).click();
      await dialog.getByRole('button', { name: 'Send' }).click();
      // The request is answered and the agent verified the JPEG (byte count, hash, real dimensions).
      await messages(page).getByText('Answered.').waitFor();
      await messages(page).getByText(/I received a \d+×\d+ photo/).waitFor();
      await expect(panel.count()).resolves.toBe(0);
      await messages(page).getByRole('img', { name: /^The photo you sent, \d+ × \d+ pixels$/ }).waitFor();
      // The user's own entries (text and photo) sit on the right and only as wide as they need, as in the chat screen.
      const list = await messages(page).locator('ol').boundingBox();
      for (const item of [messages(page).locator('li.agentcall-item--userText', { hasText: 'take a photo' }), messages(page).locator('li', { has: page.getByRole('img', { name: /^The photo you sent/ }) })]) {
        const box = await item.boundingBox();
        expect(box && list ? list.x + list.width - (box.x + box.width) : Number.NaN).toBeLessThan(2);
        expect(box && list ? box.width / list.width : Number.NaN).toBeLessThan(0.6);
      }
      await app.screenshot('agentcall-photo-request');

      // A picture dropped on the window (no request waiting now) opens the review with it, processed in main.
      const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#33aa77' } }).png().toBuffer();
      const transfer = await page.evaluateHandle((base64) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))], 'label.png', { type: 'image/png' }));
        return data;
      }, png.toString('base64'));
      await page.evaluate((data) => document.body.dispatchEvent(new DragEvent('dragenter', { dataTransfer: data, bubbles: true })), transfer);
      await page.getByText('Drop the picture to review it as a photo for AgentDesk demo agent').waitFor();
      await app.screenshot('agentcall-drop-picture');
      await page.evaluate((data) => document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true })), transfer);
      const review = page.getByRole('dialog', { name: 'Take or choose a photo' });
      await review.getByText(/^800 × 600 pixels, /).waitFor();
      await review.getByRole('button', { name: 'Send' }).click();
      await messages(page).getByText(/I received a 800×600 photo/).waitFor();
      await expect(page.getByText(/^Drop the picture/).count()).resolves.toBe(0);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  describe.skipIf(unavailable !== undefined)('with pcscd and the virtual reader', () => {
    it('teaches the agent a tapped tag, confirms it, recognises it on the next tap, and never shows the tag’s ID', { timeout: 120_000 }, async () => {
      const pcscd: Pcscd = await startPcscd();
      const uid = randomUid();
      const tap = () => VirtualCard.insert({ uid, memory: type2Memory({ uid }) });
      let card: VirtualCard | undefined;
      const { shell, app, page } = await openDemoSession({ AGENTDESK_NFC_KEY_FILE: '' });
      try {
        // The reader came up in the shell's reader process before the session started.
        const scan = page.getByRole('button', { name: 'Scan object' });
        await expect.poll(() => scan.isEnabled(), { timeout: 20_000 }).toBe(true);

        await scan.click();
        await page.getByText('Hold the tag to the reader.').first().waitFor();
        card = await tap();
        await page.getByRole('button', { name: 'Send scan' }).click();
        await messages(page).getByText(/I don't know this object yet/).waitFor();
        await card.remove();

        await say(page, 'teach object Workshop router');
        await messages(page).getByText('“Workshop router” will be remembered for object').waitFor();
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
        console.log(app.frames.filter((frame) => /nfc/.test(frame) && !/hardware/.test(frame)).map((frame) => frame.slice(0, 300)).join('\n'));
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
