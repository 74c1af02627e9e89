import { vi } from 'vitest';

/**
 * WebRTC and the microphone for jsdom (which has neither): a fake RTCPeerConnection that records
 * what the page set up (transceivers, data channels, descriptions), a data channel the test opens and
 * speaks into as the provider, and getUserMedia that hands out fake audio tracks. `install()` puts
 * them on the globals for one test; `uninstallFakeWebRtc()`, `vi.unstubAllGlobals()` (chat-helpers does
 * it) and `vi.restoreAllMocks()` take them away.
 */

export class FakeTrack {
  readonly kind = 'audio';
  enabled = true;
  readyState: 'live' | 'ended' = 'live';
  constructor(readonly deviceId: string) {}
  stop(): void {
    this.readyState = 'ended';
  }
  getSettings() {
    return { deviceId: this.deviceId };
  }
}

export class FakeStream {
  constructor(private readonly tracks: FakeTrack[]) {}
  getTracks() {
    return [...this.tracks];
  }
  getAudioTracks() {
    return [...this.tracks];
  }
  getVideoTracks() {
    return [];
  }
}

export class FakeDataChannel extends EventTarget {
  readyState: 'connecting' | 'open' | 'closing' | 'closed' = 'connecting';
  /** What the page sent, parsed. */
  readonly sent: Record<string, unknown>[] = [];
  readonly protocol: string;
  readonly ordered: boolean;
  constructor(
    readonly label: string,
    options: RTCDataChannelInit = {},
  ) {
    super();
    this.protocol = options.protocol ?? '';
    this.ordered = options.ordered ?? true;
  }
  send(text: string): void {
    if (this.readyState !== 'open') throw new Error('InvalidStateError: the data channel is not open');
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.dispatchEvent(new Event('close'));
  }
  /** The provider's side: the channel opens. */
  open(): void {
    this.readyState = 'open';
    this.dispatchEvent(new Event('open'));
  }
  /** The agent's side: one raw message (text as it is, or bytes). */
  receiveRaw(data: string | ArrayBuffer): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  /** The provider's side: one event on the channel. */
  receive(json: Record<string, unknown>): void {
    this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(json) }));
  }
}

interface FakeSender {
  track: FakeTrack;
  replaceTrack(track: FakeTrack): Promise<void>;
}

export class FakePeerConnection extends EventTarget {
  static instances: FakePeerConnection[] = [];
  readonly transceivers: { sender: FakeSender; direction: string; streams: unknown[] }[] = [];
  readonly channels: FakeDataChannel[] = [];
  localDescription: { type: string; sdp: string } | null = null;
  remoteDescription: { type: string; sdp: string } | null = null;
  iceGatheringState: 'new' | 'gathering' | 'complete' = 'new';
  connectionState = 'new';
  closed = false;
  constructor(readonly config: RTCConfiguration | undefined) {
    super();
    FakePeerConnection.instances.push(this);
  }
  addTransceiver(track: FakeTrack, init: { direction: string; streams?: unknown[] }) {
    const sender: FakeSender = {
      track,
      replaceTrack: async (next) => {
        sender.track = next;
      },
    };
    const transceiver = { sender, direction: init.direction, streams: init.streams ?? [] };
    this.transceivers.push(transceiver);
    return transceiver;
  }
  createDataChannel(label: string, options?: RTCDataChannelInit) {
    const channel = new FakeDataChannel(label, options);
    this.channels.push(channel);
    return channel;
  }
  async createOffer() {
    return { type: 'offer', sdp: 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=fake offer\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n' };
  }
  async setLocalDescription(description: { type: string; sdp: string }) {
    this.localDescription = description;
    this.iceGatheringState = 'gathering';
    // Gathering ends a moment later, as in a browser (the page waits for it).
    setTimeout(() => {
      this.iceGatheringState = 'complete';
      this.dispatchEvent(new Event('icegatheringstatechange'));
    }, 5);
  }
  async setRemoteDescription(description: { type: string; sdp: string }) {
    this.remoteDescription = description;
  }
  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }
  /** The network's side: the connection state changes (ICE trouble). */
  changeState(state: string): void {
    this.connectionState = state;
    this.dispatchEvent(new Event('connectionstatechange'));
  }
}

export interface FakeMedia {
  /** Every getUserMedia request, in order. */
  requests: MediaStreamConstraints[];
  /** Every track handed out, in order. */
  tracks: FakeTrack[];
  peers: FakePeerConnection[];
  /** The newest peer connection and its data channel. */
  peer(): FakePeerConnection;
  channel(): FakeDataChannel;
  /** The next getUserMedia fails with this DOMException name. */
  failNext(name: string): void;
}

/** Takes navigator.mediaDevices away again (the rest are vitest stubs and spies). */
export function uninstallFakeWebRtc(): void {
  Reflect.deleteProperty(window.navigator, 'mediaDevices');
}

export function installFakeWebRtc(
  devices: { deviceId: string; label: string }[] = [
    { deviceId: 'mic-1', label: 'Built-in microphone' },
    { deviceId: 'mic-2', label: 'USB headset' },
  ],
): FakeMedia {
  FakePeerConnection.instances = [];
  const requests: MediaStreamConstraints[] = [];
  const tracks: FakeTrack[] = [];
  let failure: string | undefined;
  const mediaDevices = {
    getUserMedia: vi.fn(async (constraints: MediaStreamConstraints) => {
      requests.push(constraints);
      if (failure !== undefined) {
        const name = failure;
        failure = undefined;
        throw new DOMException('refused', name);
      }
      const wanted = (constraints.audio as { deviceId?: { exact?: string } } | undefined)?.deviceId?.exact;
      const track = new FakeTrack(wanted ?? devices[0]?.deviceId ?? 'default');
      tracks.push(track);
      return new FakeStream([track]);
    }),
    enumerateDevices: vi.fn(async () => devices.map((device) => ({ ...device, kind: 'audioinput', groupId: 'g' }))),
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  };
  Object.defineProperty(window.navigator, 'mediaDevices', { configurable: true, value: mediaDevices });
  vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
  vi.stubGlobal('MediaStream', FakeStream);
  // jsdom does not play media: the page's play() and pause() just succeed.
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
  vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(() => undefined);
  return {
    requests,
    tracks,
    peers: FakePeerConnection.instances,
    peer: () => {
      const peer = FakePeerConnection.instances.at(-1);
      if (!peer) throw new Error('no RTCPeerConnection yet');
      return peer;
    },
    channel: () => {
      const channel = FakePeerConnection.instances.at(-1)?.channels.at(-1);
      if (!channel) throw new Error('no data channel yet');
      return channel;
    },
    failNext: (name) => void (failure = name),
  };
}
