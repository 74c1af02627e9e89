import { randomBytes } from 'node:crypto';
import type { AgentCallCard } from '../../shared/agentcall/card';
import type { ObjectPassport } from '../../shared/agentcall/passport';
import type { AgentCallAgent, AgentCallOpenResponse } from '../../shared/agentcall/ipc-schemas';
import type { Intent, Modality } from '../../shared/agentcall/protocol';
import type { SessionOpened, SessionUpdate } from '../../shared/agentcall/session-view';
import { windowChunks } from '../../shared/conversation/bounds';
import { Listeners } from '../../shared/base/listeners';
import { builtInAgentCallDemoId } from '../../shared/ipc/contract';
import { ServiceError, type IpcErrorCode } from '../../shared/base/errors';
import type { NfcObject, NfcScanResult } from '../../shared/nfc/ipc-schemas';
import type { Problem } from '../../shared/talkie/problems';
import { readAgentCallCard } from './read-card';
import type { TokenStore } from '../auth/token-store';
import type { EventBus } from '../ipc/event-bus';
import type { NetPolicy } from '../net/address-policy';
import type { PhotoService } from '../photo/photo-service';
import type { Logger } from '../platform/logger';
import type { AgentRegistry } from '../store/agent-registry';
import type { SettingsService } from '../store/settings-service';
import { DataChannelConnection } from './datachannel-transport';
import { openAgentCallOverChannel, openAgentCallSession, type AgentCallDriver } from './session-driver';
import { postAgentCallOffer, SignallingError } from './webrtc-signalling';

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
  /**
   * Whether this computer can read NFC tags in this session: the reader service is on (nfc is then
   * offered to the agent even with no reader connected yet, so a reader plugged in later is used).
   */
  nfcOffered: () => boolean;
  /** Tag observations as the NFC service emits them, with the tag's object passport when it carries one. */
  onNfcResult?: (listener: (result: NfcScanResult, passport?: ObjectPassport) => void) => () => void;
  /** Tests: how a session is opened (default: openAgentCallSession). */
  openSession?: typeof openAgentCallSession;
}

/** A tag observation main received, kept briefly so the renderer can name it for sending. */
interface HeldScan {
  scanId: string;
  object: NfcObject;
  /** The tag's object passport (it names `object`): shown in the session once the scan is sent. */
  passport?: ObjectPassport;
  at: number;
}

const heldScanLimit = 16;
const heldScanMs = 10 * 60 * 1000;
const maxUpdatesPerEvent = 50;

interface Target {
  cardUrl: string;
  card: AgentCallCard;
  problems: Problem[];
  policy: NetPolicy;
}

/** A WebRTC call whose channel is not open yet (the renderer has the answer). */
interface PendingCall {
  agentId: string;
  target: Target;
  connection: DataChannelConnection;
  sessionId: string;
  timer: NodeJS.Timeout;
}

/** How long the renderer has to report the call's channel open. */
const callOpenMs = 30_000;
const maxPendingCalls = 4;

interface LiveSession {
  key: string;
  agentId: string;
  driver: AgentCallDriver;
}

export class AgentCallService {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly heldScans: HeldScan[] = [];
  /** Calls between the SDP answer and the channel's session.established, and open calls' connections (by key). */
  private readonly calls = new Map<string, PendingCall>();
  private readonly opened: Listeners<[SessionOpened]>;

  constructor(private readonly deps: AgentCallServiceDeps) {
    this.opened = new Listeners((error) => deps.log.warn('agentcall', 'a listener of opened sessions failed', error));
    deps.onNfcResult?.((result, passport) => {
      if (result.outcome !== 'observation') return;
      this.heldScans.push({ scanId: result.scanId, object: result.object, ...(passport ? { passport } : {}), at: Date.now() });
      if (this.heldScans.length > heldScanLimit) this.heldScans.shift();
    });
  }

  /**
   * Main's own listener of sessions that open, by `open` or by a call the page placed (whose first
   * updates only the page's `callOpened` answer carries): told before any later update is emitted.
   */
  onSessionOpened(listener: (opened: SessionOpened) => void): () => void {
    return this.opened.subscribe(listener);
  }

  /** The agent's card as the screen needs it, without a session (a WebRTC card is called, not opened). */
  async card(agentId: string): Promise<{ agent: AgentCallAgent }> {
    const target = await this.target(agentId);
    return { agent: agentView(target.card, target.cardUrl, target.problems) };
  }

