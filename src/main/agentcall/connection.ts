import type { ClientMessage } from '../../shared/agentcall/protocol';
import type { NetError } from '../net/net-error';

/** What an AgentCall session holds of its transport (a WebSocket, or a WebRTC data channel), and how one ends. */

export type TransportErrorCode =
  'connect_failed' | 'sign_in_required' | 'not_allowed' | 'server_error' | 'frame_too_large' | 'binary_frame' | 'not_responding' | 'send_too_large';

export class TransportError extends Error {
  constructor(
    readonly code: TransportErrorCode | NetError['code'],
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface TransportClose {
  /** The WebSocket close code (1006 when the connection dropped without a close frame). */
  code: number;
  /** The agent's close reason, at most 123 bytes by the protocol; shown as data, never as markup. */
  reason: string;
  /** Set when this side ended the connection because of a rule (frame too large, binary, no pong). */
  error?: TransportError;
}

export interface AgentCallConnection {
  /** Sends one client message as a JSON text frame. Throws TransportError `send_too_large` above 128 KiB. */
  send(message: ClientMessage): void;
  /** Closes with a normal close frame (1000) unless another code is given. */
  close(code?: number, reason?: string): void;
  onFrame(listener: (frame: string) => void): () => void;
  /** Called once, when the connection is gone for any reason. */
  onClose(listener: (close: TransportClose) => void): () => void;
  readonly isOpen: boolean;
}
