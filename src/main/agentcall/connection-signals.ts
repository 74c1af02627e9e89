import { maxFrameBytes, type ClientMessage } from '../../shared/agentcall/protocol';
import { Listeners } from '../../shared/base/listeners';
import { TransportError, type TransportClose } from './connection';

/**
 * What every AgentCall connection does with its listeners, whatever carries its frames (a WebSocket,
 * the call's data channel): frames go to `onFrame` listeners until the connection ends; it ends once,
 * every `onClose` listener hears how (one that subscribes later hears it too), then all are dropped.
 */
export class ConnectionSignals {
  private readonly frames = new Listeners<[string]>();
  private readonly closes = new Listeners<[TransportClose]>();
  private ended: TransportClose | undefined;

  /** How the connection ended, once it has. */
  get closed(): TransportClose | undefined {
    return this.ended;
  }

  onFrame(listener: (frame: string) => void): () => void {
    return this.frames.subscribe(listener);
  }

  onClose(listener: (close: TransportClose) => void): () => void {
    const ended = this.ended;
    if (ended) {
      queueMicrotask(() => listener(ended));
      return () => undefined;
    }
    return this.closes.subscribe(listener);
  }

  frame(text: string): void {
    if (!this.ended) this.frames.emit(text);
  }

  /**
   * Ends the connection once (false when it had ended): `closed` says so at once, then `beforeTelling`
   * runs (a close that reports back in here finds it ended), then the listeners hear it.
   */
  end(close: TransportClose, beforeTelling?: () => void): boolean {
    if (this.ended) return false;
    this.ended = close;
    beforeTelling?.();
    this.closes.emit(close);
    this.closes.clear();
    this.frames.clear();
    return true;
  }
}

const encoder = new TextEncoder();

/** A client message as the text frame it goes out as, or `send_too_large` beyond the frame limit. */
export function outgoingFrame(message: ClientMessage): string {
  const text = JSON.stringify(message);
  if (encoder.encode(text).byteLength > maxFrameBytes)
    throw new TransportError('send_too_large', `The message is larger than ${maxFrameBytes / 1024} KiB and was not sent.`);
  return text;
}