  async open(agentId: string): Promise<AgentCallOpenResponse> {
    const target = await this.target(agentId);
    const card = target.card;
    const bearerToken = await this.bearerFor(target);
    for (const session of this.sessions.values()) if (session.agentId === agentId) await this.endSession(session);
    const key = randomBytes(12).toString('base64url');
    return this.startSession(key, agentId, target, bearerToken, (onUpdate) =>
      (this.deps.openSession ?? openAgentCallSession)({
        card,
        policy: target.policy,
        ...(bearerToken === undefined ? {} : { bearerToken }),
        clientModalities: this.clientModalities(),
        sessionId: `agentdesk-${key}`,
        log: this.deps.log,
        onUpdate,
      }),
    );
  }

  /*
   * agentcall-webrtc-0.1 calls. The renderer owns the RTCPeerConnection (microphone, the agent's audio
   * and the agentcall.events channel on one connection); main owns the card, the token, the SDP POST
   * and the session engine. The channel is relayed (datachannel-transport.ts): the renderer hands main
   * every channel message unparsed (`callMessage`) and puts on the channel exactly the text main emits
   * (`agentcall.channelSend`); main closes it with `agentcall.channelClose`. Once open, the call is an
   * ordinary session addressed by its key (sendText, sendObservation, … work unchanged).
   */

  /** Step 1: the renderer's SDP offer, POSTed by main to the card's URL; only the answer goes back. */
  async callOffer(agentId: string, sdp: string): Promise<{ callKey: string; sdp: string; explicitTurns: boolean }> {
    const target = await this.target(agentId);
    const card = target.card;
    if (card.transport !== 'webrtc') throw new ServiceError('incompatible', `${card.name} takes WebSocket sessions, not calls.`);
    const bearerToken = await this.bearerFor(target);
    for (const session of this.sessions.values()) if (session.agentId === agentId) await this.endSession(session);
    for (const call of this.calls.values()) if (call.agentId === agentId) call.connection.close();
    const callKey = randomBytes(12).toString('base64url');
    const sessionId = `agentdesk-${callKey}`;
    let answer: string;
    try {
      answer = await postAgentCallOffer({ card, sessionId, offer: sdp, policy: target.policy, ...(bearerToken === undefined ? {} : { bearerToken }) });
    } catch (error) {
      if (!(error instanceof SignallingError)) throw error;
      this.deps.log.warn('agentcall', `call offer refused: ${error.code}`);
      const code: IpcErrorCode =
        error.code === 'sign_in_required'
          ? 'sign_in_required'
          : error.code === 'not_allowed'
            ? 'not_allowed'
            : error.code === 'insecure_scheme'
              ? 'insecure_scheme'
              : error.code === 'network'
                ? 'network_error'
                : error.code === 'server_error'
                  ? 'server_error'
                  : 'protocol_error';
      throw new ServiceError(
        code,
        code === 'insecure_scheme' ? `${error.message} Turn on Settings → Developer → Allow http:// for local agents.` : error.message,
        undefined,
        error.retryable,
      );
    }
    const connection = new DataChannelConnection(
      {
        sendText: (text) => this.deps.events.emit('agentcall.channelSend', { callKey, text }),
        close: () => {
          this.calls.delete(callKey);
          this.deps.events.emit('agentcall.channelClose', { callKey });
        },
      },
      this.deps.log,
    );
    // A renderer that never reports the channel open gives the call up.
    const timer = setTimeout(() => {
      if (this.calls.get(callKey)?.connection === connection) connection.close();
    }, callOpenMs);
    timer.unref?.();
    this.calls.set(callKey, { agentId, target, connection, sessionId, timer });
    // Calls whose channel never opened are bounded (a live call is never closed for a new one).
    const waiting = [...this.calls.entries()].filter(([key]) => !this.sessions.has(key));
    if (waiting.length > maxPendingCalls) waiting[0]?.[1].connection.close();
    return { callKey, sdp: answer, explicitTurns: card.webrtc.supportsExplicitTurns };
  }

  /** Step 2: the renderer's channel opened: session.start goes out through it; resolves as `open` does. */
  async callOpened(callKey: string): Promise<AgentCallOpenResponse> {
    const call = this.calls.get(callKey);
    if (!call) throw new ServiceError('session_ended', 'This call has ended. Call again.');
    clearTimeout(call.timer);
    const card = call.target.card;
    return this.startSession(callKey, call.agentId, call.target, undefined, (onUpdate) =>
      openAgentCallOverChannel({
        card,
        connection: call.connection,
        sessionId: call.sessionId,
        clientModalities: this.clientModalities(),
        log: this.deps.log,
        onUpdate,
      }),
    );
  }

  /** A message the renderer received on the call's channel, as it came (text or bytes). Judged here. */
  callMessage(callKey: string, message: { text?: string | undefined; refused?: 'binary' | 'too_large' | undefined }): { taken: boolean } {
    const call = this.calls.get(callKey);
    if (!call) return { taken: false };
    if (message.refused !== undefined) call.connection.sink.refused(message.refused);
    else call.connection.sink.message(message.text ?? '');
    return { taken: true };
  }

