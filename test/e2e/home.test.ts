import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { writeLaunchFile } from '../../src/main/webshell/browser';
import { closeBrowser, openApp, startShell } from './support/app';

const userDirs: string[] = [];
async function userDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
  userDirs.push(dir);
  return dir;
}

afterAll(async () => {
  await closeBrowser();
  await Promise.all(userDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** What has keyboard focus, described by role and accessible name. */
async function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return 'body';
    const labelledBy = element.getAttribute('aria-labelledby');
    const label =
      element.getAttribute('aria-label') ??
      (labelledBy ? document.getElementById(labelledBy)?.textContent : null) ??
      (element as HTMLInputElement).labels?.[0]?.textContent ??
      element.textContent ??
      '';
    return `${element.tagName.toLowerCase()}:${label.trim()}`;
  });
}

/** Presses Tab until the focused element matches, at most `limit` times; returns the path taken. */
async function tabTo(page: Page, target: RegExp, limit = 30): Promise<string[]> {
  const path: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    path.push(now);
    if (target.test(now)) return path;
  }
  throw new Error(`never reached ${target} by Tab; focus went: ${path.join(' → ')}`);
}

describe('AgentDesk in Chromium through the web shell', () => {
  it('opens to the home screen with no console errors and no CSP violations', async () => {
    const shell = await startShell(await userDataDir());
    const app = await openApp(shell);
    try {
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      await expect(app.page.getByRole('textbox', { name: 'Agent address' }).isVisible()).resolves.toBe(true);
      await expect(app.page.getByRole('heading', { name: 'Built-in demo' }).isVisible()).resolves.toBe(true);
      // The hardware details open from the sidebar's compact control.
      await app.page.getByRole('button', { name: /^Hardware/ }).click();
      await expect(app.page.getByRole('heading', { name: 'Hardware' }).isVisible()).resolves.toBe(true);
      // The one-time launch code was exchanged for a session whose secret left the address bar for the tab's sessionStorage; no cookie.
      expect(new URL(app.page.url()).pathname).toBe('/');
      expect(app.page.url()).not.toContain('code=');
      expect(app.page.url()).not.toContain('#');
      expect(await app.page.context().cookies()).toEqual([]);
      await app.screenshot('home-1280x800');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it("enforces the page's CSP: JavaScript eval and new Function throw, while WebAssembly compiles and runs (the voice detector's runtime)", async () => {
    const shell = await startShell(await userDataDir());
    const app = await openApp(shell);
    try {
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      const outcome = await app.page.evaluate(async () => {
        const attempt = (run: () => unknown): string => {
          try {
            run();
            return 'ran';
          } catch (error) {
            return (error as Error).name;
          }
        };
        // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
        const bytes = new Uint8Array([
          0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01, 0x03,
          0x61, 0x64, 0x64, 0x00, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b,
        ]);
        const module = await WebAssembly.compile(bytes);
        const instance = await WebAssembly.instantiate(module);
        return {
          // The point: the page's CSP must refuse both.
          eval: attempt(() => eval('1')),
          newFunction: attempt(() => new Function('')),
          wasmAdd: (instance.exports.add as (a: number, b: number) => number)(2, 3),
        };
      });
      expect(outcome).toEqual({ eval: 'EvalError', newFunction: 'EvalError', wasmAdd: 5 });
      // The two refusals are the page's only CSP reports; compiling WebAssembly is none.
      await expect.poll(() => app.problems.filter((problem) => problem.startsWith('CSP:'))).toEqual(['CSP: script-src eval', 'CSP: script-src eval']);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it('is operable by keyboard alone: Settings, a theme change, and back home', async () => {
    const shell = await startShell(await userDataDir());
    const app = await openApp(shell);
    const { page } = app;
    try {
      await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      const path = await tabTo(page, /^button:Settings$/);
      expect(path[0]).toMatch(/^a:Skip to content$/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      expect(await focused(page)).toBe('h1:Settings');

      await tabTo(page, /^input:.*System/);
      const themeBefore = await page.evaluate(() => document.documentElement.dataset.theme);
      // Move through radio groups with the arrow keys until the theme is dark.
      await tabTo(page, /^input:.*(System|Light|Dark)/);
      for (let i = 0; i < 3 && (await page.evaluate(() => document.documentElement.dataset.theme)) !== 'dark'; i++) {
        await page.keyboard.press('ArrowDown');
        await page.waitForTimeout(100);
      }
      expect(themeBefore).not.toBe('dark');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await app.screenshot('settings-dark-1280x800');

      await page.keyboard.press('Escape');
      await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      expect(await focused(page)).toBe('h1:Your agents');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it('keeps an added agent and the settings across a restart, and explains a refused address', async () => {
    const dir = await userDataDir();
    const first = await startShell(dir);
    const app = await openApp(first);
    try {
      // The address is checked first: without a network here it cannot be reached, and is added anyway.
      await app.page.getByRole('textbox', { name: 'Agent address' }).fill('crm.example.com');
      await app.page.getByRole('button', { name: 'Check', exact: true }).click();
      await app.page.getByRole('button', { name: /^Add( anyway)?$/ }).click();
      await app.page.getByRole('main').getByText('crm.example.com', { exact: true }).waitFor();
      await app.page.getByRole('textbox', { name: 'Agent address' }).fill('http://example.com');
      await app.page.getByRole('button', { name: 'Check', exact: true }).click();
      await app.page
        .getByText(/development/)
        .first()
        .waitFor();
      expect(await app.page.getByRole('textbox', { name: 'Agent address' }).inputValue()).toBe('http://example.com');
      expect(await app.page.getByRole('textbox', { name: 'Agent address' }).getAttribute('aria-invalid')).toBe('true');
      await app.page.getByRole('button', { name: 'Settings' }).click();
      await app.page.getByRole('radio', { name: 'Dark' }).check();
      await app.page.getByText('Saved').first().waitFor();
    } finally {
      await app.close();
      await first.stop();
    }

    const second = await startShell(dir);
    const again = await openApp(second, { width: 1920, height: 1080 });
    try {
      await again.page.getByRole('main').getByText('crm.example.com', { exact: true }).waitFor();
      expect(await again.page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await expect(again.page.getByRole('button', { name: /Remove crm\.example\.com/ }).isVisible()).resolves.toBe(true);
      await again.screenshot('home-kiosk-1920x1080');
      expect(again.problems).toEqual([]);
    } finally {
      await again.close();
      await second.stop();
    }
  });

  it('shows a clear message when the page is opened without the launch link, or with one already used', async () => {
    const shell = await startShell(await userDataDir());
    const first = await openApp(shell);
    const plain = await openApp({ ...shell, launchUrl: `${new URL(shell.launchUrl).origin}/` });
    const spent = await openApp(shell);
    try {
      await first.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      for (const app of [plain, spent]) {
        await app.page.getByRole('heading', { level: 1, name: 'AgentDesk is not connected' }).waitFor();
        await app.page.getByText(/A launch link works once/).waitFor();
      }
      expect(shell.output()).toContain('refused a WebSocket connection without a session of this shell');
    } finally {
      await Promise.all([first.close(), plain.close(), spent.close()]);
      await shell.stop();
    }
  });

  it('opens through a launch file as npm start --open does: the code is never on a command line', async () => {
    const shell = await startShell(await userDataDir());
    const file = await writeLaunchFile(shell.launchUrl);
    const app = await openApp({ ...shell, launchUrl: file.url });
    try {
      await app.page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
      expect(new URL(app.page.url()).pathname).toBe('/');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await file.remove();
      await shell.stop();
    }
  });
});
