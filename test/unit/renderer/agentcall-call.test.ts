import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, type IpcError } from '../../../src/shared/base/errors';
import { AgentCallCall, type CallProblem } from '../../../src/renderer/conversation/protocols/agentcall/agentcall-call';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc, type FakeMedia } from './fake-webrtc';

/**
 * The renderer's side of an agentcall-webrtc-0.1 call against a fake main: the peer connection it
 * builds (one sendrecv microphone track, the agentcall.events channel with its subprotocol), the relay
 * (every channel message to main unparsed, only main's text onto the channel), push to talk (the
 * microphone stops before commit or cancel) and the end of the call when the connection fails.
 */

const answerSdp = 'v=0\r\no=- 2 2 IN IP4 127.0.0.1\r\ns=fake answer\r\n';
let media: FakeMedia;
beforeEach(() => {
  media = installFakeWebRtc();
});
afterEach(() => {
  uninstallFakeWebRtc();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function backend(explicitTurns = true): FakeBackend {
  const fake = createFakeBackend();
  fake.handle('agentcall.callOffer', () => ok({ callKey: 'call-1', sdp: answerSdp, explicitTurns }));
  fake.handle('agentcall.callOpened', () => ok({ sessionKey: 'call-1', agent: fake.state.agentCall, updates: [] }));
  fake.handle('agentcall.callMessage', () => ok({ taken: true }));
  fake.handle('agentcall.callClosed', () => ok({ ended: true }));
  let turn = 0;
  fake.handle('agentcall.audioTurn', ({ action }) => ok({ turn: action === 'start' ? ++turn : turn }));
  return fake;
}

async function started(fake: FakeBackend) {
  const events = { opened: 0, ended: [] as (CallProblem | undefined)[], refused: [] as IpcError[] };
  const callControl = new AgentCallCall(fake.api, 'builtin-demo-agentcall', {
    opened: () => void events.opened++,
    ended: (problem) => void events.ended.push(problem),
    turnRefused: (error) => void events.refused.push(error),
  });
  const starting = callControl.start();
  await vi.waitFor(() => expect(media.peers.at(-1)?.remoteDescription).toBeTruthy());
  media.channel().open();
  await starting;
  return { callControl, events };
}

describe('an AgentCall call from the renderer', () => {
  it('offers one sendrecv microphone track and the agentcall.events channel, and opens the session once the channel is open', async () => {
    const fake = backend();
    const { events } = await started(fake);
    const peer = media.peer();
    expect(peer.config).toEqual({ iceServers: [] });
    expect(peer.transceivers.map((transceiver) => transceiver.direction)).toEqual(['sendrecv']);
    expect(peer.channels.map((channel) => [channel.label, channel.protocol, channel.ordered])).toEqual([['agentcall.events', 'agentcall-agui-dc-0.1', true]]);
    expect(fake.callsOf('agentcall.callOffer')).toEqual([{ agentId: 'builtin-demo-agentcall', sdp: expect.stringContaining('v=0') }]);
    expect(peer.remoteDescription).toEqual({ type: 'answer', sdp: answerSdp });
    expect(fake.callsOf('agentcall.callOpened')).toEqual([{ callKey: 'call-1' }]);
    expect(events.opened).toBe(1);
    expect(media.requests[0]?.audio).toMatchObject({ echoCancellation: true });
    // Push to talk: the microphone is closed until the button is held.
    expect(media.tracks[0]!.enabled).toBe(false);
  });

  it("relays every channel message to main unparsed and puts only main's text on the channel", async () => {
    const fake = backend();
    await started(fake);
    const channel = media.channel();
    channel.receiveRaw('{"sequence":1,"event":{"type":"session.established","resumed":false}}');
    channel.receiveRaw('not json at all');
    channel.receiveRaw(new ArrayBuffer(4));
    channel.receiveRaw('x'.repeat(256 * 1024 + 1));
    await vi.waitFor(() => expect(fake.callsOf('agentcall.callMessage')).toHaveLength(4));
    expect(fake.callsOf('agentcall.callMessage')).toEqual([
      { callKey: 'call-1', text: '{"sequence":1,"event":{"type":"session.established","resumed":false}}' },
      { callKey: 'call-1', text: 'not json at all' },
      { callKey: 'call-1', refused: 'binary' },
      { callKey: 'call-1', refused: 'too_large' },
    ]);
    fake.emit('agentcall.channelSend', { callKey: 'call-1', text: '{"type":"ack","sequence":1}' });
    fake.emit('agentcall.channelSend', { callKey: 'other-call', text: '{"type":"ack","sequence":9}' });
    expect(channel.sent).toEqual([{ type: 'ack', sequence: 1 }]);
  });

  it('holds to talk: the turn opens, then the microphone; on release the microphone stops before the commit; Esc cancels', async () => {
    const fake = backend();
    const { callControl } = await started(fake);
    const track = media.tracks[0]!;
    const order: string[] = [];
    fake.handle('agentcall.audioTurn', ({ action, microphoneStopped }) => {
      order.push(`${action} (microphone ${track.enabled ? 'on' : 'off'}, says stopped: ${String(microphoneStopped)})`);
      return ok({ turn: 1 });
    });
    callControl.pressTalk();
    await vi.waitFor(() => expect(track.enabled).toBe(true));
    await callControl.releaseTalk();
    expect(track.enabled).toBe(false);
    callControl.pressTalk();
    await vi.waitFor(() => expect(track.enabled).toBe(true));
    await callControl.cancelTalk();
    expect(order).toEqual([
      'start (microphone off, says stopped: true)',
      'commit (microphone off, says stopped: true)',
      'start (microphone off, says stopped: true)',
      'cancel (microphone off, says stopped: true)',
    ]);
  });

  it('says so when main opens no turn (the agent did not stop answering): the microphone stays closed and releasing sends nothing', async () => {
    const fake = backend();
    const { callControl, events } = await started(fake);
    const track = media.tracks[0]!;
    let refuse = true;
    fake.handle('agentcall.audioTurn', ({ action }) =>
      refuse && action === 'start'
        ? fail('rejected', 'The agent did not stop answering within 5 s of being asked to, so it did not hear you. Try again.')
        : ok({ turn: 1 }),
    );
    callControl.pressTalk();
    await vi.waitFor(() => expect(events.refused).toHaveLength(1));
    expect(events.refused[0]).toMatchObject({ code: 'rejected', message: expect.stringMatching(/did not stop answering/) });
    expect(callControl.isTalking).toBe(false);
    expect(track.enabled).toBe(false);
    await callControl.releaseTalk();
    expect(fake.callsOf('agentcall.audioTurn').map((request) => request.action)).toEqual(['start']);
    // The next press is a new try.
    refuse = false;
    callControl.pressTalk();
    await vi.waitFor(() => expect(track.enabled).toBe(true));
    await callControl.releaseTalk();
    expect(fake.callsOf('agentcall.audioTurn').map((request) => request.action)).toEqual(['start', 'start', 'commit']);
    expect(events.refused).toHaveLength(1);
  });

  it('hanging up closes the channel first (what it holds goes out) and the connection once it has; a channel that never closes is given a second', async () => {
    for (const confirmed of [true, false]) {
      media = installFakeWebRtc();
      const fake = backend();
      const { callControl } = await started(fake);
      const channel = media.channel();
      const peer = media.peer();
      let closeAsked = 0;
      // A real channel is 'closing' until the peer confirms its stream reset.
      channel.close = () => {
        closeAsked += 1;
        channel.readyState = 'closing';
      };
      await callControl.hangUp();
      expect(closeAsked).toBe(1);
      expect(peer.closed).toBe(false);
      if (confirmed) {
        channel.readyState = 'closed';
        channel.dispatchEvent(new Event('close'));
        expect(peer.closed).toBe(true);
      } else {
        await vi.waitFor(() => expect(peer.closed).toBe(true), { timeout: 5_000 });
      }
    }
  });

  it('keeps the microphone open without explicit turns, and never sends audio turns', async () => {
    const fake = backend(false);
    const { callControl } = await started(fake);
    expect(media.tracks[0]!.enabled).toBe(true);
    callControl.pressTalk();
    await callControl.releaseTalk();
    expect(fake.callsOf('agentcall.audioTurn')).toEqual([]);
  });

  it('ends the call when the connection fails (no resume), telling main, and stops the microphone', async () => {
    const fake = backend();
    const { events } = await started(fake);
    media.peer().changeState('failed');
    await vi.waitFor(() => expect(fake.callsOf('agentcall.callClosed')).toEqual([{ callKey: 'call-1', why: 'the connection failed', clean: false }]));
    expect(events.ended).toEqual([undefined]);
    expect(media.tracks[0]!.readyState).toBe('ended');
    expect(media.peer().closed).toBe(true);
  });

  it('ends the call when main closes it, and says why when main refuses the offer', async () => {
    const fake = backend();
    const { events } = await started(fake);
    fake.emit('agentcall.channelClose', { callKey: 'call-1' });
    expect(events.ended).toEqual([undefined]);
    expect(media.channel().readyState).toBe('closed');

    const refusing = backend();
    refusing.failNext('agentcall.callOffer', { code: 'protocol_error', message: 'The agent answered with a redirect.' });
    const ended: (CallProblem | undefined)[] = [];
    await new AgentCallCall(refusing.api, 'builtin-demo-agentcall', { opened: () => undefined, ended: (problem) => void ended.push(problem) }).start();
    expect(ended).toEqual([{ kind: 'refused', error: { code: 'protocol_error', message: 'The agent answered with a redirect.' } }]);
  });

  it('hung up while main is POSTing the offer: once the answer comes, main is told to drop the pending call and nothing stays subscribed', async () => {
    const fake = backend();
    const release = fake.holdNext('agentcall.callOffer');
    const events = { opened: 0, ended: [] as (CallProblem | undefined)[] };
    const callControl = new AgentCallCall(fake.api, 'builtin-demo-agentcall', {
      opened: () => void events.opened++,
      ended: (problem) => void events.ended.push(problem),
    });
    const starting = callControl.start();
    await vi.waitFor(() => expect(fake.callsOf('agentcall.callOffer')).toHaveLength(1));
    await callControl.hangUp();
    expect(events.ended).toEqual([undefined]);
    expect(media.peer().closed).toBe(true);
    release();
    await starting;
    expect(fake.callsOf('agentcall.callClosed')).toEqual([{ callKey: 'call-1', why: 'hung up while connecting', clean: true }]);
    expect(fake.listenerCount('agentcall.channelSend')).toBe(0);
    expect(fake.listenerCount('agentcall.channelClose')).toBe(0);
    expect(media.peer().remoteDescription).toBeFalsy();
    expect(fake.callsOf('agentcall.callOpened')).toEqual([]);
    expect(events).toEqual({ opened: 0, ended: [undefined] });
  });

  it('hung up after the answer, before the channel opened: main drops the pending call at once and the start settles', async () => {
    const fake = backend();
    const events = { opened: 0, ended: [] as (CallProblem | undefined)[] };
    const callControl = new AgentCallCall(fake.api, 'builtin-demo-agentcall', {
      opened: () => void events.opened++,
      ended: (problem) => void events.ended.push(problem),
    });
    const starting = callControl.start();
    await vi.waitFor(() => expect(media.peers.at(-1)?.remoteDescription).toBeTruthy());
    await callControl.hangUp();
    await starting;
    expect(fake.callsOf('agentcall.callClosed')).toEqual([{ callKey: 'call-1', why: 'hung up while connecting', clean: true }]);
    expect(fake.callsOf('agentcall.callOpened')).toEqual([]);
    expect(fake.listenerCount('agentcall.channelSend')).toBe(0);
    expect(fake.listenerCount('agentcall.channelClose')).toBe(0);
    expect(events).toEqual({ opened: 0, ended: [undefined] });
  });

  it('hung up while main starts the session: the session that started anyway is ended, and opened is never reported', async () => {
    const fake = backend();
    fake.handle('agentcall.end', () => ok({ ended: true }));
    const release = fake.holdNext('agentcall.callOpened');
    const events = { opened: 0, ended: [] as (CallProblem | undefined)[] };
    const callControl = new AgentCallCall(fake.api, 'builtin-demo-agentcall', {
      opened: () => void events.opened++,
      ended: (problem) => void events.ended.push(problem),
    });
    const starting = callControl.start();
    await vi.waitFor(() => expect(media.peers.at(-1)?.remoteDescription).toBeTruthy());
    media.channel().open();
    await vi.waitFor(() => expect(fake.callsOf('agentcall.callOpened')).toHaveLength(1));
    await callControl.hangUp();
    release();
    await starting;
    expect(fake.callsOf('agentcall.end')).toEqual([{ sessionKey: 'call-1' }]);
    expect(events).toEqual({ opened: 0, ended: [undefined] });
  });
});