  /** The renderer's channel closed, or its peer connection failed or disconnected: the session ends (no resume). */
  callClosed(callKey: string, why: string, clean: boolean): { ended: boolean } {
    const call = this.calls.get(callKey);
    if (!call) return { ended: false };
    this.calls.delete(callKey);
    clearTimeout(call.timer);
    call.connection.sink.closed(why, clean);
    return { ended: true };
  }

  /** Explicit audio turns: push-to-talk pressed (`start`; during an answer a barge-in, see the driver), released (`commit`) or abandoned (`cancel`). */
  async audioTurn(key: string, action: 'start' | 'commit' | 'cancel', microphoneStopped: boolean): Promise<{ turn: number }> {
    const { driver } = this.session(key);
    if (action === 'start') return { turn: await driver.startAudioTurn() };
    const turn = driver.openAudioTurn ?? 0;
    driver.endAudioTurn(action, { stopped: microphoneStopped });
    return { turn };
  }

  private clientModalities(): Modality[] {
    return [...(this.deps.nfcOffered() ? (['nfc'] as const) : []), 'photo'];
  }

  private async bearerFor(target: Target): Promise<string | undefined> {
    if (!target.card.bearerRequired) return undefined;
    const bearerToken = (await this.deps.tokens.load(tokenKeyFor(target.cardUrl)))?.accessToken;
    if (bearerToken === undefined)
      throw new ServiceError('sign_in_required', `${target.card.name} asks for an access token. Paste the token its publisher gave you.`);
    return bearerToken;
  }

