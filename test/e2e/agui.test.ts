import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, explainFailure, openApp, startShell, waitForNewestMessageInView } from './support/app';

/**
 * A plain AG-UI run in Chromium through the web shell, against the built-in demo's AG-UI side: the
 * run shows reasoning, steps, a tool call and activity; "apply" stops at a confirmation (one approval:
 * Allow, Deny, or the full form behind Edit…), the app is restarted while it waits, and the answer
 * given after the restart resumes the run.
 */

const userDirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(userDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function openDemoRun(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Watch an agent work' }).click();
  // Seen once in a fresh-clone CI run and not again in later runs: keep what the page showed.
  await explainFailure(page, 'agui-open-failed', () => page.getByRole('textbox', { name: 'Message' }).waitFor());
}

describe('plain AG-UI with the built-in demo in Chromium', () => {
  it('streams a run, stops at a confirmation, keeps it across an app restart and resumes with the answer', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
    userDirs.push(dir);

    let shell = await startShell(dir);
    let app = await openApp(shell);
    try {
      await openDemoRun(app.page);
      await app.page.getByRole('textbox', { name: 'Message' }).fill('please apply the plan');
      await app.page.getByRole('button', { name: 'Send', exact: true }).click();
      const approval = app.page.getByRole('log', { name: 'Conversation' }).getByRole('region', { name: 'The agent asks for your OK' });
      await approval.waitFor({ timeout: 30_000 });
      await approval.getByText(/^Apply the plan to /).waitFor();
      await approval.getByRole('button', { name: 'Deny' }).waitFor();
      await approval.getByRole('button', { name: 'Edit…' }).waitFor();
      // The run before the question: reasoning (collapsed), a tool line in words.
      await expect(app.page.getByText('Thinking', { exact: true }).count()).resolves.toBeGreaterThan(0);
      await expect(app.page.getByText(/^Us(ed|ing) iac_plan/).count()).resolves.toBeGreaterThan(0);
      await app.screenshot('agui-confirmation');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }

    // A new app on the same user-data folder: the question is still open.
    shell = await startShell(dir);
    app = await openApp(shell);
    try {
      await openDemoRun(app.page);
      const conversation = app.page.getByRole('log', { name: 'Conversation' });
      const approval = conversation.getByRole('region', { name: 'The agent asks for your OK' });
      await approval.waitFor({ timeout: 30_000 });
      await approval.getByRole('button', { name: 'Allow' }).click();
      await app.page.getByText('Applied.').waitFor({ timeout: 30_000 });
      await expect(approval.count()).resolves.toBe(0);
      // The decision stays in the conversation, as main recorded it when the resume run started.
      const answer = conversation.locator('li.transcript__item--answer');
      await expect(answer.getByText('Your answer').count()).resolves.toBe(1);
      await expect(answer.locator('dt', { hasText: 'Approve the change' }).locator('xpath=following-sibling::dd').textContent()).resolves.toBe('Yes');
      await waitForNewestMessageInView(app.page);
      await app.screenshot('agui-applied');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await shell.stop();
    }
  });

  it(
    "a tool approval: Allow deletes the file the call named; Edit… opens the form, which starts from the call's arguments, and an edited path deletes that one",
    { timeout: 120_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-'));
      userDirs.push(dir);
      const shell = await startShell(dir);
      const app = await openApp(shell);
      try {
        await openDemoRun(app.page);
        const ask = async (text: string) => {
          await app.page.getByRole('textbox', { name: 'Message' }).fill(text);
          await app.page.getByRole('button', { name: 'Send', exact: true }).click();
          const approval = app.page.getByRole('region', { name: 'The agent asks for your OK' });
          await approval.waitFor({ timeout: 30_000 });
          return approval;
        };
        // Allow alone: the call runs with its own arguments.
        let approval = await ask('please delete the old plan');
        await approval.getByText('What it would use').click();
        await expect(approval.locator('pre').textContent()).resolves.toContain('"path": "notes/old-plan.md"');
        await approval.getByRole('button', { name: 'Allow' }).click();
        await app.page.getByText('Deleted notes/old-plan.md.').waitFor({ timeout: 30_000 });

        // Edit… opens the full form: it starts from the call's arguments (the demo, like pydantic-ai,
        // replaces the arguments with editedArgs: an empty one would delete nothing); an edited path is sent.
        approval = await ask('delete another one');
        await approval.getByRole('button', { name: 'Edit…' }).click();
        const section = app.page.getByRole('region', { name: 'Permission to use a tool' });
        await section.waitFor();
        await expect(section.getByRole('textbox', { name: 'path' }).inputValue()).resolves.toBe('notes/old-plan.md');
        await section.getByRole('textbox', { name: 'path' }).fill('notes/other.md');
        await section.getByRole('checkbox', { name: 'Approve' }).check();
        await app.page.getByRole('button', { name: 'Send answers' }).click();
        await app.page.getByText('Deleted notes/other.md.').waitFor({ timeout: 30_000 });
        await app.screenshot('agui-tool-approval');
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );

  it(
    'a hostile server streams 11.4 MB into one run: the page gets at most 1 MB a message, says the oldest were removed, and a reload opens the newest window',
    { timeout: 180_000 },
    async () => {
      // 60 answers of 190,000 characters: almost three times the conversation budget (4,000,000 characters).
      const chunk = 'x'.repeat(95_000);
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (part: Buffer) => chunks.push(part));
        request.on('end', () => {
          let input: { threadId?: string; runId?: string } = {};
          try {
            input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof input;
          } catch {
            // The address check's GET: answered 405 below, as an AG-UI endpoint does.
          }
          if (request.method !== 'POST' || input.threadId === undefined) {
            response.writeHead(405).end();
            return;
          }
          response.writeHead(200, { 'Content-Type': 'text/event-stream' });
          const send = (event: object) => response.write(`data: ${JSON.stringify(event)}\n\n`);
          send({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId });
          for (let index = 0; index < 60; index++) {
            send({ type: 'TEXT_MESSAGE_START', messageId: `m${index}`, role: 'assistant' });
            send({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${index}`, delta: `Answer ${index} ${chunk}` });
            send({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${index}`, delta: chunk });
            send({ type: 'TEXT_MESSAGE_END', messageId: `m${index}` });
          }
          response.end(`data: ${JSON.stringify({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId })}\n\n`);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agui`;
      const dir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-bounds-'));
      userDirs.push(dir);
      const shell = await startShell(dir);
      const app = await openApp(shell);
      const { page } = app;
      const wait = { timeout: 60_000 };
      try {
        await page.getByRole('button', { name: 'Settings' }).click();
        await page.getByRole('checkbox', { name: /Allow http:\/\/ to this computer/ }).check();
        await page.getByRole('button', { name: 'Back' }).first().click();
        await page.getByRole('textbox', { name: 'Agent address' }).fill(endpoint);
        await page.getByText('Advanced', { exact: true }).click();
        await page.getByRole('checkbox', { name: /plain AG-UI endpoint/ }).check();
        await page.getByRole('button', { name: 'Check', exact: true }).click();
        await page.getByText(/^Found: something answers at /).waitFor(wait);
        await page.getByRole('button', { name: 'Add', exact: true }).click();
        await explainFailure(page, 'agui-bounds-add', () => page.getByRole('button', { name: /^Open 127\.0\.0\.1/ }).click());
        const message = page.getByRole('textbox', { name: 'Message' });
        await explainFailure(page, 'agui-bounds-open', () => message.waitFor(wait));
        await message.fill('hi');
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        const transcript = page.getByRole('log', { name: 'Conversation' });
        await explainFailure(page, 'agui-bounds-run', () => page.locator('.run-status__text', { hasText: 'Answered' }).waitFor(wait));
        await transcript.getByText(/^Answer 59 x/).waitFor(wait);
        await transcript.getByText('Earlier messages were removed to keep this chat small.').waitFor(wait);
        await expect(transcript.getByText(/^Answer 0 x/).count()).resolves.toBe(0);
        // What the web shell sent the page: no message over one window (plus its envelope).
        expect(Math.max(...app.frames.map((frame) => frame.length))).toBeLessThan(1_100_000);

        // A reload opens the thread on its newest window again; the earlier answers come on request.
        app.frames.length = 0;
        await page.reload();
        await explainFailure(page, 'agui-bounds-reload', () => transcript.getByText(/^Answer 59 x/).waitFor(wait));
        expect(Math.max(...app.frames.map((frame) => frame.length))).toBeLessThan(1_100_000);
        await expect(transcript.getByText(/^Answer 53 x/).count()).resolves.toBe(0);
        await transcript.getByRole('button', { name: /^Show \d+ earlier messages$/ }).click();
        await transcript.getByText(/^Answer 53 x/).waitFor(wait);
        await transcript.getByText('Earlier messages were removed to keep this chat small.').scrollIntoViewIfNeeded();
        await app.screenshot('agui-bounds');
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
});
