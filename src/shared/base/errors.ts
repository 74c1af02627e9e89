/**
 * Every failure that crosses the IPC boundary is one of these codes plus a human message.
 * Codes are stable (tests, CLI `--json`, and the renderer's string catalogue key on them);
 * messages are for people and may change.
 */
export const ipcErrorCodes = [
  /** The payload did not match the contract's request schema; the service was not called. */
  'invalid_request',
  /** The caller is not the app's own page. */
  'forbidden_sender',
  /** The call named a channel the contract does not declare; nothing ran. */
  'unknown_channel',
  /** The service failed unexpectedly; details are in main's log, never in the message. */
  'internal',
  /** The service answered with something the contract does not allow (a bug in main). */
  'invalid_response',
  /** An address the user typed cannot be used. */
  'invalid_address',
  /** http:// was used without the development setting. */
  'insecure_scheme',
  /** The thing already exists (for example the same agent added twice). */
  'already_exists',
  /** The thing asked for does not exist. */
  'not_found',
  /** A list is full (for example the most agents AgentDesk keeps): remove something first; the message says which limit. */
  'limit_reached',
  /** Only https: links may be opened in the browser. */
  'unsafe_url',
  /** A link may only be opened right after the user clicked or pressed a key. */
  'no_user_gesture',
  /** No system browser could be started. */
  'no_browser',
  /** The connection between the page and the web shell was lost. */
  'disconnected',
  /** The agent needs the user to sign in (again). */
  'sign_in_required',
  /** A setting or the server's policy does not allow this (the message says which). */
  'not_allowed',
  /** The server lists endpoints on other sites that the user has not accepted yet. */
  'endpoints_not_accepted',
  /** The agent's server answered with an error; the message is the server's own (Talkie 1 §3). */
  'server_error',
  /** The agent could not be reached (network, DNS, TLS, timeouts, blocked addresses). */
  'network_error',
  /** What the server sent cannot be read (not the protocol, too large). */
  'protocol_error',
  /** A photo or image file was refused (format, size, damage, too much detail); the message says why. */
  'invalid_image',
  /** The agent's card declares something AgentDesk cannot use (the message lists why). */
  'incompatible',
  /** The AgentCall session refused the request (wrong modality, a run is active, a stale request …); the message says why. */
  'rejected',
  /** The AgentCall session has ended; start a new one. */
  'session_ended',
  /** A saved file could not be written (disk full, read-only folder, a newer AgentDesk's file); the message names the file and why. The saved copy is unchanged. */
  'save_failed',
  /** The OS keychain is locked: unlock it and try again (a sign-in AgentDesk already had stays for the session). */
  'keychain_locked',
  /** The OS keychain failed or did not answer (the message says why). */
  'keychain_unavailable',
  /** The voice session's short-lived key expired or the speech provider refused it: start a new call (a key is never reused). */
  'voice_session_expired',
  /** Speech synthesis or recognition cannot run here (espeak-ng missing, no speech model imported); the message says which and how to fix it. */
  'speech_unavailable',
  /** A speech model folder AgentDesk cannot use: files missing, too large, or the model does not load; the message says which. */
  'speech_model_invalid',
  /** A speech model folder with a symbolic link in it: only real files are imported (a link could copy any file AgentDesk can read). */
  'speech_model_symlink',
  /** A speech model file changed between its check and its copy (still being written?): nothing was imported; try again. */
  'speech_model_changed',
] as const;

export type IpcErrorCode = (typeof ipcErrorCodes)[number];

export interface IpcError {
  code: IpcErrorCode;
  message: string;
  /** JSON-pointer-like path of the offending field, when the error is about one field. */
  path?: string;
  /** Trying again may work (the UI offers Retry). */
  retryable?: boolean;
}

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export function ok<T>(value: T): IpcResult<T> {
  return { ok: true, value };
}

export function fail(code: IpcErrorCode, message: string, path?: string, retryable?: boolean): { ok: false; error: IpcError } {
  return { ok: false, error: { code, message, ...(path === undefined ? {} : { path }), ...(retryable === undefined ? {} : { retryable }) } };
}

/** Thrown by services for expected, user-facing failures; the dispatcher turns it into a result. */
export class ServiceError extends Error {
  constructor(
    readonly code: IpcErrorCode,
    message: string,
    readonly path?: string,
    readonly retryable?: boolean,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
