import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgentCallDemoServer, type AgentCallDemoServer } from '../../src/main/demo/agentcall/agentcall-demo-server';
import { speechUnavailableReason } from '../support/speech';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';
import { expectNoViolations } from './support/axe';
import { inboundEnergy, installTestMicrophone, playbackLevel, say } from './support/voice-page';

/**
 * AgentCall agent-owned voice (agentcall-webrtc-0.1) end to end: the built app in Chromium calls the
 * demo's WebRTC card (a real node-datachannel peer on 127.0.0.1 that hears push-to-talk turns with
 * pocketsphinx and speaks with espeak-ng). The microphone is a Web Audio source the test speaks
 * espeak-ng into. What the agent received on its channel is read from the demo's own record.
 */
const unavailable = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (unavailable) console.log(`AgentCall voice e2e skipped: ${unavailable}`);

const dirs: string[] = [];
let demo: AgentCallDemoServer | undefined;
afterAll(async () => {
  await closeBrowser();
  await demo?.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const types = (server: AgentCallDemoServer) =>
  server.webrtc.received.map((text) => {
    try {
      return String((JSON.parse(text) as { type?: unknown }).type);
    } catch {
      return '?';
    }
  });

describe.skipIf(unavailable !== undefined)('AgentCall voice (WebRTC card) in Chromium', () => {
  it(
    'calls the agent, a push-to-talk turn reaches it and its answer shows and plays; held during an answer it interrupts it; Esc drops a turn; hang up ends the session',
    { timeout: 240_000 },
    async () => {
      // The story's parts a minute apart: it is still being told whenever the test presses Hold to talk.
      demo = await startAgentCallDemoServer({ storyPartMs: 60_000 });
      const server = demo;
      const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-acvoice-'));
      dirs.push(userData);
      const shell = await startShell(userData);
      const app = await openApp(shell, { width: 1280, height: 800 }, { beforeLoad: installTestMicrophone });
      const { page } = app;
      const wait = { timeout: 60_000 };
      try {
        await page.getByRole('button', { name: 'Settings' }).click();
        await page.getByRole('checkbox', { name: /Allow http:\/\/ to this computer/ }).check();
        await page.getByRole('button', { name: 'Back' }).first().click();
        await page.getByRole('textbox', { name: 'Agent address' }).fill(server.webrtcCardUrl);
        await page.getByRole('button', { name: 'Check', exact: true }).click();
        await page.getByText(/an assistant for objects and photos/).waitFor(wait);
        await page.getByRole('button', { name: 'Add', exact: true }).click();
        await page.getByRole('button', { name: /^Open 127\.0\.0\.1/ }).click();

        // A voice agent: Call, no session until then.
        const callButton = page.getByRole('button', { name: /^Start a voice call with AgentDesk demo agent/ });
        await callButton.waitFor(wait);
        await expectNoViolations(page, 'AgentCall voice agent before the call');
        await callButton.click();
        const bar = page.getByRole('group', { name: 'Voice call' });
        const talk = bar.getByRole('button', { name: 'Hold to talk' });
        await explainFailure(page, 'acvoice-connect-failed', () => talk.waitFor(wait));
        await bar.getByText('Listening', { exact: true }).waitFor(wait);
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        await expectNoViolations(page, 'AgentCall call connected');
        await app.screenshot('agentcall-voice-connected-1280x800');
        // During the call the conversation keeps most of the window: the call's bar is one row above the composer.
        const share = await page.evaluate(
          () => (document.querySelector('[role="log"][aria-label="Conversation"]')?.getBoundingClientRect().height ?? 0) / window.innerHeight,
        );
        console.log(`AgentCall during a call: the log takes ${(share * 100).toFixed(1)} % of 1280×800`);
        expect(share).toBeGreaterThanOrEqual(0.6);
        expect(types(server)[0]).toBe('session.start');
        expect(JSON.parse(server.webrtc.received[0]!)).toMatchObject({ clientCapabilities: { audioTurnControl: { mode: 'explicit' } } });

        // Push to talk: held while the test speaks, let go: the turn reaches the agent, which answers.
        const energyBefore = await inboundEnergy(page);
        const box = await talk.boundingBox();
        if (!box) throw new Error('Hold to talk has no box');
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.down();
        await bar.getByText('Listening: you are speaking').waitFor(wait);
        await expectNoViolations(page, 'AgentCall call while talking');
        await say(page, 'hello');
        await page.mouse.up();
        const messages = page.getByRole('log', { name: 'Conversation' });
        await explainFailure(page, 'acvoice-answer-failed', () =>
          messages
            .getByText(/I'm the AgentDesk demo agent/)
            .first()
            .waitFor(wait),
        );
        // The user's turn shows too: the protocol gives no transcript of it, so that they spoke, and how long.
        await messages.getByText('You spoke.').waitFor(wait);
        await messages.getByText(/^Spoken · \d+ s$/).waitFor(wait);
        expect(types(server).filter((type) => type.startsWith('audio.turn.'))).toEqual(['audio.turn.start', 'audio.turn.commit']);
        // The microphone reached the agent inside the turn.
        expect(Math.max(...server.webrtc.audioLevels)).toBeGreaterThan(0.02);
        // The agent's voice arrives and plays: the analyser hears it while it speaks.
        const level = await playbackLevel(page, 3_000);
        expect(level).toBeGreaterThan(0.01);
        expect(await inboundEnergy(page)).toBeGreaterThan(energyBefore);
        await expectNoViolations(page, 'AgentCall call after an answer');

        // Held while the agent answers (a typed "tell me a story", told one part a minute here): a
        // barge-in. The story stops (response.cancel), the turn opens once its run has ended, and Esc
        // while holding drops that turn (the microphone stopped first): no answer comes.
        const composer = page.getByRole('textbox', { name: 'Message' });
        await composer.fill('tell me a story');
        await composer.press('Enter');
        await messages.getByText(/Once upon a time/).waitFor(wait);
        await bar.getByText(/^(Speaking|Thinking…)$/).waitFor(wait);
        const answersBefore = await messages.getByText(/I'm the AgentDesk demo agent/).count();
        // The bar moved down as the answers came in: where the button is now.
        const moved = await talk.boundingBox();
        if (!moved) throw new Error('Hold to talk has no box');
        await page.mouse.move(moved.x + moved.width / 2, moved.y + moved.height / 2);
        await page.mouse.down();
        await bar.getByText('Listening: you are speaking').waitFor(wait);
        await explainFailure(page, 'acvoice-barge-in-failed', () =>
          expect
            .poll(
              () =>
                types(server)
                  .filter((type) => type !== 'ack')
                  .slice(-2),
              wait,
            )
            .toEqual(['response.cancel', 'audio.turn.start']),
        );
        await messages.getByText('Stopped.').waitFor(wait);
        await app.screenshot('agentcall-voice-barge-in-1280x800');
        await page.keyboard.press('Escape');
        await bar.getByRole('button', { name: 'Hold to talk' }).waitFor(wait);
        await page.mouse.up();
        await explainFailure(page, 'acvoice-cancel-failed', () =>
          expect
            .poll(() => types(server).filter((type) => type.startsWith('audio.turn.') || type === 'response.cancel'), wait)
            .toEqual(['audio.turn.start', 'audio.turn.commit', 'response.cancel', 'audio.turn.start', 'audio.turn.cancel']),
        );
        await expectNoViolations(page, 'AgentCall call after a barge-in');
        expect(await messages.getByText(/I'm the AgentDesk demo agent/).count()).toBe(answersBefore);
        expect(await messages.getByText(/Every morning it blinked/).count()).toBe(0);
        expect(await page.getByRole('alert').count()).toBe(0);

        // Hang up: the session ends (nothing is resumed); a new call starts a new session.
        await bar.getByRole('button', { name: 'Hang up' }).click();
        await page.getByText('The session has ended.').first().waitFor(wait);
        // Said once on screen (the status line only announces it).
        await expect
          .poll(() =>
            page
              .getByText('The session has ended.')
              .evaluateAll((all) => all.filter((element) => element.checkVisibility() && !element.closest('.visually-hidden')).length),
          )
          .toBe(1);
        await app.screenshot('agentcall-voice-ended-1280x800');
        // Hang up went away with the focus: it is on Start a new session, not lost.
        await expect.poll(() => page.getByRole('button', { name: 'Start a new session' }).evaluate((element) => element === document.activeElement)).toBe(true);
        await expect.poll(() => types(server).includes('session.end'), wait).toBe(true);
        await expect.poll(() => server.webrtc.openCalls, wait).toBe(0);
        await expectNoViolations(page, 'AgentCall call ended');
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
});
