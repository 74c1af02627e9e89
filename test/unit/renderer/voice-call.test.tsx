import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/base/errors';
import { applySettingsPatch } from '../../../src/shared/settings/settings';
import type { Action } from '../../../src/shared/talkie/content';
import { goHome, openDemo, openDetails, pendingAction, transcript } from './chat-helpers';
import { createFakeBackend, demoView, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc, type FakeMedia } from './fake-webrtc';

const offered = { offered: true as const, voiceConfirm: true, signalingHosts: ['api.openai.com'] };
const answerSdp = 'v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=fake answer\r\n';
const proposal: Action = pendingAction({ id: 'a_voice', summary: 'Send offer N-2026-014', paramsHash: 'sha256:heard', voice: true, threadId: 't-voice' });

let media: FakeMedia;
beforeEach(() => {
  media = installFakeWebRtc();
  localStorage.clear();
});
afterEach(() => {
  uninstallFakeWebRtc();
  vi.restoreAllMocks();
});

/** A fake main whose demo server offers voice, with a voice session that answers everything. */
function voiceBackend(options: { unencrypted?: () => boolean } = {}): FakeBackend {
  const backend = createFakeBackend();
  backend.state.talkie.views[builtInDemoAgentId] = demoView({ voice: offered });
  backend.state.talkie.actions[proposal.id] = proposal;
  let calls = 0;
  backend.handle('talkie.voiceStart', () => {
    calls += 1;
    return ok({
      callId: `vc_${String(calls)}`,
      threadId: 't-voice',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      maxSeconds: 900,
      warnSeconds: 60,
      locale: 'en',
      labels: { send_offer: 'Preparing the offer…', search_records: 'Searching the CRM…' },
      consent: { confirm: [], refuse: [] },
      voiceConfirm: true,
      ...(options.unencrypted?.() ? { unencrypted: true as const } : {}),
    });
  });
  backend.handle('talkie.voiceOffer', () => ok({ sdp: answerSdp }));
  backend.handle('talkie.voiceTool', ({ name }) =>
    ok(
      name === 'send_offer'
        ? { outcome: 'ok' as const, output: 'Offer N-2026-014 is ready. Say yes to send it.', updates: [{ type: 'action' as const, action: proposal }] }
        : {
            outcome: 'ok' as const,
            output: 'Found Acme s.r.o.',
            updates: [{ type: 'card' as const, card: { id: 'c_acme', title: 'Acme s.r.o.', fallbackText: 'Acme s.r.o., client in Brno' } }],
          },
    ),
  );
  backend.handle('talkie.voiceDecide', ({ actionId, decision }) => {
    const action = { ...backend.state.talkie.actions[actionId]!, status: decision === 'confirm' ? ('done' as const) : ('cancelled' as const) };
    backend.state.talkie.actions[actionId] = action;
    return ok({ action, updates: [{ type: 'card' as const, card: { id: 'c_sent', title: 'Offer sent', fallbackText: 'Offer sent to novak@alfa.cz' } }] });
  });
  backend.handle('talkie.voiceTranscript', () => ok({ stored: true }));
  backend.handle('talkie.voiceUsage', ({ seconds }) => ok({ remainingSeconds: 900 - seconds }));
  backend.handle('talkie.voiceEnd', () => ok({ ended: true, remainingSeconds: 800 }));
  return backend;
}

const callButton = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Start a voice call with AgentDesk Demo' });
const callBar = () => within(screen.getByRole('group', { name: 'Voice call' }));
const provider = (json: Record<string, unknown>) => act(() => media.channel().receive(json));
/** A function call as the provider finishes it: its arguments, then its item done as `completed`. */
function functionCall(callId: string, name: string, args: string) {
  provider({
    type: 'response.function_call_arguments.done',
    response_id: 'r_f',
    item_id: `fc_${callId}`,
    output_index: 0,
    call_id: callId,
    name,
    arguments: args,
  });
  provider({
    type: 'response.output_item.done',
    response_id: 'r_f',
    output_index: 0,
    item: { id: `fc_${callId}`, type: 'function_call', status: 'completed', call_id: callId, name, arguments: args },
  });
}

