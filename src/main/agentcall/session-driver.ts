import { randomUUID } from 'node:crypto';
import type { AgentCallCard } from '../../shared/agentcall/card';
import type { Modality } from '../../shared/agentcall/protocol';
import { AgentCallSession, type CommandResult, type EngineOutput, type ObservationInput, type SessionRejectionCode } from '../../shared/agentcall/session';
import { applySessionUpdate, emptySessionView, type EndReason, type SessionUpdate, type SessionView } from '../../shared/agentcall/session-view';
import { ServiceError, type IpcErrorCode } from '../../shared/base/errors';
import { NetError, type NetPolicy } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import { TransportError, type AgentCallConnection } from './connection';
import { connectAgentCall } from './websocket-transport';
import { Listeners } from '../../shared/base/listeners';

/**
 * One AgentCall session in main: the WebSocket transport and the pure session engine
 * (src/shared/agentcall/session.ts) wired together. Frames go to the engine; what it asks to send
 * is sent, then its updates are folded into a `SessionView` and handed to listeners, then the
 * socket is closed when it says so. Used by `agentdesk chat` (and meant for the app's service);
 * nothing here prints or reads a terminal.
 *
 * Errors are ServiceErrors with stable codes: opening fails with `incompatible` (a WebRTC-only
 * card), `sign_in_required`, `not_allowed`, `insecure_scheme`, `network_error` or `protocol_error`
 * (the agent broke the protocol or never answered `session.start`); a command the engine refuses
 * throws `AgentCallRejection` (`rejected`, or `session_ended`) with the engine's own reason code.
 */

export interface OpenAgentCallOptions {
  card: AgentCallCard;
  policy: NetPolicy;
  /** Sent as the upgrade's Authorization header when the card requires a bearer token. */
  bearerToken?: string;
  /** What this machine offers now (nfc when a reader is present, photo when a camera or file input is). */
  clientModalities: readonly Modality[];
  log: Logger;
  sessionId?: string;
  /** How long the agent has to answer `session.start` (default 10 s). */
  establishTimeoutMs?: number;
  focusContext?: boolean;
  /** Subscribed before `session.start` is sent, so it sees every update from the first one. */
  onUpdate?: UpdateListener;
}

export const defaultEstablishTimeoutMs = 10_000;

/** A command the session refused before anything was sent; `reason` is the engine's stable code. */
export class AgentCallRejection extends ServiceError {
  constructor(
    readonly reason: SessionRejectionCode | 'send_failed',
    message: string,
  ) {
    super(reason === 'session_ended' ? 'session_ended' : 'rejected', message);
    this.name = 'AgentCallRejection';
  }
}

export type UpdateListener = (update: SessionUpdate, view: SessionView) => void;

/** How long push to talk pressed during an answer waits, after `response.cancel`, for that run to end. */
export const bargeInRunEndMs = 5_000;

export class AgentCallDriver {
  private currentView: SessionView = emptySessionView;
  private readonly listeners = new Listeners<Parameters<UpdateListener>>((error) => this.log.error('agentcall', 'a session listener failed', error));
  private endReason: EndReason | undefined;
  private readonly endWaiters: ((reason: EndReason) => void)[] = [];
  private readonly socketClosed: Promise<void>;

  constructor(
    private readonly engine: AgentCallSession,
    private readonly connection: AgentCallConnection,
    private readonly log: Logger,
  ) {
    this.socketClosed = new Promise((resolve) => {
      connection.onClose((close) => {
        this.apply(engine.transportClosed(close.code, close.reason, close.error?.message));
        resolve();
      });
    });
    connection.onFrame((frame) => this.apply(engine.receiveFrame(frame)));
  }

  get view(): SessionView {
    return this.currentView;
  }

  get sessionId(): string {
    return this.engine.sessionId;
  }

  get usableModalities(): readonly Modality[] {
    return this.engine.usableModalities;
  }

  /** What the agent may ask for in this session (card.agentRequests ∩ usable). */
  get requestableModalities(): readonly Modality[] {
    return this.engine.requestableModalities;
  }

  /** Called after each update with the view that includes it. Returns an unsubscribe function. */
  onUpdate(listener: UpdateListener): () => void {
    return this.listeners.subscribe(listener);
  }

