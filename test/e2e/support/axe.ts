import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** axe-core in the page, for every e2e file that checks the screens it visits (a11y.test.ts, kiosk.test.ts). */
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface Violation {
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

export async function violations(page: Page): Promise<AxeFindings> {
  // The app's CSP (script-src 'self') blocks page.addScriptTag's inline script; evaluate goes through the debugger instead.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await readFile(axePath, 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document): Promise<{ violations: Violation[]; passes: unknown[]; incomplete: { id: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    const result = await axe.run(document);
    return {
      violations: result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
      })),
      passes: result.passes.length,
      incomplete: result.incomplete.map((i) => ({ id: i.id, nodes: i.nodes.length })),
    };
  });
}

function describeViolations(screen: string, list: Violation[]): string {
  return list
    .map(
      (v) =>
        `${screen}: ${v.id} (${v.impact ?? 'no impact'}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')} — ${(n.failureSummary ?? '').replace(/\n/g, ' ')}`).join('\n')}`,
    )
    .join('\n');
}

export async function expectNoViolations(page: Page, screen: string): Promise<void> {
  const { violations: found, passes, incomplete } = await violations(page);
  // axe really looked: rules passed on this screen (a blank page would pass almost none).
  console.log(
    `${screen}: axe ${passes} rules passed, ${found.length} violated, needs review: ${incomplete.map((i) => `${i.id} (${i.nodes})`).join(', ') || 'none'}`,
  );
  expect(passes, `${screen}: axe ran no rule`).toBeGreaterThan(10);
  if (found.length > 0) console.log(describeViolations(screen, found));
  expect(
    found.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${screen}: axe violations`,
  ).toEqual([]);
}
