import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { fail, ok } from '../../../src/shared/ipc/errors';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentCallScreen } from '../../../src/renderer/screens/agentcall/AgentCallScreen';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc, type FakeMedia } from './fake-webrtc';

/**
 * The AgentCall screen with a WebRTC card (agent-owned voice): Call instead of a session, the shared
 * call bar once connected, push to talk (Hold to talk; the microphone stops before commit; Esc and the
 * window losing focus cancel), and a connection that drops ends the session: nothing is resumed.
 */

const answerSdp = 'v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=fake answer\r\n';
const agentId = 'voice-agent';
let media: FakeMedia;

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
  media = installFakeWebRtc();
});

afterEach(() => {
  cleanup();
  uninstallFakeWebRtc();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function backend(): { fake: FakeBackend; order: string[] } {
  const fake = createFakeBackend();
  fake.state.agentCall = { ...fake.state.agentCall, voice: { owner: 'agent', transport: 'webrtc', explicitTurns: true } };
  fake.state.agentCallAgents.push(agentId);
  const order: string[] = [];
  fake.handle('agentcall.callOffer', () => ok({ callKey: 'call-1', sdp: answerSdp, explicitTurns: true }));
  fake.handle('agentcall.callOpened', () =>
    ok({ sessionKey: 'call-1', agent: fake.state.agentCall, updates: [{ type: 'session.starting', sessionId: 'agentdesk-call-1', usableModalities: ['photo'], agentRequests: ['photo'], focusContext: true }] }),
  );
  fake.handle('agentcall.callMessage', () => ok({ taken: true }));
  fake.handle('agentcall.callClosed', () => ok({ ended: true }));
  fake.handle('agentcall.audioTurn', ({ action }) => {
    order.push(`${action} (microphone ${media.tracks.at(-1)?.enabled ? 'on' : 'off'})`);
    return ok({ turn: 1 });
  });
  return { fake, order };
}

function push(fake: FakeBackend, ...updates: SessionUpdate[]) {
  act(() => fake.emit('agentcall.update', { sessionKey: 'call-1', updates }));
}

async function connected(fake: FakeBackend) {
  const user = userEvent.setup();
  render(
    <I18nProvider setting="en">
      <AgentCallScreen api={fake.api} headingRef={createRef<HTMLHeadingElement>()} agentId={agentId} label="Voice agent" onBack={() => undefined} />
    </I18nProvider>,
  );
  const call = await screen.findByRole('button', { name: /^Start a voice call with / });
  expect(fake.callsOf('agentcall.open')).toEqual([]);
  await user.click(call);
  await waitFor(() => expect(media.peers.at(-1)?.remoteDescription).toBeTruthy());
  act(() => media.channel().open());
  const talk = await screen.findByRole('button', { name: 'Hold to talk' });
  push(fake, { type: 'session.established' });
  return { user, talk, bar: within(screen.getByRole('group', { name: 'Voice call' })) };
}

describe('the AgentCall screen calling a WebRTC agent', () => {
  it('offers Call instead of a session; connected, Hold to talk opens a turn and the microphone stops before the commit', async () => {
    const { fake, order } = backend();
    const { talk, bar } = await connected(fake);
    expect(bar.getByText('Listening')).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
    fireEvent.pointerDown(talk);
    await waitFor(() => expect(media.tracks.at(-1)?.enabled).toBe(true));
    expect(bar.getByText('Listening: you are speaking')).toBeTruthy();
    fireEvent.pointerUp(talk);
    await waitFor(() => expect(order).toEqual(['start (microphone off)', 'commit (microphone off)']));
    expect(media.tracks.at(-1)?.enabled).toBe(false);
  });

  it('Esc or the window losing focus cancels the open turn; Mute closes Hold to talk', async () => {
    const { fake, order } = backend();
    const { talk, user } = await connected(fake);
    fireEvent.pointerDown(talk);
    await waitFor(() => expect(media.tracks.at(-1)?.enabled).toBe(true));
    fireEvent.keyDown(window, { key: 'Escape' });
    await waitFor(() => expect(order).toEqual(['start (microphone off)', 'cancel (microphone off)']));
    fireEvent.pointerDown(talk);
    await waitFor(() => expect(media.tracks.at(-1)?.enabled).toBe(true));
    fireEvent.blur(window);
    await waitFor(() => expect(order.slice(2)).toEqual(['start (microphone off)', 'cancel (microphone off)']));
    await user.click(screen.getByRole('button', { name: 'Mute' }));
    expect((screen.getByRole('button', { name: 'Hold to talk' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('a press that opens no turn says so (nothing was sent) and the bar is back to Listening; the next press clears it', async () => {
    const { fake, order } = backend();
    const { talk, bar } = await connected(fake);
    fake.handle('agentcall.audioTurn', () => fail('rejected', 'The agent did not stop answering within 5 s of being asked to, so it did not hear you. Try again.'));
    fireEvent.pointerDown(talk);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/The agent did not hear that: nothing you said was sent\..*did not stop answering/);
    expect(bar.getByText('Listening')).toBeTruthy();
    expect(media.tracks.at(-1)?.enabled).toBe(false);
    fireEvent.pointerUp(talk);
    expect(order).toEqual([]);
    fake.handle('agentcall.audioTurn', ({ action }) => {
      order.push(action);
      return ok({ turn: 2 });
    });
    fireEvent.pointerDown(talk);
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    await waitFor(() => expect(media.tracks.at(-1)?.enabled).toBe(true));
    fireEvent.pointerUp(talk);
    await waitFor(() => expect(order).toEqual(['start', 'commit']));
  });

  it('a dropped connection ends the session: main is told, the conversation ends, and a new session starts with Call again', async () => {
    const { fake } = backend();
    const { user } = await connected(fake);
    push(fake, { type: 'run.started', runKey: 'r1' }, { type: 'text.delta', runKey: 'r1', text: 'Hello there.' }, { type: 'run.completed', runKey: 'r1' });
    await screen.findByText('Hello there.');
    act(() => media.peer().changeState('disconnected'));
    await waitFor(() => expect(fake.callsOf('agentcall.callClosed')).toEqual([{ callKey: 'call-1', why: 'the connection disconnected', clean: false }]));
    push(fake, { type: 'ended', reason: { kind: 'transport_closed', closeCode: 1006, closeReason: '', message: 'The call’s connection was lost.' } });
    await screen.findByRole('button', { name: 'Start a new session' });
    expect(screen.queryByRole('group', { name: 'Voice call' })).toBeNull();
    expect(media.tracks.at(-1)?.readyState).toBe('ended');
    await user.click(screen.getByRole('button', { name: 'Start a new session' }));
    await screen.findByRole('button', { name: /^Start a voice call with / });
    expect(screen.queryByText('Hello there.')).toBeNull();
    expect(fake.callsOf('agentcall.open')).toEqual([]);
  });
});