  /** Resolves once the session has ended (for any reason). */
  ended(): Promise<EndReason> {
    if (this.endReason) return Promise.resolve(this.endReason);
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  sendText(text: string): void {
    this.command(this.engine.sendText(text));
  }

  sendObservation(input: ObservationInput): void {
    this.command(this.engine.sendObservation(input));
  }

  answerProposal(proposalId: string, answer: 'confirm' | 'cancel'): void {
    this.command(this.engine.answerProposal(proposalId, answer));
  }

  /** The user confirmed an action recipe of the current object passport (the engine holds it). */
  askRecipe(passportId: string, recipeId: string): void {
    this.command(this.engine.askRecipe(passportId, recipeId));
  }

  declineInteraction(): void {
    this.command(this.engine.declineInteraction());
  }

  cancelRun(): void {
    this.command(this.engine.cancelRun());
  }

  /**
   * Explicit audio turns (WebRTC with supportsExplicitTurns): push-to-talk pressed. Returns the turn id.
   * While the agent is answering, pressing is a barge-in (one run at a time): `response.cancel` goes
   * first and the turn opens once that run has ended. An agent that does not end it within `runEndMs`
   * gets no turn: `run_active`, said so, instead of a press that waits forever.
   */
  async startAudioTurn(runEndMs = bargeInRunEndMs): Promise<number> {
    const attempt = this.engine.startAudioTurn();
    if (attempt.ok || attempt.code !== 'run_active') {
      this.command(attempt);
      return this.engine.openAudioTurn ?? 0;
    }
    this.command(this.engine.cancelRun());
    await this.runEnded(runEndMs);
    this.command(this.engine.startAudioTurn());
    return this.engine.openAudioTurn ?? 0;
  }

  /** Push-to-talk released (commit) or abandoned (cancel); the microphone must already be stopped. */
  endAudioTurn(outcome: 'commit' | 'cancel', microphone: { stopped: boolean }): void {
    this.command(this.engine.endAudioTurn(outcome, microphone));
  }

  get openAudioTurn(): number | undefined {
    return this.engine.openAudioTurn;
  }

  /** `session.end`, then a normal close; resolves when the socket is closed. Idempotent. */
  async end(): Promise<void> {
    this.command(this.engine.end());
    if (this.connection.isOpen) this.connection.close();
    await this.socketClosed;
  }

  /** Internal: the first step, before anything else is sent. */
  start(): void {
    this.command(this.engine.start());
  }

  /** Resolves once no run is active (it completed, was cancelled, failed, or the session ended); rejects after `ms`. */
  private async runEnded(ms: number): Promise<void> {
    if (!this.currentView.runActive) return;
    if (!(await this.updateWhere((_update, view) => !view.runActive, ms))) {
      throw new AgentCallRejection(
        'run_active',
        `The agent did not stop answering within ${ms / 1000} s of being asked to, so it did not hear you. Try again.`,
      );
    }
  }

  /** Internal: true once an update for which `done` holds has been applied, false when `ms` passed without one. */
  updateWhere(done: (update: SessionUpdate, view: SessionView) => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(false);
      }, ms);
      const off = this.onUpdate((update, view) => {
        if (!done(update, view)) return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }

  private command(result: CommandResult): void {
    if (!result.ok) throw new AgentCallRejection(result.code, result.message);
    this.apply(result);
  }

  private apply(output: EngineOutput): void {
    for (const message of output.send) {
      try {
        this.connection.send(message);
      } catch (error) {
        // The engine already counted the message; the connection is closing or the message is too big.
        this.log.warn('agentcall', `a ${message.type} message could not be sent`, error);
        if (message.type !== 'ack') throw new AgentCallRejection(this.connection.isOpen ? 'send_failed' : 'session_ended', (error as Error).message);
      }
    }
    for (const update of output.updates) {
      this.currentView = applySessionUpdate(this.currentView, update);
      if (update.type === 'ended') this.endReason = update.reason;
      this.listeners.emit(update, this.currentView);
    }
    if (output.close) this.connection.close(output.close.code, output.close.reason);
    if (this.endReason) for (const resolve of this.endWaiters.splice(0)) resolve(this.endReason);
  }
}

/**
 * Connects to the card's AG-UI WebSocket, sends `session.start` and resolves once the agent
 * answered `session.established`. Throws a ServiceError when it cannot (see the file comment).
 */
export async function openAgentCallSession(options: OpenAgentCallOptions): Promise<AgentCallDriver> {
  const { card } = options;
  if (card.transport !== 'websocket') {
    throw new ServiceError(
      'incompatible',
      `${card.name} is a voice agent (agentcall-webrtc-0.1): it takes calls, not WebSocket sessions, and the AgentCall screen cannot call yet (\`agentdesk chat\` and \`agentdesk conformance\` can).`,
    );
  }
  const engine = new AgentCallSession({
    sessionId: options.sessionId ?? `s-${randomUUID()}`,
    card: { accepted: card.accepted, agentRequests: card.agentRequests },
    clientModalities: options.clientModalities,
    ...(options.focusContext === undefined ? {} : { focusContext: options.focusContext }),
  });
  let connection: AgentCallConnection;
  try {
    connection = await connectAgentCall({
      url: card.wsUrl,
      policy: options.policy,
      log: options.log,
      ...(options.bearerToken !== undefined && card.bearerRequired ? { bearerToken: options.bearerToken } : {}),
    });
  } catch (error) {
    throw connectFailure(error);
  }
  return establish(engine, connection, options);
}

export interface OpenOverChannelOptions extends Omit<OpenAgentCallOptions, 'policy' | 'bearerToken'> {
  /** The call's open `agentcall.events` channel (see datachannel-transport.ts). */
  connection: AgentCallConnection;
  /** The id the SDP POST carried as AgentCall-Session-ID; session.start carries the same. */
  sessionId: string;
  /** Ask for explicit audio turns (only when the card says supportsExplicitTurns; default: what the card says). */
  explicitAudioTurns?: boolean;
}

/**
 * The same session over the agentcall-webrtc-0.1 data channel: the channel is already open (the SDP
 * exchange went through webrtc-signalling.ts); sends `session.start` first and resolves once the agent
 * answered `session.established`, exactly as over the WebSocket.
 */
export async function openAgentCallOverChannel(options: OpenOverChannelOptions): Promise<AgentCallDriver> {
  const { card } = options;
  if (card.transport !== 'webrtc') throw new ServiceError('incompatible', `${card.name} does not offer the agentcall-webrtc-0.1 profile.`);
  const explicit = options.explicitAudioTurns ?? card.webrtc.supportsExplicitTurns;
  if (explicit && !card.webrtc.supportsExplicitTurns) throw new ServiceError('incompatible', `${card.name} does not support explicit audio turns.`);
  const engine = new AgentCallSession({
    sessionId: options.sessionId,
    card: { accepted: card.accepted, agentRequests: card.agentRequests },
    clientModalities: options.clientModalities,
    explicitAudioTurns: explicit,
    ...(options.focusContext === undefined ? {} : { focusContext: options.focusContext }),
  });
  return establish(engine, options.connection, options);
}

async function establish(
  engine: AgentCallSession,
  connection: AgentCallConnection,
  options: Pick<OpenAgentCallOptions, 'card' | 'log' | 'onUpdate' | 'establishTimeoutMs'>,
): Promise<AgentCallDriver> {
  const { card } = options;
  const driver = new AgentCallDriver(engine, connection, options.log);
  if (options.onUpdate) driver.onUpdate(options.onUpdate);
  const timeoutMs = options.establishTimeoutMs ?? defaultEstablishTimeoutMs;
  const answered = driver.updateWhere((update) => update.type === 'session.established' || update.type === 'ended', timeoutMs);
  driver.start();
  if (!(await answered)) {
    await driver.end();
    throw new ServiceError('protocol_error', `${card.name} did not answer session.start within ${Math.round(timeoutMs / 1000)} s.`, undefined, true);
  }
  const outcome = driver.view.endReason;
  if (outcome === undefined) return driver;
  const code: IpcErrorCode = outcome.kind === 'protocol_error' ? 'protocol_error' : 'network_error';
  throw new ServiceError(code, `${card.name} ended the session before it was established: ${outcome.message}`);
}

function connectFailure(error: unknown): ServiceError {
  if (error instanceof TransportError) {
    const code: IpcErrorCode =
      error.code === 'sign_in_required' || error.code === 'not_allowed' ? error.code : error.code === 'server_error' ? 'server_error' : 'network_error';
    return new ServiceError(code, error.message);
  }
  if (error instanceof NetError)
    return new ServiceError(error.code === 'insecure_scheme' ? 'insecure_scheme' : 'network_error', error.message, undefined, error.code !== 'insecure_scheme');
  return new ServiceError('network_error', `Could not connect to the agent: ${(error as Error).message}`);
}
