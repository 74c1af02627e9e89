import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { fail, ok } from '../../../src/shared/base/errors';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentScreen } from '../../../src/renderer/screens/AgentScreen';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc, type FakeMedia } from './fake-webrtc';

/**
 * An AgentCall agent with a WebRTC card (agent-owned voice) on the conversation screen: Call in the
 * composer's row instead of a session, the shared call bar above the composer once connected (its
 * session is the conversation's: main follows it), push to talk (Hold to talk; the microphone stops
 * before commit; Esc and the window losing focus cancel), the user's spoken turns in the
 * conversation, and a connection that drops ends the session: nothing is resumed.
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
  const main = agentCallMain(fake);
  fake.state.agentCall = { ...fake.state.agentCall, voice: { owner: 'agent', transport: 'webrtc', explicitTurns: true } };
  fake.state.agentCallAgents.push(agentId);
  const order: string[] = [];
  fake.handle('agentcall.callOffer', () => ok({ callKey: 'call-1', sdp: answerSdp, explicitTurns: true }));
  main.handleCall(agentId, () =>
    ok({
      sessionKey: 'call-1',
      agent: fake.state.agentCall,
      updates: [{ type: 'session.starting', sessionId: 'agentdesk-call-1', usableModalities: ['photo'], agentRequests: ['photo'], focusContext: true }],
    }),
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

const transcript = () => within(screen.getByRole('log', { name: 'Conversation' }));

async function connected(fake: FakeBackend) {
  const user = userEvent.setup();
  render(
    <I18nProvider setting="en">
      <AgentScreen
        api={fake.api}
        headingRef={createRef<HTMLHeadingElement>()}
        agentId={agentId}
        label="Voice agent"
        protocol="agentcall"
        onBack={() => undefined}
      />
    </I18nProvider>,
  );
  const call = await screen.findByRole('button', { name: /^Start a voice call with / });
  expect(fake.callsOf('agentcall.open')).toEqual([]);
  // Before the call nothing can be sent: the conversation is the call's.
  expect(screen.getByText('This agent speaks and listens itself: call it to talk, or to type while the call is on.')).toBeTruthy();
  expect(screen.getByRole<HTMLButtonElement>('button', { name: /Take a photo…/ }).disabled).toBe(true);
  await user.click(call);
  await waitFor(() => expect(media.peers.at(-1)?.remoteDescription).toBeTruthy());
  act(() => media.channel().open());
  const talk = await screen.findByRole('button', { name: 'Hold to talk' });
  push(fake, { type: 'session.established' });
  return { user, talk, bar: within(screen.getByRole('group', { name: 'Voice call' })) };
}

describe('an AgentCall agent reached by a call (WebRTC card)', () => {
  it('offers Call instead of a session; connected, Hold to talk opens a turn and the microphone stops before the commit', async () => {
    const { fake, order } = backend();
    const { talk, bar } = await connected(fake);
    expect(bar.getByText('Listening')).toBeTruthy();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Start a voice call with / })).toBeNull();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: /Take a photo…/ }).disabled).toBe(false);
    fireEvent.pointerDown(talk);
    await waitFor(() => expect(media.tracks.at(-1)?.enabled).toBe(true));
    expect(bar.getByText('Listening: you are speaking')).toBeTruthy();
    fireEvent.pointerUp(talk);
    await waitFor(() => expect(order).toEqual(['start (microphone off)', 'commit (microphone off)']));
    expect(media.tracks.at(-1)?.enabled).toBe(false);
  });

  it('shows the user’s spoken turns in the conversation: heard while the button is held, then how long they spoke; a dropped turn goes', async () => {
    const { fake } = backend();
    await connected(fake);
    push(fake, { type: 'user.speech', id: 'audio-1', turn: 1, state: 'hearing' });
    expect(transcript().getByText('Listening…')).toBeTruthy();
    push(fake, { type: 'user.speech', id: 'audio-1', turn: 1, state: 'final', durationMs: 3_200 });
    expect(transcript().getByText('Spoken · 3 s')).toBeTruthy();
    expect(transcript().getByText('You spoke.')).toBeTruthy();
    push(fake, { type: 'user.speech', id: 'audio-2', turn: 2, state: 'hearing' }, { type: 'user.speech', id: 'audio-2', turn: 2, state: 'dropped' });
    expect(transcript().getAllByText('You spoke.')).toHaveLength(1);
    expect(transcript().queryByText('Listening…')).toBeNull();
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
    fake.handle('agentcall.audioTurn', () =>
      fail('rejected', 'The agent did not stop answering within 5 s of being asked to, so it did not hear you. Try again.'),
    );
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

  it('Hang up ends the session, said once; Start a new session offers Call again', async () => {
    const { fake } = backend();
    const { user, bar } = await connected(fake);
    await user.click(bar.getByRole('button', { name: 'Hang up' }));
    await waitFor(() => expect(fake.callsOf('agentcall.end')).toEqual([{ sessionKey: 'call-1' }]));
    push(fake, { type: 'ended', reason: { kind: 'client_end', message: '' } });
    const restart = await screen.findByRole('button', { name: 'Start a new session' });
    expect(screen.getAllByText('The session has ended.').filter((element) => !element.closest('.visually-hidden'))).toHaveLength(1);
    expect(screen.queryByRole('group', { name: 'Voice call' })).toBeNull();
    await user.click(restart);
    await screen.findByRole('button', { name: /^Start a voice call with / });
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
