import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell } from './support/app';

const userDirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(userDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('photo capture in Chromium through the web shell', () => {
  it('captures a frame from the fake camera, processes it in main and shows the result', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
    userDirs.push(dir);
    const shell = await startShell(dir);
    const app = await openApp(shell);
    try {
      const { page } = app;
      // The camera lives in the sidebar's hardware popover.
      await page.getByRole('button', { name: /^Hardware/ }).click();
      await page.getByRole('button', { name: 'Take a photo…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Take or choose a photo' });
      await dialog.getByRole('button', { name: 'Open camera' }).click();
      // The fake device's frames are playing.
      await page.waitForFunction(() => {
        const video = document.querySelector('video');
        return video !== null && video.videoWidth > 0 && !video.paused;
      });
      const size = await page.evaluate(() => {
        const video = document.querySelector('video')!;
        return { width: video.videoWidth, height: video.videoHeight };
      });
      await dialog.getByRole('button', { name: 'Take photo' }).click();
      await dialog.getByRole('button', { name: 'Send' }).waitFor();
      // The camera is off: no live video track is left.
      expect(await page.evaluate(() => document.querySelector('video'))).toBeNull();
      const image = dialog.getByRole('img', { name: /^The photo as it will be sent, \d+ × \d+ pixels$/ });
      const shown = await image.evaluate((element: HTMLImageElement) =>
        element.decode().then(() => ({ src: element.src, width: element.naturalWidth, height: element.naturalHeight })),
      );
      expect(shown.src).toMatch(/^blob:/);
      const scale = Math.min(1, 1024 / Math.max(size.width, size.height));
      expect(shown.width).toBe(Math.round(size.width * scale));
      expect(shown.height).toBe(Math.round(size.height * scale));
      await expect(dialog.getByText(new RegExp(`^${shown.width} × ${shown.height} pixels, [\\d.]+ KB$`)).isVisible()).resolves.toBe(true);
      await app.screenshot('photo-review');
      await dialog.getByRole('button', { name: 'Discard' }).click();
      await dialog.getByRole('button', { name: 'Open camera' }).waitFor();
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });
});
