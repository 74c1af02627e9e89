import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { speechUnavailableReason } from '../support/speech';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';
import { inboundEnergy, installTestMicrophone, say } from './support/voice-page';

/**
 * Talkie 1 §10 voice end to end: the built app in Chromium (its real RTCPeerConnection, Opus and
 * data channel) calls the built-in demo, whose provider on 127.0.0.1 hears with an energy VAD and
 * pocketsphinx and speaks with espeak-ng. The microphone is a Web Audio source the test speaks
 * espeak-ng sentences into (Chromium's own fake device only beeps), so each turn starts when the
 * test says so. What reaches the provider is read from the demo's log (the loudest microphone
 * packet before each event); what the page plays is read from its peer connection's inbound stats.
 */
const unavailable = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (unavailable) console.log(`voice e2e skipped: ${unavailable}`);

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The demo log's lines for one provider event, with the loudest microphone packet before each. */
function heard(output: string, event: string): number[] {
  const pattern = new RegExp(`voice call \\d+: ${event.replaceAll('.', '\\.')} \\(microphone RMS up to ([\\d.]+)`, 'g');
  return [...output.matchAll(pattern)].map((match) => Number(match[1]));
}

describe.skipIf(unavailable !== undefined)('Talkie voice with the built-in demo in Chromium', () => {
  it(
    'a spoken request shows its card, "send the offer" is read out and "yes, send it" confirms it once; mute stops the microphone; hang up ends the call',
    { timeout: 240_000 },
    async () => {
      const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-voice-'));
      dirs.push(userData);
      const shell = await startShell(userData);
      const app = await openApp(shell, { width: 1280, height: 800 }, { beforeLoad: installTestMicrophone });
      const { page } = app;
      const wait = { timeout: 60_000 };
      try {
        await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
        await explainFailure(page, 'voice-open-failed', () => page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor(wait));
        const transcript = page.getByRole('log', { name: 'Conversation' });
        // The demo says which recognizer listens and what it understands (its description, behind Details).
        await page.locator('.conversation-header').getByRole('button', { name: 'Details' }).click();
        const details = page.getByRole('dialog');
        await details.getByText(/pocketsphinx \(English only\) understands “search contacts”, “send the offer”, “yes, send it”/).waitFor();
        await details.getByRole('button', { name: 'Close' }).click();

        // Before the first call to this server: where the voice goes, asked once.
        await page.getByRole('button', { name: /^Start a voice call/ }).click();
        const consent = page.getByRole('dialog');
        await consent.getByText(/speech provider at 127\.0\.0\.1/).waitFor();
        await consent.getByRole('button', { name: 'Continue' }).click();
        const callBar = page.getByRole('group', { name: 'Voice call' });
        await explainFailure(page, 'voice-connect-failed', () => callBar.getByText('Listening', { exact: true }).waitFor(wait));

        // A request by voice: the provider hears it, calls the server's tool, and the card shows.
        await say(page, 'search contacts');
        await explainFailure(page, 'voice-search-failed', () => transcript.getByRole('article', { name: 'Contact search results' }).waitFor(wait));
        await transcript.getByText('search contacts', { exact: true }).waitFor(wait);
        expect(Math.max(...heard(shell.output(), 'input_audio_buffer.speech_started'))).toBeGreaterThan(0.02);
        // The call's thread is in the list (titled by the server: "Voice conversation", then its first words).
        await page
          .getByRole('navigation', { name: 'Chats' })
          .getByRole('button', { name: /^(Voice conversation|search contacts)/ })
          .waitFor(wait);
        await app.screenshot('voice-search-1280x800');

        // The action is proposed, read out (audio plays in the page), then the window opens.
        await callBar.getByText('Listening', { exact: true }).waitFor(wait);
        await say(page, 'send the offer');
        const action = transcript.getByRole('article', { name: /^Send offer / });
        await explainFailure(page, 'voice-proposal-failed', () => action.getByText(/Listening for your confirmation/).waitFor(wait));
        expect(await inboundEnergy(page)).toBeGreaterThan(0);
        await expect(action.getByRole('button', { name: /^Confirm: / }).isVisible()).resolves.toBe(true);
        await app.screenshot('voice-confirm-1280x800');
        // During the call the Conversation log still takes most of the window (#26: at least 60 % at 1280×800),
        // measured without the start-up notice this machine shows (no keychain here; the shell's, dismissed).
        const notice = page.getByRole('button', { name: 'Dismiss' });
        if (await notice.isVisible()) await notice.click();
        const share = await page.evaluate(
          () => (document.querySelector('[role="log"][aria-label="Conversation"]')?.getBoundingClientRect().height ?? 0) / window.innerHeight,
        );
        expect(share).toBeGreaterThanOrEqual(0.6);
        await say(page, 'yes send it');
        await explainFailure(page, 'voice-confirm-failed', () => action.getByText('Under way', { exact: true }).waitFor(wait));
        const decisions = app.frames.filter((frame) => frame.includes('"channel":"agentdesk:talkie.voiceDecide"') && frame.includes('"t":"call"'));
        expect(decisions).toHaveLength(1);

        // Muted, the provider hears nothing: no new turn starts while the test speaks.
        await callBar.getByText('Listening', { exact: true }).waitFor(wait);
        const turnsBefore = heard(shell.output(), 'input_audio_buffer.speech_started').length;
        await page.getByRole('button', { name: 'Mute' }).click();
        await say(page, 'search contacts for alfa');
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(heard(shell.output(), 'input_audio_buffer.speech_started')).toHaveLength(turnsBefore);
        await page.getByRole('button', { name: 'Unmute' }).click();

        await page.getByRole('button', { name: 'Hang up' }).click();
        await page.getByRole('group', { name: 'Voice call' }).getByText('You hung up.').waitFor(wait);
        // The client secret stayed in main: no IPC frame carried it.
        expect(app.frames.filter((frame) => frame.includes('ek_demo_'))).toEqual([]);
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
  it(
    'two utterances that are not a yes close the window and the buttons decide; the call warns before its limit and hangs up at it',
    { timeout: 240_000 },
    async () => {
      const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-voice-'));
      dirs.push(userData);
      // A 45 s call (the demo's knob for this): the warning comes at 30 s left, the end at 0.
      // 120 s: the steps before the warning (two spoken utterances, each recognised by pocketsphinx) took
      // over 45 s on a loaded machine, and a 45 s call had ended before its warning was looked for.
      const shell = await startShell(userData, { env: { AGENTDESK_DEMO_VOICE_SECONDS: '120' } });
      const app = await openApp(shell, { width: 1280, height: 800 }, { beforeLoad: installTestMicrophone });
      const { page } = app;
      const wait = { timeout: 60_000 };
      try {
        await page.getByRole('button', { name: 'Chat with the demo assistant' }).click();
        await page.getByRole('heading', { level: 1, name: 'AgentDesk demo' }).waitFor();
        const transcript = page.getByRole('log', { name: 'Conversation' });
        await page.getByRole('button', { name: /^Start a voice call/ }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Continue' }).click();
        const callBar = page.getByRole('group', { name: 'Voice call' });
        await explainFailure(page, 'voice2-connect-failed', () => callBar.getByText('Listening', { exact: true }).waitFor(wait));
        await callBar.getByText(/^01:[45]\d left$/).waitFor(wait);

        await say(page, 'send the offer');
        const action = transcript.getByRole('article', { name: /^Send offer / });
        await explainFailure(page, 'voice2-proposal-failed', () => action.getByText(/Listening for your confirmation/).waitFor(wait));
        // Conversation, not a decision, twice: the window closes and the buttons decide.
        for (let utterance = 1; utterance <= 2; utterance++) {
          await callBar.getByText('Listening', { exact: true }).waitFor(wait);
          await say(page, 'search contacts');
          await explainFailure(page, `voice2-offtopic-${utterance}-failed`, () =>
            transcript
              .getByText('search contacts', { exact: true })
              .nth(utterance - 1)
              .waitFor(wait),
          );
        }
        await explainFailure(page, 'voice2-window-closed-failed', () => action.getByText('Not decided by voice: use the buttons.').waitFor(wait));
        expect(app.frames.filter((frame) => frame.includes('"channel":"agentdesk:talkie.voiceDecide"') && frame.includes('"t":"call"'))).toEqual([]);
        await action.getByRole('button', { name: /^Confirm: / }).click();
        await explainFailure(page, 'voice2-button-failed', () => action.getByText(/^(Under way|Completed)$/).waitFor(wait));
        expect(app.frames.filter((frame) => frame.includes('"channel":"agentdesk:talkie.voiceDecide"') && frame.includes('"t":"call"'))).toEqual([]);

        // 30 s before the limit the time left turns into a warning; at the limit the call ends and says why.
        await explainFailure(page, 'voice2-warning-failed', () => callBar.getByText(/^Only 00:[0-3]\d left$/).waitFor(wait));
        await app.screenshot('voice-warning-1280x800');
        await explainFailure(page, 'voice2-limit-failed', () => callBar.getByText('The call reached its time limit.').waitFor(wait));
        const ends = app.frames.filter((frame) => frame.includes('"channel":"agentdesk:talkie.voiceEnd"') && frame.includes('"t":"call"'));
        expect(ends).toHaveLength(1);
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
});
