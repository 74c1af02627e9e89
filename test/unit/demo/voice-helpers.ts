import * as ndc from 'node-datachannel';
import { afterAll } from 'vitest';
import { within, withoutCandidates } from '../../../src/main/cli/voice-peer';
import { keepUntilExit } from '../../../src/main/platform/keep-until-exit';
import { gatheredDescription } from '../../../src/main/demo/voice/realtime-provider';
import { speechInstallCommand, type SpeechEngines } from '../../../src/main/speech/speech-engines';

/** Speech engines as the tests want them, whatever this computer has installed. */
export const speechAvailable: SpeechEngines = { available: true, missing: [], installCommand: speechInstallCommand, found: {} };
export const speechMissing: SpeechEngines = {
  available: false,
  missing: ['pocketsphinx', 'pocketsphinx-en-us'],
  installCommand: speechInstallCommand,
  found: { tts: '/usr/bin/espeak-ng' },
};

export interface AppPeer {
  pc: ndc.PeerConnection;
  channel: ndc.DataChannel;
  offer: string;
  /** Text messages received on `oai-events`, in order. */
  messages: string[];
  /** Applies the SDP answer and waits (at most `ms`) for `oai-events` to open. */
  connect(answer: string, ms?: number): Promise<void>;
}

/**
 * The app's side of a call in tests: an offerer with one sendrecv Opus track and the `oai-events` data
 * channel, kept referenced until the process ends (a collected one stops receiving). Its offer leaves out host
 * candidates, as `agentdesk conformance` offers (src/main/cli/voice-peer.ts): the answerer then cannot
 * start the handshake before this side has the answer.
 */
export async function appOfferer(): Promise<{ pc: ndc.PeerConnection; track: ndc.Track; channel: ndc.DataChannel; offer: string }> {
  const pc = new ndc.PeerConnection('app', { iceServers: [], bindAddress: '127.0.0.1' });
  const audio = new ndc.Audio('0', 'SendRecv');
  audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
  audio.addSSRC(4242, 'app', 'app-stream', 'app-audio');
  const track = pc.addTrack(audio);
  const channel = pc.createDataChannel('oai-events');
  keepUntilExit(pc, track, channel);
  const offer = withoutCandidates(await gatheredDescription(pc, () => pc.setLocalDescription()));
  return { pc, track, channel, offer };
}

/**
 * The app's side of a call, as the renderer makes it: an offerer with one sendrecv Opus track and the
 * `oai-events` data channel (strong refs kept), closed after the file's tests.
 *
 * No `ndc.cleanup()` here: the demo server closes its provider after each test, and the provider then
 * drops its peers, tracks and channels; once the garbage collector has finalized those wrappers,
 * `ndc.cleanup()` dies with SIGSEGV (reproduced: gc() between the provider's close() and cleanup()).
 * Without it the test process ends normally.
 */
export function useAppPeers(): () => Promise<AppPeer> {
  const peers: ndc.PeerConnection[] = [];
  afterAll(() => {
    for (const pc of peers) pc.close();
  });
  return async () => {
    const { pc, channel, offer } = await appOfferer();
    peers.push(pc);
    const messages: string[] = [];
    channel.onMessage((message) => {
      if (typeof message === 'string') messages.push(message);
    });
    const opened = new Promise<void>((resolve) => channel.onOpen(resolve));
    const connect = async (answer: string, ms = 8000): Promise<void> => {
      pc.setRemoteDescription(answer, 'answer');
      await within(opened, ms, `oai-events did not open within ${ms} ms`);
    };
    return { pc, channel, offer, messages, connect };
  };
}

/**
 * Two node-datachannel peers in one busy process: libdatachannel now and then refuses a well-formed
 * answer with "Got a remote candidate without ICE transport" (a race in the library, reproduced with
 * bare peers and no AgentDesk code; realtime-provider.test.ts meets it too), or the channel never
 * opens. The app's real offerer is Chromium, so only this stand-in retries, with a new peer and a new
 * voice session (the first one's secret is spent). Any other error, or a third such failure, fails.
 */
export async function retryPeerRace<T>(attempt: (tryNumber: number) => Promise<T>, tries = 3): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const race = error instanceof Error && /without ICE transport|did not open within/.test(error.message);
      if (!race || n >= tries) throw error;
      console.warn(`node-datachannel peer race on try ${n} (${error.message}); trying again with a new peer and session`);
    }
  }
}

/** POSTs an SDP offer to the demo's signalling URL with a client secret, as the app's main process does. */
export function postOffer(url: string, secret: string, offer: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/sdp' }, body: offer });
}