  private async startSession(
    key: string,
    agentId: string,
    target: Target,
    bearerToken: string | undefined,
    opener: (onUpdate: (update: SessionUpdate) => void) => Promise<AgentCallDriver>,
  ): Promise<AgentCallOpenResponse> {
    const card = target.card;
    // Updates are held until the renderer has the session key (the answer below), then streamed as events.
    let early: SessionUpdate[] | undefined = [];
    let pending: SessionUpdate[] = [];
    const flush = () => {
      if (pending.length === 0) return;
      const updates = pending;
      pending = [];
      // At most 50 updates and one window's characters (conversation/bounds.ts) per event.
      for (const chunk of windowChunks(updates, maxUpdatesPerEvent)) this.deps.events.emit('agentcall.update', { sessionKey: key, updates: chunk });
    };
    let driver: AgentCallDriver;
    try {
      driver = await opener((update) => {
        if (early) early.push(update);
        else {
          // One event per burst of updates (a frame, a command), not one per update.
          if (pending.length === 0) queueMicrotask(flush);
          pending.push(update);
        }
        if (update.type === 'ended') this.forget(key);
      });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'sign_in_required' && bearerToken !== undefined) {
        throw new ServiceError('sign_in_required', `${card.name} did not accept the access token. Paste a new one.`);
      }
      if (error instanceof ServiceError && error.code === 'insecure_scheme') {
        throw new ServiceError('insecure_scheme', `${error.message} Turn on Settings → Developer → Allow http:// for local agents.`);
      }
      throw error;
    }
    this.sessions.set(key, { key, agentId, driver });
    // The agent may have ended it already (frames that arrived together with session.established).
    if (driver.view.phase === 'ended') this.forget(key);
    const updates = early.slice(-maxUpdatesPerEvent);
    early = undefined;
    this.deps.log.info('agentcall', `session ${key} opened with ${new URL(card.aguiUrl).host}`);
    this.opened.emit({ sessionKey: key, agentId, updates });
    return { sessionKey: key, agent: agentView(card, target.cardUrl, target.problems), updates };
  }

  async useToken(agentId: string, token: string): Promise<{ saved: true }> {
    const target = await this.target(agentId);
    await this.deps.tokens.save(tokenKeyFor(target.cardUrl), { accessToken: token.trim(), issuer: new URL(target.cardUrl).origin, clientId: 'pasted' });
    return { saved: true };
  }

  sendText(key: string, text: string): { sent: true } {
    this.session(key).driver.sendText(text);
    return { sent: true };
  }

  sendObservation(
    key: string,
    request: { scan?: { scanId: string; objectRef: string }; photoId?: string; intent?: Intent; interactionId?: string },
  ): { sent: true } {
    const { driver } = this.session(key);
    if (!request.scan && !request.photoId) throw new ServiceError('invalid_request', 'Scan an object or take a photo first.');
    let held: HeldScan | undefined;
    if (request.scan) {
      const { scanId, objectRef } = request.scan;
      held = this.heldScans.find((scan) => scan.scanId === scanId && scan.object.objectRef === objectRef && Date.now() - scan.at < heldScanMs);
      if (!held) throw new ServiceError('not_found', 'That scan is no longer available. Scan the object again.', '/scan');
    }
    // Peeked, not taken: a refused observation leaves the photo for another try.
    const photo = request.photoId ? this.deps.photos.peek(request.photoId) : undefined;
    if (request.photoId && !photo) throw new ServiceError('not_found', 'That photo is no longer available. Take it again.', '/photoId');
    driver.sendObservation({
      ...(held ? { object: held.object, ...(held.passport ? { passport: held.passport } : {}) } : {}),
      ...(photo
        ? {
            image: {
              mediaType: 'image/jpeg' as const,
              data: photo.base64,
              byteCount: photo.byteCount,
              sha256: photo.sha256,
              pixelWidth: photo.pixelWidth,
              pixelHeight: photo.pixelHeight,
            },
          }
        : {}),
      ...(request.intent ? { intent: request.intent } : {}),
      ...(request.interactionId ? { interactionId: request.interactionId } : {}),
    });
    // Sent: the photo and the tag observation are used up.
    if (request.photoId) this.deps.photos.take(request.photoId)?.jpeg.fill(0);
    if (held) this.heldScans.splice(this.heldScans.indexOf(held), 1);
    return { sent: true };
  }

  answerProposal(key: string, proposalId: string, answer: 'confirm' | 'cancel'): { sent: true } {
    this.session(key).driver.answerProposal(proposalId, answer);
    return { sent: true };
  }

  /** The user confirmed an action recipe: the renderer names it, the session's own copy of the passport says what is asked. */
  confirmRecipe(key: string, passportId: string, recipeId: string): { sent: true } {
    this.session(key).driver.askRecipe(passportId, recipeId);
    return { sent: true };
  }

  decline(key: string): { sent: true } {
    this.session(key).driver.declineInteraction();
    return { sent: true };
  }

  cancel(key: string): { sent: true } {
    this.session(key).driver.cancelRun();
    return { sent: true };
  }

  async end(key: string): Promise<{ ended: boolean }> {
    const session = this.sessions.get(key);
    if (!session) return { ended: false };
    await this.endSession(session);
    return { ended: true };
  }

  /**
   * App shutdown and the kiosk's reset: ends every session (`session.end`), closes every call whose
   * session has not started yet (the renderer is told with `agentcall.channelClose` and hangs up) and
   * forgets held tags; returns how many sessions and calls it ended.
   */
  async dispose(): Promise<number> {
    const open = [...this.sessions.values()];
    // Each session ends on its own: one whose connection already failed does not keep the others open.
    const ended = await Promise.allSettled(open.map((session) => this.endSession(session)));
    for (const result of ended)
      if (result.status === 'rejected') this.deps.log.warn('agentcall', 'a session could not send session.end; it is closed anyway', result.reason);
    // What is left is a call between its answer and its session (or one whose session's end did not close it).
    const calls = [...this.calls.entries()];
    this.calls.clear();
    for (const [, call] of calls) {
      clearTimeout(call.timer);
      call.connection.close();
    }
    this.heldScans.length = 0;
    return open.length + calls.filter(([key]) => !open.some((session) => session.key === key)).length;
  }

  /** The kiosk's start tag: is this session the given agent's? */
  sessionAgent(key: string): string | undefined {
    return this.sessions.get(key)?.agentId;
  }

  private async endSession(session: LiveSession): Promise<void> {
    try {
      await session.driver.end();
    } finally {
      // Forgotten (with its photos and tags) even when the goodbye could not be sent.
      this.forget(session.key);
    }
  }

  private forget(key: string): void {
    if (!this.sessions.delete(key)) return;
    // Session-local images and references go with the session (photos are staged for the one session the UI shows).
    this.deps.photos.discardAll();
    this.heldScans.length = 0;
    this.deps.log.info('agentcall', `session ${key} ended`);
  }

  private session(key: string): LiveSession {
    const session = this.sessions.get(key);
    if (!session) throw new ServiceError('session_ended', 'This session has ended. Start a new one.');
    return session;
  }

  private async target(agentId: string): Promise<Target> {
    let url: string;
    let policy: NetPolicy;
    if (agentId === builtInAgentCallDemoId) {
      // The built-in demo runs inside this process on 127.0.0.1: trusted without the development setting.
      url = await this.deps.demoCardUrl();
      policy = { allowLocalHttp: true };
    } else {
      const agent = this.deps.agents.get(agentId);
      url = agent.url;
      policy = { allowLocalHttp: this.deps.agents.allowsLocalHttp(agentId, this.deps.settings.get().developer.allowLocalHttp) };
    }
    const { cardUrl, card, problems } = await readAgentCallCard(url, policy);
    return { cardUrl, card, problems, policy };
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
    voice: { owner: card.voiceOwner, transport: card.transport, explicitTurns: card.transport === 'webrtc' && card.webrtc.supportsExplicitTurns === true },
  };
}
