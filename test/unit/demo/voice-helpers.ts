import * as ndc from 'node-datachannel';
import { afterAll } from 'vitest';
import { gatheredDescription } from '../../../src/main/demo/voice/realtime-provider';
import { speechInstallCommand, type SpeechEngines } from '../../../src/main/demo/voice/speech-engines';

/** Speech engines as the tests want them, whatever this computer has installed. */
export const speechAvailable: SpeechEngines = { available: true, missing: [], installCommand: speechInstallCommand, found: {} };
export const speechMissing: SpeechEngines = { available: false, missing: ['pocketsphinx', 'pocketsphinx-en-us'], installCommand: speechInstallCommand, found: { tts: '/usr/bin/espeak-ng' } };

export interface AppPeer {
  pc: ndc.PeerConnection;
  channel: ndc.DataChannel;
  offer: string;
  /** Text messages received on `oai-events`, in order. */
  messages: string[];
  opened: Promise<void>;
}

/**
 * The app's side of a call, as the renderer makes it: an offerer with one sendrecv Opus track and the
 * `oai-events` data channel (strong refs kept, voice brief §5a). Closed, and node-datachannel cleaned
 * up, after the file's tests.
 */
export function useAppPeers(): () => Promise<AppPeer> {
  const peers: ndc.PeerConnection[] = [];
  const keep: unknown[] = [];
  afterAll(() => {
    for (const pc of peers) pc.close();
    ndc.cleanup();
  });
  return async () => {
    const pc = new ndc.PeerConnection('app', { iceServers: [], bindAddress: '127.0.0.1' });
    peers.push(pc);
    const audio = new ndc.Audio('0', 'SendRecv');
    audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
    audio.addSSRC(4242, 'app', 'app-stream', 'app-audio');
    const track = pc.addTrack(audio);
    const channel = pc.createDataChannel('oai-events');
    keep.push(track, channel);
    const messages: string[] = [];
    channel.onMessage((message) => {
      if (typeof message === 'string') messages.push(message);
    });
    const opened = new Promise<void>((resolve) => channel.onOpen(resolve));
    const offer = await gatheredDescription(pc, () => pc.setLocalDescription());
    return { pc, channel, offer, messages, opened };
  };
}

/** POSTs an SDP offer to the demo's signalling URL with a client secret, as the app's main process does. */
export function postOffer(url: string, secret: string, offer: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/sdp' }, body: offer });
}
