import { randomBytes } from 'node:crypto';
import type { AgentCallCard } from '../../shared/agentcall/card';
import type { AgentCallAgent, AgentCallOpenResponse } from '../../shared/agentcall/ipc-schemas';
import type { Intent, Modality } from '../../shared/agentcall/protocol';
import { AgentCallSession, type CommandResult, type EngineOutput, type SessionRejection } from '../../shared/agentcall/session';
import type { SessionUpdate } from '../../shared/agentcall/session-view';
import { builtInAgentCallDemoId } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/ipc/errors';
import type { NfcObject, NfcScanResult } from '../../shared/nfc/ipc-schemas';
import type { Problem } from '../../shared/talkie/problems';
import { identifyAgent } from '../agents/identify-agent';
import type { TokenStore } from '../auth/token-store';
import type { EventBus } from '../ipc/event-bus';
import type { NetPolicy } from '../net/address-policy';
import { NetError } from '../net/net-error';
import type { PhotoService } from '../photo/photo-service';
import type { Logger } from '../platform/logger';
import type { AgentRegistry } from '../services/agent-registry';
import type { SettingsService } from '../services/settings-service';
import { connectAgentCall, TransportError, type AgentCallConnection, type ConnectOptions } from './websocket-transport';

/**
 * AgentCall sessions in main: card → checks → WebSocket → the shared session engine, with the
 * renderer seeing only `SessionUpdate`s. Observations are built here from this machine's bridges:
 * the object from a tag observation the NFC service produced (the renderer names it by scan and
 * objectRef), the image from a photo the photo service staged (named by photoId). The renderer
 * never supplies an object or image bytes. One session per agent; opening again ends the old one.
 * When a session ends, its staged photos and remembered tag observations are released.
 */

export interface AgentCallServiceDeps {
  agents: AgentRegistry;
  settings: SettingsService;
  events: EventBus;
  tokens: TokenStore;
  photos: PhotoService;
  log: Logger;
  /** The built-in demo's AgentCall card (the demo runs in this process on 127.0.0.1). */
  demoCardUrl: () => Promise<string>;
  /** Whether an NFC reader is connected now (nfc is offered to the agent only then). */
  readerConnected: () => boolean;
  /** Tag observations as the NFC service emits them. */
  onNfcResult?: (listener: (result: NfcScanResult) => void) => () => void;
  connect?: (options: ConnectOptions) => Promise<AgentCallConnection>;
}

/** A tag observation main received, kept briefly so the renderer can name it for sending. */
interface HeldScan {
  scanId: string;
  object: NfcObject;
  at: number;
}

const heldScanLimit = 16;
const heldScanMs = 10 * 60 * 1000;
const maxUpdatesPerEvent = 50;

interface LiveSession {
  key: string;
  agentId: string;
  engine: AgentCallSession;
  connection: AgentCallConnection;
}

export class AgentCallService {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly heldScans: HeldScan[] = [];
  private readonly connect: (options: ConnectOptions) => Promise<AgentCallConnection>;

  constructor(private readonly deps: AgentCallServiceDeps) {
    this.connect = deps.connect ?? connectAgentCall;
    deps.onNfcResult?.((result) => {
      if (result.outcome !== 'observation') return;
      this.heldScans.push({ scanId: result.scanId, object: result.object, at: Date.now() });
      if (this.heldScans.length > heldScanLimit) this.heldScans.shift();
    });
  }

  async open(agentId: string): Promise<AgentCallOpenResponse> {
    const target = await this.target(agentId);
    const card = target.card;
    if (card.transport !== 'websocket') {
      throw new ServiceError('incompatible', 'This agent offers AgentCall only over WebRTC, which comes with voice in a later AgentDesk version.');
    }
    const tokenKey = tokenKeyFor(target.cardUrl);
    let bearerToken: string | undefined;
    if (card.bearerRequired) {
      bearerToken = (await this.deps.tokens.load(tokenKey))?.accessToken;
      if (bearerToken === undefined) throw new ServiceError('sign_in_required', `${card.name} asks for an access token. Paste the token its publisher gave you.`);
    }
    for (const session of this.sessions.values()) if (session.agentId === agentId) this.endSession(session);

    let connection: AgentCallConnection;
    try {
      connection = await this.connect({ url: card.wsUrl, policy: target.policy, log: this.deps.log, ...(bearerToken === undefined ? {} : { bearerToken }) });
    } catch (error) {
      throw connectFailure(error, card.name);
    }
    const clientModalities: Modality[] = [...(this.deps.readerConnected() ? (['nfc'] as const) : []), 'photo'];
    const key = randomBytes(12).toString('base64url');
    const engine = new AgentCallSession({ sessionId: `agentdesk-${key}`, card: { accepted: card.accepted, agentRequests: card.agentRequests }, clientModalities });
    const session: LiveSession = { key, agentId, engine, connection };
    this.sessions.set(key, session);

    connection.onFrame((frame) => this.apply(session, engine.receiveFrame(frame)));
    connection.onClose((close) => {
      const output = engine.transportClosed(close.code, close.reason, close.error?.message);
      this.emit(session, output.updates);
      this.forget(session);
    });
    const started = engine.start();
    if (!started.ok) throw rejection(started);
    this.transmit(session, started);
    this.deps.log.info('agentcall', `session ${key} opened with ${new URL(card.wsUrl).host}`);
    return { sessionKey: key, agent: agentView(card, target.cardUrl, target.problems), updates: started.updates.slice(0, maxUpdatesPerEvent) };
  }

