import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { demoStory } from '../../src/main/demo/agentcall/agentcall-demo-agent';
import { speechUnavailableReason } from '../support/speech';
import { closeBrowser, explainFailure, openApp, startShell } from './support/app';
import { expectNoViolations } from './support/axe';
import { chooseBargeIn, installOutputMeter, installTestMicrophone, outputLevel, outputPitches, say } from './support/voice-page';
import { piperVoiceFolder } from '../support/speech/model-folders';

/**
 * AgentCall client-owned voice (the demo's WebSocket card says voice.owner "client") in Chromium:
 * vad-web's real Silero model (its files from the app's own origin, everything else cut off) hears an
 * espeak-ng sentence spoken into the page's microphone, main recognises it (pocketsphinx, by
 * AGENTDESK_SPEECH_RECOGNIZER) and it goes out as one user.turn; the agent's speech.segment is
 * synthesised by main and plays through Web Audio (an analyser on the page's output hears it); barge-in
 * (chosen in Settings) silences a story the demo is still telling, and the demo receives response.cancel
 * before the next user.turn (its log says so); Mute stops listening. With no model imported, pocketsphinx's
 * basic English recognizer hears a sentence and the bar says it is basic; without any recognizer
 * (AGENTDESK_SPEECH_RECOGNIZER=none), Talk by voice says what to import and where, and the keyboard has the focus.
 */
const unavailable = speechUnavailableReason(['espeak-ng', 'pocketsphinx']);
if (unavailable) console.log(`AgentCall client-voice e2e skipped: ${unavailable}`);

const dirs: string[] = [];
afterAll(async () => {
  await closeBrowser();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const wait = { timeout: 60_000 };
const ipcCalls = (frames: string[], method: string) =>
  frames.filter((frame) => frame.includes(`"channel":"agentdesk:${method}"`) && frame.includes('"t":"call"'));

/** Every request the page makes must go to the shell itself: anything else is recorded and refused. */
async function cutNetwork(page: Page, origin: string): Promise<{ foreign: string[]; vad: string[] }> {
  const seen = { foreign: [] as string[], vad: [] as string[] };
  await page.context().route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(origin)) {
      if (url.includes('/vad/')) seen.vad.push(url.slice(origin.length));
      await route.continue();
    } else {
      seen.foreign.push(url);
      await route.abort();
    }
  });
  return seen;
}

async function openDemo(env: Record<string, string>) {
  const userData = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-clientvoice-'));
  dirs.push(userData);
  const shell = await startShell(userData, { env });
  const app = await openApp(
    shell,
    { width: 1280, height: 800 },
    {
      beforeLoad: async (page) => {
        await installTestMicrophone(page);
        await installOutputMeter(page);
      },
    },
  );
  return { shell, app, page: app.page };
}

