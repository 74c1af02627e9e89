/**
 * Benchmark (not a test): the kiosk's two recovery figures (issue #18), in the shell-started headless
 * Chromium under a kiosk policy (test/e2e/support/kiosk-shell.ts: `agentdesk demo`'s AgentCall side
 * as the start agent):
 * - idle reset: the countdown running out (the page's `agentdesk:kiosk-reset` mark; main's `kiosk.reset`
 *   starts) → the start screen ready again (Start enabled), measured in the page; goal ≤ 1 s. Each run opens the start
 *   agent, sends a message and then waits out `idleResetSeconds` (10) and the 10 s countdown.
 *   Main's own time for the wipe is printed beside it (its log line).
 * - the agent's activity (issue #27): the same runs measure the last input (Send) → the countdown showing,
 *   in the page. The demo's answer is read aloud (espeak-ng), which holds the countdown off while it plays
 *   (for at most `idleAgentHoldSeconds`, default 120 s, past the idle time); the figure is the idle time plus
 *   however much longer the answer and its reading took. A second kiosk with `idleAgentHoldSeconds: 2`
 *   shows the bound: its countdown comes at most 12 s after the last input, reading aloud or not.
 * - renderer crash: DevTools `Page.crash` → the start screen ready in the reloaded page (the shell's
 *   watchdog reloads it), measured against the wall clock of the same machine; the time includes this
 *   bench reconnecting to Chromium, so it is an upper bound; goal ≤ 3 s. The watchdog's own
 *   crash → navigation time is printed beside it.
 *
 * - hung renderer: a script that never returns (DevTools `Runtime.evaluate`) → the start screen ready
 *   (the watchdog notices within its 0.5 s ping + 1.5 s wait, crashes and reloads the page); the
 *   same upper bound; goal ≤ 3 s.
 *
 *   npm run bench:kiosk     (needs `npm run build` and /usr/bin/chromium; KIOSK_RESETS, default 3; KIOSK_CRASHES, default 5; KIOSK_HANGS, default 3)
 */
import { loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { startKioskShell, waitForStartScreen } from '../test/e2e/support/kiosk-shell';
import { percentile } from './stats';

const resets = Number(process.env.KIOSK_RESETS ?? 3);
const crashes = Number(process.env.KIOSK_CRASHES ?? 5);
const hangs = Number(process.env.KIOSK_HANGS ?? 3);
const goals = { resetMs: 1000, crashMs: 3000 };

function summary(name: string, samples: number[], goal: number): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const worst = sorted[sorted.length - 1] ?? Number.NaN;
  return `${name}: median ${percentile(sorted, 50).toFixed(0)} ms, worst ${worst.toFixed(0)} ms over ${samples.length} (goal ≤ ${goal} ms: ${worst <= goal ? 'met' : 'NOT met'})`;
}

/**
 * In the page: from the app's `agentdesk:kiosk-reset` mark (the countdown ran out and the reset
 * began) to the start screen ready, polled every 5 ms (the callbacks stay anonymous: tsx would name
 * them with a helper the page lacks).
 */
async function idleResetMs(page: Page, lastInput: number): Promise<{ resetMs: number; countdownAfterMs: number }> {
  return page.evaluate(
    (inputAt) =>
      new Promise<{ resetMs: number; countdownAfterMs: number }>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error('no idle reset within 200 s')), 200_000);
        performance.clearMarks('agentdesk:kiosk-reset');
        let countdownAt: number | undefined;
        const poll = setInterval(() => {
          countdownAt ??= document.querySelector('[role=alertdialog]') ? performance.now() : undefined;
          const began = performance.getEntriesByName('agentdesk:kiosk-reset').at(-1)?.startTime;
          const ready = [...document.querySelectorAll('button')].some((button) => button.textContent === 'Start' && !button.disabled);
          if (began !== undefined && ready && document.querySelector('h1')?.textContent === 'Touch the screen to start') {
            clearTimeout(timeout);
            clearInterval(poll);
            resolve({ resetMs: performance.now() - began, countdownAfterMs: (countdownAt ?? Number.NaN) - inputAt });
          }
        }, 5);
      }),
    lastInput,
  );
}

/** One agent (the demo's AgentCall side, read aloud): the start screen's Start opens it. */
const oneAgent = (demo: { agentcall: string }) => ({ list: [{ address: demo.agentcall, name: 'Workshop', allowInsecureHttp: true }], start: demo.agentcall });