  async useToken(agentId: string, token: string): Promise<{ saved: true }> {
    const target = await this.target(agentId);
    await this.deps.tokens.save(tokenKeyFor(target.cardUrl), { accessToken: token.trim(), issuer: new URL(target.cardUrl).origin, clientId: 'pasted' });
    return { saved: true };
  }

  sendText(key: string, text: string): { sent: true } {
    const session = this.session(key);
    return this.command(session, session.engine.sendText(text));
  }

  sendObservation(key: string, request: { scan?: { scanId: string; objectRef: string }; photoId?: string; intent?: Intent; interactionId?: string }): { sent: true } {
    const session = this.session(key);
    if (!request.scan && !request.photoId) throw new ServiceError('invalid_request', 'Scan an object or take a photo first.');
    let object: NfcObject | undefined;
    if (request.scan) {
      const { scanId, objectRef } = request.scan;
      const held = this.heldScans.find((scan) => scan.scanId === scanId && scan.object.objectRef === objectRef && Date.now() - scan.at < heldScanMs);
      if (!held) throw new ServiceError('not_found', 'That scan is no longer available. Scan the object again.', '/scan');
      object = held.object;
    }
    const photo = request.photoId ? this.deps.photos.peek(request.photoId) : undefined;
    if (request.photoId && !photo) throw new ServiceError('not_found', 'That photo is no longer available. Take it again.', '/photoId');
    const result = session.engine.sendObservation({
      ...(object ? { object } : {}),
      ...(photo
        ? { image: { mediaType: 'image/jpeg' as const, data: photo.base64, byteCount: photo.byteCount, sha256: photo.sha256, pixelWidth: photo.pixelWidth, pixelHeight: photo.pixelHeight } }
        : {}),
      ...(request.intent ? { intent: request.intent } : {}),
      ...(request.interactionId ? { interactionId: request.interactionId } : {}),
    });
    if (!result.ok) throw rejection(result);
    // Sent (or about to be): the photo and the tag observation are used up.
    if (request.photoId) this.deps.photos.take(request.photoId)?.jpeg.fill(0);
    if (object) this.heldScans.splice(this.heldScans.findIndex((scan) => scan.object === object), 1);
    return this.command(session, result);
  }

  answerProposal(key: string, proposalId: string, answer: 'confirm' | 'cancel'): { sent: true } {
    const session = this.session(key);
    return this.command(session, session.engine.answerProposal(proposalId, answer));
  }

  decline(key: string): { sent: true } {
    const session = this.session(key);
    return this.command(session, session.engine.declineInteraction());
  }

  cancel(key: string): { sent: true } {
    const session = this.session(key);
    return this.command(session, session.engine.cancelRun());
  }

  end(key: string): { ended: boolean } {
    const session = this.sessions.get(key);
    if (!session) return { ended: false };
    this.endSession(session);
    return { ended: true };
  }

  /** App shutdown: ends every session. */
  dispose(): void {
    for (const session of [...this.sessions.values()]) this.endSession(session);
    this.heldScans.length = 0;
  }

  private endSession(session: LiveSession): void {
    const result = session.engine.end();
    if (result.ok) this.apply(session, result);
    else session.connection.close();
    this.forget(session);
  }

  private forget(session: LiveSession): void {
    if (!this.sessions.delete(session.key)) return;
    // Session-local images and references go with the session (photos are staged for the one session the UI shows).
    this.deps.photos.discardAll();
    this.heldScans.length = 0;
    this.deps.log.info('agentcall', `session ${session.key} ended`);
  }

