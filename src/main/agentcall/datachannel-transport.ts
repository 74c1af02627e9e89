import { maxFrameBytes, type ClientMessage } from '../../shared/agentcall/protocol';
import { checkEventsChannel } from '../../shared/agentcall/webrtc-profile';
import type { Logger } from '../platform/logger';
import { ConnectionSignals, outgoingFrame } from './connection-signals';
import { TransportError, type AgentCallConnection, type TransportClose } from './connection';

/**
 * The AgentCall session over the `agentcall-webrtc-0.1` data channel (`agentcall.events`): the same engine and rules as the
 * WebSocket. The page owns the peer connection and relays the channel unparsed; main judges every frame (at most 128 KiB,
 * counted before parsing, text only) and builds every message. No resume: a closed channel reports 1000, a failed one 1006.
 * Decision: docs/architecture.md#agentcall-data-channel-owned-by-the-page-judged-by-main
 */

/** One end of the events channel, as main sees it. */
export interface ChannelPort {
  /** Puts one text message on the channel; throws when it cannot. */
  sendText(text: string): void;
  /** Closes the channel (and whatever the owner ties to it). */
  close(): void;
}

/** What the owner of the channel reports. */
export interface ChannelSink {
  /** One message as it arrived: a string for a text message, bytes for a binary one. */
  message(data: string | Uint8Array): void;
  /** A message the relay did not pass on: binary, or text too large to carry (both end the session). */
  refused(kind: 'binary' | 'too_large'): void;
  /**
   * The channel closed (`clean`: the agent closed it, reported as 1000), or it failed or the peer
   * connection failed or disconnected (1006).
   */
  closed(why: string, clean?: boolean): void;
}

const textEncoder = new TextEncoder();

export class DataChannelConnection implements AgentCallConnection {
  private readonly signals = new ConnectionSignals();
  /** The sink the channel's owner reports to. */
  readonly sink: ChannelSink;

  constructor(
    private readonly port: ChannelPort,
    private readonly log: Logger,
  ) {
    this.sink = {
      message: (data) => this.receive(data),
      refused: (kind) => this.receive(kind === 'binary' ? new Uint8Array(0) : 'x'.repeat(maxFrameBytes + 1)),
      closed: (why, clean) =>
        this.finish(
          clean
            ? { code: 1000, reason: '' }
            : { code: 1006, reason: '', error: new TransportError('connect_failed', `The call's data channel closed (${why.slice(0, 120)}).`) },
        ),
    };
  }

  get isOpen(): boolean {
    return this.signals.closed === undefined;
  }

  send(message: ClientMessage): void {
    if (this.signals.closed) throw new TransportError('connect_failed', 'The session is closed.');
    const text = outgoingFrame(message);
    try {
      this.port.sendText(text);
    } catch (error) {
      throw new TransportError('connect_failed', `The message could not be put on the data channel (${(error as Error).message.slice(0, 120)}).`);
    }
  }

  close(code = 1000, reason = ''): void {
    this.finish({ code, reason: reason.slice(0, 123) });
  }

  onFrame(listener: (frame: string) => void): () => void {
    return this.signals.onFrame(listener);
  }

  onClose(listener: (close: TransportClose) => void): () => void {
    return this.signals.onClose(listener);
  }

  private receive(data: string | Uint8Array): void {
    if (this.signals.closed) return;
    if (typeof data !== 'string') {
      this.finish({
        code: 1003,
        reason: 'binary frames are not accepted',
        error: new TransportError('binary_frame', 'The agent sent a binary message; AgentCall sessions carry JSON text only.'),
      });
      return;
    }
    // Counted before anything is parsed: UTF-16 length first (cheap), the UTF-8 bytes only when it cannot decide.
    if (data.length > maxFrameBytes || (data.length * 3 > maxFrameBytes && textEncoder.encode(data).byteLength > maxFrameBytes)) {
      this.finish({
        code: 1009,
        reason: 'frame too large',
        error: new TransportError('frame_too_large', `The agent sent a frame larger than ${maxFrameBytes / 1024} KiB; the session was closed.`),
      });
      return;
    }
    this.signals.frame(data);
  }

  private finish(close: TransportClose): void {
    this.signals.end(close, () => {
      if (close.error) this.log.warn('agentcall', `closing the call's data channel: ${close.error.code}`);
      try {
        this.port.close();
      } catch {
        // already closed
      }
    });
  }
}

/** The parts of a node-datachannel DataChannel this transport uses (structural, so main needs no import of it). */
export interface NodeDataChannelLike {
  getLabel(): string;
  getProtocol(): string;
  isOpen(): boolean;
  sendMessage(text: string): boolean;
  close(): void;
  onMessage(cb: (message: string | Buffer | ArrayBuffer) => void): void;
  onClosed(cb: () => void): void;
  onError(cb: (error: string) => void): void;
}

export interface NodePeerLike {
  onStateChange(cb: (state: string) => void): void;
}

/**
 * A node-datachannel channel (already open) as this transport's port, for `agentdesk conformance`, the
 * CLI and tests. Refuses a channel without the profile's label and subprotocol. The peer's
 * `disconnected`, `failed` and `closed` states end the connection (ICE trouble is not a resume).
 * node-datachannel rule: nothing is thrown inside its callbacks.
 */
export function connectNodeDataChannel(channel: NodeDataChannelLike, peer: NodePeerLike | undefined, log: Logger): DataChannelConnection {
  const wrong = checkEventsChannel({ label: channel.getLabel(), protocol: channel.getProtocol() });
  if (wrong) throw new TransportError('connect_failed', wrong);
  const connection = new DataChannelConnection(
    {
      sendText(text) {
        if (!channel.isOpen() || !channel.sendMessage(text)) throw new Error('the channel is not open');
      },
      close() {
        channel.close();
      },
    },
    log,
  );
  const safely = (step: () => void) => {
    try {
      step();
    } catch (error) {
      log.error('agentcall', 'a data channel event failed', error);
    }
  };
  channel.onMessage((message) =>
    safely(() => connection.sink.message(typeof message === 'string' ? message : new Uint8Array(Buffer.isBuffer(message) ? message : Buffer.from(message)))),
  );
  channel.onClosed(() => safely(() => connection.sink.closed('closed', true)));
  channel.onError((error) => safely(() => connection.sink.closed(`error: ${error}`)));
  peer?.onStateChange((state) => {
    if (state === 'disconnected' || state === 'failed' || state === 'closed') safely(() => connection.sink.closed(`the peer connection is ${state}`));
  });
  if (!channel.isOpen()) queueMicrotask(() => connection.sink.closed('not open'));
  return connection;
}