describe.skipIf(unavailable !== undefined)('AgentCall client-owned voice in Chromium', () => {
  it(
    'hears a spoken turn with vad-web’s own model (no other origin reached), sends it as one user.turn, speaks the answer; spoken over while its run still goes, a story stops playing and the demo gets response.cancel before the next user.turn; Mute stops listening',
    { timeout: 240_000 },
    async () => {
      const { shell, app, page } = await openDemo({ AGENTDESK_SPEECH_RECOGNIZER: 'pocketsphinx' });
      try {
        const network = await cutNetwork(page, new URL(page.url()).origin);
        // Barge-in is a setting (Settings → Speech); Automatic is off here (Chromium's fake devices are no headphones).
        await chooseBargeIn(page, 'On', () => expectNoViolations(page, 'Settings → Speech, barge-in chosen'));
        await page.getByRole('button', { name: 'Scan and teach objects' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        await page.getByRole('button', { name: 'Talk by voice' }).click();
        const bar = page.getByRole('group', { name: 'Voice' });
        await explainFailure(page, 'clientvoice-start-failed', () => bar.getByText('Listening', { exact: true }).waitFor(wait));
        // The detector's model and WebAssembly came from the app itself (the worklet's own fetch is not routed
        // through Playwright; it is loaded from the same vad/ folder, and every other origin is cut off).
        expect(network.vad).toEqual(expect.arrayContaining(['/vad/silero_vad_v5.onnx', '/vad/ort-wasm-simd-threaded.mjs', '/vad/ort-wasm-simd-threaded.wasm']));
        await expectNoViolations(page, 'AgentCall client voice listening');

        // Hands-free: the detector cuts the utterance, main recognises it, one user.turn goes out.
        const meter = bar.getByRole('meter', { name: 'Microphone level' });
        expect(await meter.evaluate((node) => (node as HTMLMeterElement).value)).toBe(0);
        // "search contacts", not "hello": two words the demo grammar cannot take for another command. With
        // its first 30 ms clipped, espeak-ng's "hello" is heard as "no"; "search contacts" holds with 200 ms
        // clipped (measured with pocketsphinx on three espeak-ng voices).
        const spoken = say(page, 'search contacts');
        // The meter reads the detector's own frames (one audio graph while listening): it moves while the sentence is heard.
        await expect.poll(() => meter.evaluate((node) => (node as HTMLMeterElement).value), wait).toBeGreaterThan(0);
        await spoken;
        const messages = page.getByRole('log', { name: 'Conversation' });
        await explainFailure(page, 'clientvoice-turn-failed', () => messages.getByText('search contacts', { exact: true }).waitFor(wait));
        expect(ipcCalls(app.frames, 'speech.transcribe')).toHaveLength(1);
        expect(ipcCalls(app.frames, 'conversation.send')).toHaveLength(1);
        // The answer's speech.segment is synthesised by main and plays in the page.
        await messages
          .getByText(/I'm the AgentDesk demo agent/)
          .first()
          .waitFor(wait);
        await expect.poll(() => ipcCalls(app.frames, 'speech.synthesize').length, wait).toBe(1);
        expect(await outputLevel(page, 4_000)).toBeGreaterThan(0.01);
        await expectNoViolations(page, 'AgentCall client voice speaking');

        // Barge-in (on) over an answer still being told: "tell me a story" keeps the demo's run open while it
        // sends its parts, seconds apart; speaking over it silences the page, and the demo receives
        // response.cancel before the next user.turn (the spoken words wait for the run to end).
        await bar.getByText('Speaking over the agent interrupts it (Settings → Speech).').waitFor(wait);
        await bar.getByText('Listening', { exact: true }).waitFor(wait);
        const logFrom = shell.output().length;
        await page.getByRole('textbox', { name: 'Message' }).fill('tell me a story');
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await messages.getByText(/^Once upon a time/).waitFor(wait);
        await expect.poll(() => outputLevel(page, 300), wait).toBeGreaterThan(0.01);
        await say(page, 'search contacts');
        // Silent while the story (parts of several seconds each) would still be playing.
        await expect.poll(() => outputLevel(page, 200), { timeout: 3_000 }).toBeLessThan(0.001);
        await expect.poll(() => ipcCalls(app.frames, 'conversation.send').length, wait).toBe(3);
        // The answer to what was said over it is the next run's: it is said (barge-in silences only the interrupted answer).
        await expect.poll(() => outputLevel(page, 300), wait).toBeGreaterThan(0.01);
        await bar.getByText('Listening', { exact: true }).waitFor(wait);
        // The demo's side: what it received, in order, after the story began.
        const received = [
          ...shell
            .output()
            .slice(logFrom)
            .matchAll(/AgentCall demo received ([^\n]+)/g),
        ].map((match) => match[1]!.trim());
        expect(received).toEqual([
          expect.stringMatching(/^user\.turn \(turn \d+\)$/),
          // Cancelled while the story was still being told (not all of its parts sent).
          expect.stringMatching(new RegExp(`^response\\.cancel during run-\\d+ after [1-${demoStory.length - 1}] of ${demoStory.length} parts$`)),
          expect.stringMatching(/^user\.turn \(turn \d+\)$/),
        ]);
        console.log(`the demo received, from the story on: ${received.join(' | ')}`);
        const told = Number(/after (\d+) of/.exec(received[1]!)![1]);
        // The page's side: response.cancel went before the third turn, and no part the demo had not sent was said.
        const order = app.frames
          .filter((frame) => /"t":"call"/.test(frame) && /agentdesk:(agentcall\.cancel|conversation\.send)"/.test(frame))
          .map((frame) => (frame.includes('agentcall.cancel') ? 'cancel' : 'turn'));
        expect(order).toEqual(['turn', 'turn', 'cancel', 'turn']);
        const storySaid = demoStory.filter((part) => ipcCalls(app.frames, 'speech.synthesize').some((frame) => frame.includes(part.slice(0, 30))));
        expect(storySaid.length).toBeLessThanOrEqual(told);

        // Muted: nothing is heard or recognised.
        await bar.getByText('Listening', { exact: true }).waitFor(wait);
        await bar.getByRole('button', { name: 'Mute' }).click();
        const transcribed = ipcCalls(app.frames, 'speech.transcribe').length;
        await say(page, 'hello');
        await page.waitForTimeout(2_000);
        expect(ipcCalls(app.frames, 'speech.transcribe')).toHaveLength(transcribed);
        expect(network.foreign).toEqual([]);
        await bar.getByRole('button', { name: 'Hang up' }).click();
        await page.getByRole('button', { name: 'Talk by voice' }).waitFor(wait);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );

  it(
    'with a Piper voice imported in Settings → Speech, the answer is spoken in it (the synthetic voice’s 441 Hz tone), and removed, by espeak-ng again',
    { timeout: 180_000 },
    async () => {
      const { shell, app, page } = await openDemo({});
      try {
        const voiceDir = await mkdtemp(join(tmpdir(), 'agentdesk-e2e-voice-'));
        dirs.push(voiceDir);
        const voice = await piperVoiceFolder(voiceDir);
        await page.getByRole('button', { name: 'Settings' }).click();
        const speech = page.getByRole('group', { name: 'Speech' });
        await speech.getByRole('textbox', { name: 'Voice folder or archive' }).fill(voice);
        await speech.getByRole('button', { name: 'Import voice', exact: true }).click();
        await speech.getByText('Voice imported.').waitFor(wait);
        await page.getByRole('button', { name: 'Back' }).first().click();

        const ask = async () => {
          const before = ipcCalls(app.frames, 'speech.synthesize').length;
          await page.getByRole('textbox', { name: 'Message' }).fill('hello');
          await page.getByRole('button', { name: 'Send', exact: true }).click();
          await expect.poll(() => ipcCalls(app.frames, 'speech.synthesize').length, wait).toBeGreaterThan(before);
          await expect.poll(() => outputLevel(page, 300), wait).toBeGreaterThan(0.01);
          return outputPitches(page, 1_500);
        };
        await page.getByRole('button', { name: 'Scan and teach objects' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        // The answer's speech.segment, synthesised by main in the voice's own process, plays in the page: nothing but its tone.
        const inVoice = await ask();
        console.log(
          `the page's output while the imported voice spoke: ${inVoice.length} samples, ${Math.min(...inVoice).toFixed(0)}–${Math.max(...inVoice).toFixed(0)} Hz`,
        );
        expect(inVoice.length).toBeGreaterThan(5);
        expect(inVoice.every((hz) => Math.abs(hz - 441) < 30)).toBe(true);

        // Removed in Settings: espeak-ng speaks the next answer (a voice of many frequencies, not one tone).
        await page.getByRole('button', { name: 'Settings' }).click();
        await speech.getByRole('button', { name: 'Remove voice' }).click();
        await speech.getByText('Voice removed.').waitFor(wait);
        await page.getByRole('button', { name: 'Back' }).first().click();
        await page.getByRole('button', { name: 'Scan and teach objects' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        // Leaving the conversation stopped the voice's long answer (0.1 s of tone per phoneme).
        expect(await outputLevel(page, 300)).toBe(0);
        const byEspeak = await ask();
        console.log(
          `the page's output while espeak-ng spoke: ${byEspeak.length} samples, ${Math.min(...byEspeak).toFixed(0)}–${Math.max(...byEspeak).toFixed(0)} Hz`,
        );
        expect(byEspeak.some((hz) => Math.abs(hz - 441) >= 30)).toBe(true);
        expect(new Set(byEspeak.map((hz) => Math.round(hz))).size).toBeGreaterThan(2);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );

  it(
    'with no model imported, Talk by voice listens with the basic English recognizer (pocketsphinx), says it is basic, and a spoken sentence goes out as one user.turn',
    { timeout: 180_000 },
    async () => {
      const { shell, app, page } = await openDemo({});
      try {
        await page.getByRole('button', { name: 'Scan and teach objects' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        await page.getByRole('button', { name: 'Talk by voice' }).click();
        const bar = page.getByRole('group', { name: 'Voice' });
        await explainFailure(page, 'clientvoice-basic-start-failed', () => bar.getByText('Listening', { exact: true }).waitFor(wait));
        await bar.getByText(/^Basic English recognition \(pocketsphinx\): it often mishears/).waitFor(wait);
        await expectNoViolations(page, 'AgentCall client voice with the basic recognizer');
        await say(page, 'what is the weather tomorrow');
        await expect.poll(() => ipcCalls(app.frames, 'conversation.send').length, wait).toBe(1);
        const turn = JSON.parse(/"text":("(?:[^"\\]|\\.)*")/.exec(ipcCalls(app.frames, 'conversation.send')[0]!)![1]!) as string;
        console.log(`the basic recognizer heard espeak-ng's "what is the weather tomorrow" through the page as "${turn}"`);
        expect(turn.split(' ').length).toBeGreaterThan(1);
        await page.getByRole('log', { name: 'Conversation' }).getByText(turn, { exact: true }).first().waitFor(wait);
        await bar.getByRole('button', { name: 'Hang up' }).click();
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );

  it(
    'without any recognizer, Talk by voice says in one sentence what to import and where, and the message field has the focus',
    { timeout: 120_000 },
    async () => {
      const { shell, app, page } = await openDemo({ AGENTDESK_SPEECH_RECOGNIZER: 'none' });
      try {
        await page.getByRole('button', { name: 'Scan and teach objects' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor(wait);
        await page.getByRole('button', { name: 'Talk by voice' }).click();
        await page
          .getByRole('group', { name: 'Voice' })
          .getByRole('alert')
          .getByText(
            'Speech cannot be recognised here yet: import a speech model from https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models in Settings → Speech, and type your message meanwhile.',
          )
          .waitFor(wait);
        await expect
          .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName))
          .toMatch(/Message|TEXTAREA/);
        await expectNoViolations(page, 'AgentCall client voice without a recognizer');
        expect(ipcCalls(app.frames, 'media.arm')).toEqual([]);
      } finally {
        await app.close();
        await shell.stop();
      }
    },
  );
});