  private session(key: string): LiveSession {
    const session = this.sessions.get(key);
    if (!session) throw new ServiceError('session_ended', 'This session has ended. Start a new one.');
    return session;
  }

  private command(session: LiveSession, result: CommandResult): { sent: true } {
    if (!result.ok) throw rejection(result);
    this.apply(session, result);
    return { sent: true };
  }

  private apply(session: LiveSession, output: EngineOutput): void {
    this.transmit(session, output);
    this.emit(session, output.updates);
  }

  private transmit(session: LiveSession, output: EngineOutput): void {
    try {
      for (const message of output.send) session.connection.send(message);
    } catch (error) {
      this.deps.log.warn('agentcall', `session ${session.key}: a message could not be sent`, error);
      if (error instanceof TransportError && error.code === 'send_too_large') throw new ServiceError('rejected', error.message);
      throw new ServiceError('session_ended', 'The connection to the agent is closed. Start a new session.');
    } finally {
      if (output.close) session.connection.close(output.close.code, output.close.reason);
    }
  }

  private emit(session: LiveSession, updates: readonly SessionUpdate[]): void {
    for (let start = 0; start < updates.length; start += maxUpdatesPerEvent) {
      this.deps.events.emit('agentcall.update', { sessionKey: session.key, updates: updates.slice(start, start + maxUpdatesPerEvent) });
    }
  }

  private async target(agentId: string): Promise<{ cardUrl: string; card: AgentCallCard & { transport: 'websocket' | 'webrtc' }; problems: Problem[]; policy: NetPolicy }> {
    let url: string;
    let policy: NetPolicy;
    if (agentId === builtInAgentCallDemoId) {
      // The built-in demo runs inside this process on 127.0.0.1: trusted without the development setting.
      url = await this.deps.demoCardUrl();
      policy = { allowLocalHttp: true };
    } else {
      const agent = this.deps.agents.list().find((entry) => entry.id === agentId);
      if (!agent) throw new ServiceError('not_found', 'That agent is no longer in your list.');
      url = agent.url;
      policy = { allowLocalHttp: this.deps.settings.get().developer.allowLocalHttp };
    }
    const identified = await identifyAgent(url, policy);
    if (identified.protocol !== 'agentcall') throw new ServiceError('incompatible', 'This agent speaks Talkie, not AgentCall.');
    return { cardUrl: identified.cardUrl, card: identified.card, problems: identified.problems, policy };
  }
}

/** Bearer tokens of AgentCall agents live beside Talkie tokens in the keychain, keyed by the card's origin. */
function tokenKeyFor(cardUrl: string): string {
  return `agentcall:${new URL(cardUrl).origin}`;
}

function agentView(card: AgentCallCard, cardUrl: string, problems: readonly Problem[]): AgentCallAgent {
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    cardUrl,
    endpoint: card.aguiUrl,
    accepted: [...card.accepted],
    agentRequests: [...card.agentRequests],
    legacyExtension: card.extensionUri === 'legacy',
    skills: card.skills.slice(0, 32).map((skill) => ({ name: skill.name.slice(0, 100), description: skill.description.slice(0, 300) })),
    notes: problems.slice(0, 20).map((problem) => problem.message.slice(0, 500)),
  };
}

function rejection(result: SessionRejection): ServiceError {
  if (result.code === 'session_ended') return new ServiceError('session_ended', result.message);
  const shape = ['empty_text', 'text_too_long', 'invalid_context', 'invalid_observation'].includes(result.code);
  return new ServiceError(shape ? 'invalid_request' : 'rejected', result.message);
}

function connectFailure(error: unknown, name: string): ServiceError {
  if (error instanceof TransportError) {
    if (error.code === 'sign_in_required') return new ServiceError('sign_in_required', `${name} did not accept the access token. Paste a new one.`);
    if (error.code === 'not_allowed') return new ServiceError('not_allowed', error.message);
    if (error.code === 'server_error') return new ServiceError('server_error', error.message, undefined, true);
    return new ServiceError('network_error', error.message, undefined, true);
  }
  if (error instanceof NetError) {
    if (error.code === 'insecure_scheme') return new ServiceError('insecure_scheme', `${error.message} Turn on Settings → Developer → Allow http:// for local agents.`);
    return new ServiceError('network_error', error.message, undefined, true);
  }
  return error instanceof ServiceError ? error : new ServiceError('internal', 'The session could not be started.');
}