/** Opens the start agent, sends a message (the last input) and waits for the reset; the page's figures. */
async function oneSession(page: Page, text: string): Promise<{ resetMs: number; countdownAfterMs: number }> {
  await page.getByRole('button', { name: 'Start' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor({ timeout: 20_000 });
  await box.fill(text);
  await page
    .getByRole('button', { name: 'Send', exact: true })
    .click({ timeout: 10_000 })
    .catch(async (error: unknown) => {
      throw new Error(`${String(error).split('\n')[0]}; the page showed: ${(await page.locator('body').innerText()).slice(0, 800)}`);
    });
  const lastInput = await page.evaluate(() => performance.now());
  await page.getByRole('log', { name: 'Conversation' }).getByText(text).waitFor();
  return idleResetMs(page, lastInput);
}

// The hold's bound: a kiosk whose agent may hold the countdown off for 2 s at most.
const bounded: number[] = [];
{
  const short = await startKioskShell({ idleAgentHoldSeconds: 2, agents: oneAgent });
  try {
    const page = await short.page();
    await waitForStartScreen(page);
    for (let run = 0; run < resets; run += 1) {
      bounded.push((await oneSession(page, `bounded ${run}`)).countdownAfterMs);
      console.log(`idleAgentHoldSeconds 2, run ${run + 1}/${resets}: last input → countdown ${bounded.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    await short.stop();
  }
}

const kiosk = await startKioskShell({ agents: oneAgent });
try {
  let page = await kiosk.page();
  await waitForStartScreen(page);
  const resetSamples: number[] = [];
  const heldSamples: number[] = [];
  for (let run = 0; run < resets; run += 1) {
    const figures = await oneSession(page, `run ${run}`);
    resetSamples.push(figures.resetMs);
    heldSamples.push(figures.countdownAfterMs);
    console.log(`idle reset ${run + 1}/${resets}: ${figures.resetMs.toFixed(0)} ms; last input → countdown ${figures.countdownAfterMs.toFixed(0)} ms`);
  }
  const mainResets = [...kiosk.shell.output().matchAll(/\[kiosk\] reset in (\d+) ms: ([1-9]\d*) ended/g)].map((match) => Number(match[1]));

  /** Breaks the page one way, waits for the watchdog's log line, and returns when the reloaded page was ready (its own clock) minus when it broke. */
  const breakAndRecover = async (how: 'crash' | 'hang'): Promise<number> => {
    await waitForStartScreen(page);
    const session = await page.context().newCDPSession(page);
    const line = how === 'crash' ? /page crashed: reloaded in/g : /page hung: reloaded in/g;
    const recoveries = () => kiosk.shell.output().match(line)?.length ?? 0;
    const before = recoveries();
    const brokeAt = Date.now();
    void (how === 'crash' ? session.send('Page.crash') : session.send('Runtime.evaluate', { expression: 'for (;;) {}' })).catch(() => undefined);
    // The watchdog navigated the page back (its log says so); then the bench lets go of the dead page object.
    while (recoveries() === before) {
      if (Date.now() - brokeAt > 20_000) throw new Error(`the watchdog did not reload the ${how === 'crash' ? 'crashed' : 'hung'} page within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await kiosk.disconnect();
    // A fresh connection (the old page object is gone); the page's own clock says when it was ready.
    page = await kiosk.page();
    const readyAt = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const poll = setInterval(() => {
            if ([...document.querySelectorAll('button')].some((button) => button.textContent === 'Start' && !button.disabled)) {
              clearInterval(poll);
              resolve(Date.now());
            }
          }, 5);
        }),
    );
    return readyAt - brokeAt;
  };

  const crashSamples: number[] = [];
  for (let run = 0; run < crashes; run += 1) {
    crashSamples.push(await breakAndRecover('crash'));
    console.log(`crash ${run + 1}/${crashes}: ${crashSamples.at(-1)} ms`);
  }
  const hangSamples: number[] = [];
  for (let run = 0; run < hangs; run += 1) {
    hangSamples.push(await breakAndRecover('hang'));
    console.log(`hang ${run + 1}/${hangs}: ${hangSamples.at(-1)} ms`);
  }
  const watchdog = [...kiosk.shell.output().matchAll(/page crashed: reloaded in (\d+) ms/g)].map((match) => Number(match[1]));

  console.log('');
  console.log(summary('idle reset (countdown out → start screen ready, in the page, ±5 ms)', resetSamples, goals.resetMs));
  console.log(`  main's kiosk.reset itself: ${mainResets.map((ms) => `${ms} ms`).join(', ') || 'not logged'}`);
  const range = (samples: number[]) => `${Math.min(...samples).toFixed(0)}–${Math.max(...samples).toFixed(0)} ms`;
  console.log(`last input → countdown, idleResetSeconds 10, the answer read aloud: ${range(heldSamples)} (default hold ≤ 120 s past the idle time)`);
  console.log(
    `last input → countdown with idleAgentHoldSeconds 2: ${range(bounded)} (bound: ≤ 12000 ms + a tick: ${Math.max(...bounded) <= 12_500 ? 'met' : 'NOT met'})`,
  );
  console.log(summary('renderer crash → start screen ready (upper bound: includes reconnecting)', crashSamples, goals.crashMs));
  console.log(`  the watchdog's crash → navigation: ${watchdog.map((ms) => `${ms} ms`).join(', ') || 'not logged'}`);
  console.log(summary('hung renderer → start screen ready (upper bound: includes reconnecting)', hangSamples, goals.crashMs));
  console.log(
    `load average: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} (${new Date().toISOString()})`,
  );
} finally {
  await kiosk.stop();
}
