import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, openApp, startShell, type AppPage, type RunningShell } from './support/app';

/**
 * axe-core on each main screen in Chromium through the web shell: Home (and its photo dialog), the Talkie
 * demo chat after one message, the AgentCall demo, the AG-UI demo and Settings. Any violation fails, with its id, help and nodes.
 */

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

interface AxeFindings {
  violations: Violation[];
  passes: number;
  incomplete: { id: string; nodes: number }[];
}

async function violations(page: Page): Promise<AxeFindings> {
  // The app's CSP (script-src 'self') blocks page.addScriptTag's inline script; evaluate goes through the debugger instead.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await readFile(axePath, 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: Violation[]; passes: unknown[]; incomplete: { id: string; nodes: unknown[] }[] }> } }).axe;
    const result = await axe.run(document);
    return {
      violations: result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })),
      passes: result.passes.length,
      incomplete: result.incomplete.map((i) => ({ id: i.id, nodes: i.nodes.length })),
    };
  });
}

function describeViolations(screen: string, list: Violation[]): string {
  return list
    .map((v) => `${screen}: ${v.id} (${v.impact ?? 'no impact'}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')} — ${(n.failureSummary ?? '').replace(/\n/g, ' ')}`).join('\n')}`)
    .join('\n');
}

async function expectNoViolations(page: Page, screen: string): Promise<void> {
  const { violations: found, passes, incomplete } = await violations(page);
  // axe really looked: rules passed on this screen (a blank page would pass almost none).
  console.log(`${screen}: axe ${passes} rules passed, ${found.length} violated, needs review: ${incomplete.map((i) => `${i.id} (${i.nodes})`).join(', ') || 'none'}`);
  expect(passes, `${screen}: axe ran no rule`).toBeGreaterThan(10);
  if (found.length > 0) console.log(describeViolations(screen, found));
  expect(found.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), `${screen}: axe violations`).toEqual([]);
}

const dirs: string[] = [];
let shell: RunningShell | undefined;
let app: AppPage | undefined;
afterAll(async () => {
  await app?.close();
  await shell?.stop();
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function home(page: Page): Promise<void> {
  await page.getByRole('button', { name: /Add an agent/ }).click();
  await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
}

describe('axe-core finds no violation on the main screens (Chromium, web shell)', () => {
  it('Home, the Talkie demo chat, AgentCall, AG-UI and Settings', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-a11y-'));
    dirs.push(dir);
    shell = await startShell(dir);
    app = await openApp(shell);
    const { page } = app;

    await page.getByRole('heading', { level: 1, name: 'Your agents' }).waitFor();
    await expectNoViolations(page, 'Home');

    // The photo dialog: no violation, Tab stays inside it in Chromium, Escape gives focus back to the
    // hardware button (the popover that held "Take a photo…" closes when the dialog opens).
    const opener = page.getByRole('button', { name: /^Hardware/ });
    await opener.click();
    await page.getByRole('button', { name: 'Take a photo…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Take or choose a photo' });
    await dialog.waitFor();
    await expectNoViolations(page, 'Photo dialog');
    for (let step = 0; step < 8; step += 1) {
      await page.keyboard.press(step % 3 === 2 ? 'Shift+Tab' : 'Tab');
      expect(await dialog.evaluate((element) => element.contains(document.activeElement)), `focus left the photo dialog after ${step + 1} presses`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await opener.evaluate((element) => element === document.activeElement)).toBe(true);

    await page.getByRole('button', { name: 'Open demo' }).click();
    await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill('talkie-test:echo Hello');
    await message.press('Enter');
    await page.getByRole('region', { name: 'Messages' }).getByText('Hello', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await expectNoViolations(page, 'Talkie demo chat');

    await home(page);
    await page.getByRole('button', { name: 'Scan and teach objects' }).click();
    await page.getByText('Accepts NFC scans and photos').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expectNoViolations(page, 'AgentCall demo');

    await home(page);
    await page.getByRole('button', { name: 'Watch an AG-UI run' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expectNoViolations(page, 'AG-UI demo');

    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await expectNoViolations(page, 'Settings');
  });
});