/** Call → (consent) → voiceStart → voiceOffer, and the data channel opens: the call is live. */
async function inCall(backend = voiceBackend()) {
  const app = await openDemo(backend);
  await app.user.click(callButton());
  const dialog = await screen.findByRole('dialog', { name: 'Voice calls with AgentDesk Demo' });
  await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
  await waitFor(() => expect(backend.callsOf('talkie.voiceOffer')).toHaveLength(1));
  await waitFor(() => expect(media.peer().remoteDescription).toEqual({ type: 'answer', sdp: answerSdp }));
  act(() => media.channel().open());
  await waitFor(() => expect(callBar().getByText('Listening')).toBeTruthy());
  return { ...app, backend };
}

/** The conversation's polite announcer (what a screen reader says). */
const announced = () => document.querySelector('.talkie-announcer')?.textContent ?? '';
const sentTypes = () => media.channel().sent.map((event) => String(event.type));

describe('voice calls on the Talkie screen (Talkie 1 §10)', () => {
  it('shows Call only when the server offers voice, greyed out with the reason when status says voice is off', async () => {
    await openDemo(createFakeBackend());
    expect(screen.queryByRole('button', { name: /Start a voice call/ })).toBeNull();
  });

  it('greys Call out with the reason when Talkie 1 §4 status says voice is off now', async () => {
    const backend = voiceBackend();
    backend.state.talkie.status = { ...backend.state.talkie.status, voice: false };
    await openDemo(backend);
    await waitFor(() => expect(callButton().disabled).toBe(true));
    expect(callButton().getAttribute('aria-describedby')).toBeTruthy();
    expect(screen.getByText('Voice is switched off for your account on this server right now.').id).toBe(callButton().getAttribute('aria-describedby'));
  });

  it('asks for consent before the first call (where the audio goes), and Cancel starts nothing', async () => {
    const backend = voiceBackend();
    const { user } = await openDemo(backend);
    await user.click(callButton());
    const dialog = await screen.findByRole('dialog', { name: 'Voice calls with AgentDesk Demo' });
    expect(within(dialog).getByText(/Your voice goes to the speech provider at api\.openai\.com/)).toBeTruthy();
    // Focus moved into the dialog; Escape closes only the dialog, and focus goes back to Call.
    expect(dialog.contains(document.activeElement)).toBe(true);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(callButton());
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    await user.click(callButton());
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(backend.callsOf('talkie.voiceStart')).toEqual([]);
    expect(backend.callsOf('settings.update')).toEqual([]);
    expect(media.requests).toEqual([]);
  });

  it.each([
    ['asks again when the consent was given to the same serverId on another origin (a copy of this server)', 'http://127.0.0.1:9', true],
    ['does not ask when the consent was given to this server (its serverId at its origin)', 'http://127.0.0.1:41234', false],
  ] as const)('%s', async (_name, issuer, asks) => {
    const backend = voiceBackend();
    backend.state.settings = applySettingsPatch(backend.state.settings, {
      voiceConsent: { serverId: 'demo.agentdesk.local', issuer, signalingHosts: ['api.openai.com'] },
    });
    const { user } = await openDemo(backend);
    await user.click(callButton());
    if (asks) {
      expect(await screen.findByRole('dialog', { name: 'Voice calls with AgentDesk Demo' })).toBeTruthy();
      expect(backend.callsOf('talkie.voiceStart')).toEqual([]);
    } else {
      await waitFor(() => expect(backend.callsOf('talkie.voiceStart')).toHaveLength(1));
      expect(screen.queryByRole('dialog')).toBeNull();
    }
  });

  it('Call → consent → voiceStart → voiceOffer; the data channel’s events drive what the bar says', async () => {
    const { backend, user } = await inCall();
    expect(backend.callsOf('talkie.voiceStart')).toEqual([{ agentId: builtInDemoAgentId, locale: 'en' }]);
    expect(backend.callsOf('settings.update')).toEqual([
      { patch: { voiceConsent: { serverId: 'demo.agentdesk.local', issuer: 'http://127.0.0.1:41234', signalingHosts: ['api.openai.com'] } } },
    ]);
    expect(backend.callsOf('media.arm')).toEqual([{ kinds: ['microphone'] }]);
    expect(media.requests).toEqual([{ audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true }, video: false }]);
    const peer = media.peer();
    expect(peer.config).toEqual({ iceServers: [] });
    expect(peer.transceivers.map((t) => t.direction)).toEqual(['sendrecv']);
    expect(peer.channels.map((c) => c.label)).toEqual(['oai-events']);
    // The offer went to main after ICE gathering; only the call id came back to this page.
    expect(backend.callsOf('talkie.voiceOffer')).toEqual([{ callId: 'vc_1', sdp: peer.localDescription!.sdp }]);
    expect(announced()).toContain('Call connected. Listening.');
    expect(media.tracks[0]!.enabled).toBe(true);

    provider({ type: 'input_audio_buffer.speech_started', item_id: 'u1', audio_start_ms: 0 });
    expect(callBar().getByText('Listening: you are speaking')).toBeTruthy();
    provider({ type: 'input_audio_buffer.speech_stopped', item_id: 'u1', audio_end_ms: 800 });
    provider({ type: 'response.created', response: { id: 'r1' } });
    expect(callBar().getByText('Thinking…')).toBeTruthy();
    provider({ type: 'output_audio_buffer.started', response_id: 'r1' });
    expect(callBar().getByText('Speaking')).toBeTruthy();
    provider({ type: 'response.done', response: { id: 'r1', status: 'completed' } });
    expect(callBar().getByText('Speaking')).toBeTruthy();
    provider({ type: 'output_audio_buffer.stopped', response_id: 'r1' });
    expect(callBar().getByText('Listening')).toBeTruthy();
    expect(callBar().getByText(/^(14:59|15:00) left$/)).toBeTruthy();

    // What was said shows in the thread, marked as spoken, in the provider's order; each line is posted once.
    provider({ type: 'conversation.item.added', previous_item_id: null, item: { id: 'u1', type: 'message', role: 'user' } });
    // Main shows the lines the page reads on the data channel (talkie.voiceLine).
    expect(await transcript().findByText('Listening…')).toBeTruthy();
    provider({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'u1', transcript: 'What is on today?' });
    expect(await transcript().findByText('What is on today?')).toBeTruthy();
    expect(backend.callsOf('talkie.voiceLine')).toEqual([
      { callId: 'vc_1', itemId: 'u1', role: 'user', text: '', state: 'hearing' },
      { callId: 'vc_1', itemId: 'u1', role: 'user', text: 'What is on today?', state: 'final' },
    ]);
    expect(transcript().getAllByText('Spoken')).toHaveLength(1);
    await waitFor(() => expect(backend.callsOf('talkie.voiceTranscript')).toEqual([{ callId: 'vc_1', role: 'user', itemId: 'u1', text: 'What is on today?' }]));

    // Barge-in: the assistant's voice stops here at once when the user speaks over it.
    const audio = document.querySelector('audio')!;
    provider({ type: 'response.created', response: { id: 'r2' } });
    provider({ type: 'output_audio_buffer.started', response_id: 'r2' });
    expect(audio.muted).toBe(false);
    provider({ type: 'input_audio_buffer.speech_started', item_id: 'u2', audio_start_ms: 0 });
    expect(audio.muted).toBe(true);
    void user;
  });

  it('does not ask again for a server the user agreed to', async () => {
    const { backend, user } = await inCall();
    await user.click(callBar().getByRole('button', { name: 'Hang up' }));
    await user.click(callButton());
    await waitFor(() => expect(backend.callsOf('talkie.voiceStart')).toHaveLength(2));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('mute disables the outgoing track; push to talk enables it only while Hold to talk is held', async () => {
    const { user } = await inCall();
    const track = media.tracks[0]!;
    expect(document.activeElement).toBe(callBar().getByRole('button', { name: 'Mute' }));
    await user.click(callBar().getByRole('button', { name: 'Mute' }));
    expect(track.enabled).toBe(false);
    expect(sentTypes()).toEqual(['input_audio_buffer.clear']);
    const unmute = callBar().getByRole('button', { name: 'Unmute' });
    expect(unmute.getAttribute('aria-pressed')).toBe('true');
    expect(announced()).toBe('Microphone muted.');
    await user.click(unmute);
    expect(track.enabled).toBe(true);

    await user.selectOptions(callBar().getByRole('combobox', { name: 'Mode' }), 'Push to talk');
    expect(track.enabled).toBe(false);
    const hold = callBar().getByRole('button', { name: 'Hold to talk' });
    await waitFor(() => expect(document.activeElement).toBe(hold));
    fireEvent.keyDown(hold, { key: ' ' });
    expect(track.enabled).toBe(true);
    expect(hold.getAttribute('aria-pressed')).toBe('true');
    fireEvent.keyDown(hold, { key: ' ', repeat: true });
    fireEvent.keyUp(hold, { key: ' ' });
    expect(track.enabled).toBe(false);
    fireEvent.pointerDown(hold, { pointerId: 1 });
    expect(track.enabled).toBe(true);
    fireEvent.pointerUp(hold, { pointerId: 1 });
    expect(track.enabled).toBe(false);
  });

  it('takes the global shortcut once connected: its presses toggle talking (push to talk) or mute (hands free); hang-up gives it back', async () => {
    const backend = voiceBackend();
    backend.handle('talkie.voiceShortcut', ({ armed }) => ok(armed ? { state: 'armed' as const, label: 'Ctrl+Shift+Space' } : { state: 'off' as const }));
    const { user } = await inCall(backend);
    expect(backend.callsOf('talkie.voiceShortcut')).toEqual([{ callId: 'vc_1', armed: true }]);
    await waitFor(() => expect(callBar().getByText('Ctrl+Shift+Space anywhere: mute or unmute')).toBeTruthy());
    const track = media.tracks[0]!;
    expect(track.enabled).toBe(true);
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_1' }));
    expect(track.enabled).toBe(false);
    expect(callBar().getByRole('button', { name: 'Unmute' })).toBeTruthy();
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_1' }));
    expect(track.enabled).toBe(true);

    await user.selectOptions(callBar().getByRole('combobox', { name: 'Mode' }), 'Push to talk');
    expect(callBar().getByText('Ctrl+Shift+Space anywhere: start or stop talking')).toBeTruthy();
    expect(track.enabled).toBe(false);
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_1' }));
    expect(track.enabled).toBe(true);
    expect(callBar().getByRole('button', { name: 'Talking…' }).getAttribute('aria-pressed')).toBe('true');
    // A press meant for another call changes nothing.
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_9' }));
    expect(track.enabled).toBe(true);
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_1' }));
    expect(track.enabled).toBe(false);

    await user.click(callBar().getByRole('button', { name: 'Hang up' }));
    expect(screen.queryByText(/anywhere:/)).toBeNull();
    act(() => backend.emit('talkie.voiceShortcutPressed', { callId: 'vc_1' }));
    expect(track.enabled).toBe(false);
  });

  it('says so when another program holds the shortcut', async () => {
    const taken = voiceBackend();
    taken.handle('talkie.voiceShortcut', () => ok({ state: 'taken' as const, label: 'Ctrl+Shift+Space' }));
    await inCall(taken);
    await waitFor(() => expect(callBar().getByText('Ctrl+Shift+Space is in use by another program; use the buttons here.')).toBeTruthy());
  });

  it('shows no shortcut where the shell has none (the fake main answers like the web shell: unavailable)', async () => {
    const web = voiceBackend();
    await inCall(web);
    await waitFor(() => expect(web.callsOf('talkie.voiceShortcut')).toHaveLength(1));
    expect(screen.queryByText(/Ctrl\+Shift\+Space/)).toBeNull();
  });

  it('switches the microphone with replaceTrack, on the same connection', async () => {
    const { user } = await inCall();
    const select = callBar().getByRole('combobox', { name: 'Microphone' });
    await waitFor(() => expect(within(select).getByRole('option', { name: 'USB headset' })).toBeTruthy());
    await user.selectOptions(select, 'USB headset');
    await waitFor(() => expect(media.peer().transceivers[0]!.sender.track.deviceId).toBe('mic-2'));
    expect(media.requests.at(-1)).toEqual({
      audio: { deviceId: { exact: 'mic-2' }, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      video: false,
    });
    expect(media.tracks[0]!.readyState).toBe('ended');
    expect(media.tracks[1]!.enabled).toBe(true);
    expect(media.peers).toHaveLength(1);
  });

  it('runs a provider function call through voiceTool once, sends its output back, and shows its card in the thread', async () => {
    const { backend } = await inCall();
    functionCall('call_1', 'search_records', '{"q":"Acme"}');
    functionCall('call_1', 'search_records', '{"q":"Acme"}');
    await waitFor(() => expect(transcript().getByText('Acme s.r.o.')).toBeTruthy());
    expect(backend.callsOf('talkie.voiceTool')).toEqual([{ callId: 'vc_1', providerCallId: 'call_1', name: 'search_records', arguments: '{"q":"Acme"}' }]);
    // The tool's line, said in the past once it ran (the session's label for it).
    expect(transcript().getByText('Finished searching the CRM')).toBeTruthy();
    expect(media.channel().sent).toEqual([
      { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_1', output: 'Found Acme s.r.o.' } },
      { type: 'response.create' },
    ]);
  });

  it('confirms a proposal by voice through talkie.voiceDecide once, after its reading stopped', async () => {
    const { backend } = await inCall();
    functionCall('call_p', 'send_offer', '{}');
    const card = await screen.findByRole('article', { name: proposal.summary });
    await waitFor(() => expect(sentTypes()).toEqual(['session.update', 'conversation.item.create', 'response.create']));
    expect(media.channel().sent[0]).toEqual({
      type: 'session.update',
      event_id: 'agentdesk_1',
      session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } },
    });
    expect(within(card).getByText('The assistant is reading this proposal out…')).toBeTruthy();
    provider({ type: 'session.updated', session: { type: 'realtime', audio: { input: { turn_detection: { type: 'server_vad', create_response: false } } } } });

    provider({ type: 'response.created', response: { id: 'r_p' } });
    provider({ type: 'output_audio_buffer.started', response_id: 'r_p' });
    provider({ type: 'response.done', response: { id: 'r_p', status: 'completed' } });
    expect(within(card).queryByText(/Listening for your confirmation/)).toBeNull();
    provider({ type: 'output_audio_buffer.stopped', response_id: 'r_p' });
    expect(within(card).getByText('Listening for your confirmation — say “yes, confirm”, or “no” to cancel.')).toBeTruthy();
    expect(announced()).toBe('Listening for your confirmation. Say “yes, confirm”.');
    // The buttons stay the whole time (C15).
    expect(within(card).getByRole('button', { name: `Confirm: ${proposal.summary}` })).toBeTruthy();

    provider({ type: 'input_audio_buffer.speech_started', item_id: 'u_yes', audio_start_ms: 0 });
    const yes = { type: 'conversation.item.input_audio_transcription.completed', item_id: 'u_yes', transcript: 'Yes, confirm.' };
    provider(yes);
    provider(yes);
    await waitFor(() => expect(within(card).getByText('Completed')).toBeTruthy());
    expect(backend.callsOf('talkie.voiceDecide')).toEqual([{ callId: 'vc_1', actionId: 'a_voice', paramsHash: 'sha256:heard', decision: 'confirm' }]);
    expect(backend.callsOf('talkie.decide')).toEqual([]);
    expect(transcript().getByText('Offer sent')).toBeTruthy();
  });

  it('closes the voice window when the button decides first', async () => {
    const { backend, user } = await inCall();
    functionCall('call_p', 'send_offer', '{}');
    const card = await screen.findByRole('article', { name: proposal.summary });
    provider({ type: 'response.created', response: { id: 'r_p' } });
    provider({ type: 'output_audio_buffer.started', response_id: 'r_p' });
    provider({ type: 'output_audio_buffer.stopped', response_id: 'r_p' });
    await user.click(within(card).getByRole('button', { name: `Confirm: ${proposal.summary}` }));
    provider({ type: 'input_audio_buffer.speech_started', item_id: 'u_yes', audio_start_ms: 0 });
    provider({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'u_yes', transcript: 'yes, confirm' });
    await waitFor(() => expect(backend.callsOf('talkie.decide')).toHaveLength(1));
    expect(backend.callsOf('talkie.voiceDecide')).toEqual([]);
  });

  it('says on the call bar, in English and Czech, that a call set up over http:// (the development setting) is unencrypted', { timeout: 20_000 }, async () => {
    const development = { on: false };
    const backend = voiceBackend({ unencrypted: () => development.on });
    const secure = await inCall(backend);
    expect(screen.queryByText(/unencrypted http/)).toBeNull();
    await secure.user.click(callBar().getByRole('button', { name: 'Hang up' }));

    // Main says the signalling address was http:// (allowed only by the developer setting; Talkie 1 §10.1 requires https).
    development.on = true;
    await secure.user.click(callButton());
    await waitFor(() => expect(backend.callsOf('talkie.voiceOffer')).toHaveLength(2));
    act(() => media.channel().open());
    expect(
      await callBar().findByText('Development connection: this call was set up over unencrypted http://, which only the developer setting allows.'),
    ).toBeTruthy();

    backend.state.settings = { ...backend.state.settings, language: 'cs' };
    act(() => backend.emit('settings.changed', backend.state.settings));
    const czechBar = within(await screen.findByRole('group', { name: 'Hlasový hovor' }));
    expect(czechBar.getByText('Vývojové spojení: hovor byl navázán přes nešifrované http://, které povoluje jen nastavení pro vývojáře.')).toBeTruthy();
  });

  it('tells main about every provider error (for its log), and shows the one that refused a setting', async () => {
    const { backend } = await inCall();
    functionCall('call_p', 'send_offer', '{}');
    await waitFor(() => expect(sentTypes()).toEqual(['session.update', 'conversation.item.create', 'response.create']));
    provider({
      type: 'error',
      event_id: 'ev_1',
      error: {
        type: 'invalid_request_error',
        code: 'invalid_value',
        message: 'Unknown turn detection setting.',
        param: 'session.audio.input.turn_detection',
        event_id: 'agentdesk_1',
      },
    });
    provider({
      type: 'error',
      event_id: 'ev_2',
      error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'No active response.', event_id: null },
    });
    await waitFor(() => expect(backend.callsOf('talkie.voiceProviderError')).toHaveLength(2));
    expect(backend.callsOf('talkie.voiceProviderError')[0]).toEqual({
      callId: 'vc_1',
      type: 'invalid_request_error',
      code: 'invalid_value',
      message: 'Unknown turn detection setting.',
      param: 'session.audio.input.turn_detection',
      eventId: 'agentdesk_1',
      answersUpdate: true,
    });
    expect(callBar().getByText('The speech provider reported: Unknown turn detection setting.')).toBeTruthy();
    expect(screen.queryByText(/No active response/)).toBeNull();
    const card = await screen.findByRole('article', { name: proposal.summary });
    provider({ type: 'response.created', response: { id: 'r_p' } });
    provider({ type: 'output_audio_buffer.started', response_id: 'r_p' });
    provider({ type: 'output_audio_buffer.stopped', response_id: 'r_p' });
    expect(within(card).queryByText(/Listening for your confirmation/)).toBeNull();
    expect(within(card).getByText('Not decided by voice: use the buttons.')).toBeTruthy();
    expect(callBar().getByText('The speech provider reported: Unknown turn detection setting.')).toBeTruthy();
  });

  it('hangs up: the connection closes, the tracks stop, the microphone is disarmed and voiceEnd sends the final usage', async () => {
    const { backend, user } = await inCall();
    const track = media.tracks[0]!;
    await user.click(callBar().getByRole('button', { name: 'Hang up' }));
    await waitFor(() => expect(backend.callsOf('talkie.voiceEnd')).toHaveLength(1));
    expect(backend.callsOf('talkie.voiceEnd')[0]).toMatchObject({ callId: 'vc_1', seconds: expect.any(Number) });
    expect(media.peer().closed).toBe(true);
    expect(media.channel().readyState).toBe('closed');
    expect(track.readyState).toBe('ended');
    expect(backend.callsOf('media.disarm')).toEqual([{ kinds: ['microphone'] }]);
    expect(callBar().getByText('You hung up.')).toBeTruthy();
    expect(announced()).toBe('You hung up.');
    expect(document.activeElement).toBe(callButton());
  });

  it('moves the account’s voice meter once the server counted the call’s seconds (a usage report or the final one)', async () => {
    const { backend, user } = await inCall();
    const before = backend.callsOf('talkie.status').length;
    backend.state.talkie.status = { ...backend.state.talkie.status, usage: [{ label: 'Voice today', used: 2, limit: 30, unit: 'minutes' }] };
    await user.click(callBar().getByRole('button', { name: 'Hang up' }));
    await waitFor(() => expect(backend.callsOf('talkie.status').length).toBe(before + 1));
    expect(await (await openDetails(user)).findByText('2 / 30 minutes')).toBeTruthy();
  });

  it('hangs up when the user leaves the screen', async () => {
    const { backend, user } = await inCall();
    await goHome(user);
    await waitFor(() => expect(backend.callsOf('talkie.voiceEnd')).toHaveLength(1));
    expect(media.peer().closed).toBe(true);
    expect(media.tracks[0]!.readyState).toBe('ended');
  });

  it('says why a call could not start: main refused, or the microphone', async () => {
    const backend = voiceBackend();
    backend.handle('talkie.voiceOffer', () => ({
      ok: false,
      error: { code: 'voice_session_expired', message: 'The voice connection expired before it was made; start the call again.', retryable: true },
    }));
    const { user } = await openDemo(backend);
    await user.click(callButton());
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'The call did not start. The voice connection expired before it was made; start the call again.',
    );
    // The session main made is ended at once (its final usage), and the microphone is off again.
    await waitFor(() => expect(backend.callsOf('talkie.voiceEnd')).toEqual([{ callId: 'vc_1', seconds: 0 }]));
    expect(media.tracks[0]!.readyState).toBe('ended');
    expect(media.peer().closed).toBe(true);

    media.failNext('NotAllowedError');
    await user.click(callButton());
    expect(await screen.findByText('AgentDesk may not use the microphone. Allow it and try again.')).toBeTruthy();
    await waitFor(() => expect(backend.callsOf('talkie.voiceEnd')).toHaveLength(2));
    expect(backend.callsOf('media.disarm')).toHaveLength(2);
  });

  it("uses the device policy's voice.mode: the call starts in it, and the other mode is not offered", async () => {
    localStorage.setItem('agentdesk.voice.mode', 'hands-free');
    const backend = voiceBackend();
    backend.state.policy = {
      state: 'active',
      file: '/etc/agentdesk/policy.json',
      kiosk: false,
      agentsLocked: false,
      forced: [],
      camera: true,
      voice: true,
      adminPin: false,
      voiceMode: 'push-to-talk',
    };
    await inCall(backend);
    expect(callBar().queryByRole('combobox', { name: 'Mode' })).toBeNull();
    expect(callBar().getByText('Mode: Push to talk (set by the administrator)')).toBeTruthy();
    // Push to talk from the start: the microphone sends only while Hold to talk is held.
    expect(callBar().getByRole('button', { name: /Hold to talk/ })).toBeTruthy();
  });
});
