import { type CallShortcut, type CallShortcutState } from './call-shortcut';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { builtInDemoAgentId } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import type { Action } from '../../shared/talkie/content';
import type { RunUpdate } from '../../shared/talkie/conversation';
import { interpretEvent } from '../../shared/talkie/run-events';
import { validateVoiceSession, voiceAvailability, type VoiceSession } from '../../shared/talkie/voice/voice-session';
import type { NetPolicy } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import { postSdpOffer, SdpError } from './sdp-exchange';
import { TalkieError, type TalkieClient } from './talkie-client';
import { toServiceError } from './talkie-service';

/** What the voice service needs from TalkieService: the agent's signed-in client, its Talkie 1 §3 error mapping, and actions. */
export interface VoiceTalkiePort {
  voiceClient(agentId: string): Promise<{ client: TalkieClient; policy: NetPolicy }>;
  voiceCall<T>(agentId: string, request: () => Promise<T>): Promise<T>;
  /** GET action: the authoritative action (its confirm policy). */
  action(agentId: string, actionId: string): Promise<{ action: Action }>;
  /** POST decision (Talkie 1 §8) with `method: "voice"` and the paramsHash that was read out. */
  decide(
    agentId: string,
    actionId: string,
    decision: 'confirm' | 'cancel',
    voice: { paramsHash: string },
  ): Promise<{ action: Action; updates: RunUpdate[]; note?: string }>;
}

export interface VoiceServiceDeps {
  talkie: VoiceTalkiePort;
  log: Logger;
  /** For tests. */
  now?: () => number;
  /** The call's global shortcut (Electron's global keys); without it `shortcut` answers `unavailable`. */
  shortcut?: CallShortcut;
}

/** One voice call. The secret lives only here (main), keyed by an opaque id the renderer gets. */
interface VoiceCall {
  agentId: string;
  client: TalkieClient;
  policy: NetPolicy;
  session: Omit<VoiceSession, 'clientSecret'>;
  /** Dropped after the SDP answer, on expiry, on a 401 from the provider and at the end. */
  clientSecret: string | undefined;
  toolCalls: Set<string>;
  transcripts: Set<string>;
  lastSeconds: number;
  /** The SDP exchange succeeded: the call was really made (a decision can only be heard in one). */
  connected: boolean;
  /** Actions proposed in this call's own tool results: the only ones it may decide by voice. */
  proposals: Set<string>;
  /** Provider `error` events logged for this call (bounded). */
  providerErrors: number;
}

const maxToolCallsPerCall = 10_000;
const maxTranscriptsPerCall = 20_000;
const maxProposalsPerCall = 1_000;
const maxProviderErrorsLogged = 20;

const toolAnswerSchema = z.looseObject({ ok: z.boolean().optional(), output: z.string().max(256 * 1024), events: z.array(z.unknown()).optional() });
const usageAnswerSchema = z.looseObject({ remainingSeconds: z.number().finite() });

const expired = () => new ServiceError('voice_session_expired', 'The voice connection expired before it was made; start the call again.', undefined, true);

/**
 * Talkie 1 §10 on main's side (voice brief rules 1–25): creates voice sessions, refuses one that
 * fails Talkie 1 §10.1 before anything reaches the signalling host, does the SDP exchange with the secret, and calls
 * voiceTool (once per provider call id), voiceTranscript (once per item) and voiceUsage (one final).
 * The renderer holds only the call id; the clientSecret never leaves this object.
 */
export class VoiceService {
  private readonly calls = new Map<string, VoiceCall>();
  private readonly now: () => number;

  constructor(private readonly deps: VoiceServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async start(agentId: string, request: { threadId?: string | undefined; locale?: string | undefined }) {
    const { client, policy } = await this.deps.talkie.voiceClient(agentId);
    const availability = voiceAvailability(client.manifest);
    if (!availability.offered) throw new ServiceError('not_allowed', availability.message);
    const body = {
      ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
      ...(request.locale === undefined ? {} : { locale: request.locale }),
    };
    const json = await this.deps.talkie.voiceCall(agentId, () => client.voiceSession(body));
    // The in-process demo and the development setting allow http:// to a loopback signalling host, nothing else.
    const validation = validateVoiceSession(json, availability.signalingHosts, { development: policy.allowLocalHttp });
    if (!validation.ok) {
      const first = validation.problems[0];
      this.deps.log.warn('talkie', `voice session refused: ${first?.code ?? 'voice_session_invalid'} at ${first?.path ?? '/'}`);
      throw new ServiceError('protocol_error', `The server's voice session cannot be used: ${first?.message ?? 'it is malformed'}`, undefined, false);
    }
    const { clientSecret, ...session } = validation.session;
    const callId = `vc_${randomUUID()}`;
    this.calls.set(callId, {
      agentId,
      client,
      policy,
      session,
      clientSecret,
      toolCalls: new Set(),
      transcripts: new Set(),
      lastSeconds: 0,
      connected: false,
      proposals: new Set(),
      providerErrors: 0,
    });
    this.deps.log.info('talkie', `voice call ${callId} started (session ${session.voiceSessionId})`);
    // Talkie 1 §10.1 requires https; the development setting lets http:// to this computer through, and then
    // the secret travels unencrypted: said in the log and on the call bar (the in-process demo aside).
    const unencrypted = new URL(session.signalingUrl).protocol === 'http:' && agentId !== builtInDemoAgentId;
    if (unencrypted)
      this.deps.log.warn(
        'talkie',
        `voice call ${callId}: the signalling address ${new URL(session.signalingUrl).host} is http://, allowed by the development setting; the call's key travels unencrypted`,
      );
    return {
      callId,
      threadId: session.threadId,
      expiresAt: session.expiresAt,
      maxSeconds: session.maxSeconds,
      warnSeconds: session.warnSeconds,
      ...(session.locale === undefined ? {} : { locale: session.locale }),
      labels: session.labels,
      consent: session.consent,
      voiceConfirm: availability.voiceConfirm,
      ...(unencrypted ? { unencrypted: true as const } : {}),
    };
  }

  /** Rules 7–9: the offer goes to the checked signalling URL only, once the secret is known to be fresh. */
  async offer(callId: string, sdp: string): Promise<{ sdp: string }> {
    const call = this.call(callId);
    const secret = call.clientSecret;
    if (secret === undefined)
      throw new ServiceError('voice_session_expired', 'This voice session has already been used to connect; start the call again.', undefined, true);
    if (!(Date.parse(call.session.expiresAt) > this.now())) {
      call.clientSecret = undefined;
      throw expired();
    }
    // Taken before the POST, so two overlapping offers cannot both send it; it only opens the connection (Talkie 1 §10.1).
    call.clientSecret = undefined;
    try {
      const answer = { sdp: await postSdpOffer(call.session.signalingUrl, secret, sdp, call.policy) };
      call.connected = true;
      return answer;
    } catch (error) {
      if (!(error instanceof SdpError)) throw toServiceError(error);
      this.deps.log.warn('talkie', `voice call ${callId}: the SDP exchange failed (${error.code})`);
      if (error.code === 'secret_rejected') throw new ServiceError('voice_session_expired', error.message, undefined, true);
      // A transient failure (network, 5xx) may be retried with the same secret while the call is still open.
      if (error.retryable && this.calls.get(callId) === call) call.clientSecret = secret;
      throw new ServiceError(error.code === 'network' ? 'network_error' : 'protocol_error', error.message, undefined, error.retryable);
    }
  }

  /** Rules 14–18: one `voiceTool` per provider call id; a 409 means the output was already given. */
  async tool(callId: string, request: { providerCallId: string; name: string; arguments: string }) {
    const call = this.call(callId);
    if (call.toolCalls.has(request.providerCallId)) return { outcome: 'duplicate' as const };
    if (call.toolCalls.size >= maxToolCallsPerCall) throw new ServiceError('not_allowed', 'This voice call has made too many tool calls.');
    call.toolCalls.add(request.providerCallId);
    let json: unknown;
    try {
      const answer = await this.deps.talkie.voiceCall(call.agentId, async () => {
        try {
          return {
            json: await call.client.voiceTool(call.session.voiceSessionId, request.name, { callId: request.providerCallId, arguments: request.arguments }),
          };
        } catch (error) {
          if (error instanceof TalkieError && error.status === 409) return { duplicate: true as const };
          throw error;
        }
      });
      if ('duplicate' in answer) return { outcome: 'duplicate' as const };
      json = answer.json;
    } catch (error) {
      const failure = toServiceError(error);
      return {
        outcome: 'failed' as const,
        output: `The tool failed: ${failure.message.slice(0, 2000)}`,
        code: failure.code,
        message: failure.message.slice(0, 2000),
        retryable: failure.retryable ?? false,
      };
    }
    const parsed = toolAnswerSchema.safeParse(json);
    if (!parsed.success || parsed.data.ok === false) {
      const message = 'The server sent a voice tool result the app cannot read.';
      return { outcome: 'failed' as const, output: `The tool failed: ${message}`, code: 'protocol_error', message, retryable: false };
    }
    const updates: RunUpdate[] = [];
    for (const event of (parsed.data.events ?? []).slice(0, 200)) {
      const interpretation = interpretEvent(event, call.client.manifest.issuer);
      if (interpretation.kind === 'updates') updates.push(...interpretation.updates);
    }
    const shown = updates.slice(0, 200);
    for (const update of shown) if (update.type === 'action' && call.proposals.size < maxProposalsPerCall) call.proposals.add(update.action.id);
    return { outcome: 'ok' as const, output: parsed.data.output, updates: shown };
  }

  /**
   * Talkie 1 §10.4 C11: a decision the user spoke. Not a gesture method, so main checks what a click would
   * have proved: the call is live and connected, the proposal was read out in it (its own tool
   * results), the server allows voice confirmation, and the action's policy — read again from the
   * server — lists voice. Then `POST decision` with `method: "voice"` and the paramsHash that was heard.
   */
  async decide(callId: string, request: { actionId: string; paramsHash: string; decision: 'confirm' | 'cancel' }) {
    const call = this.call(callId);
    const refuse = (why: string) => {
      this.deps.log.warn('talkie', `voice call ${callId}: a voice decision was refused (${why})`);
      return new ServiceError('not_allowed', `This proposal cannot be decided by voice: ${why}. Use its buttons.`);
    };
    if (!call.connected) throw refuse('the call is not connected');
    if (!call.client.manifest.voiceConfirm) throw refuse('this server does not allow confirming by voice');
    if (!call.proposals.has(request.actionId)) throw refuse('it was not proposed in this call');
    const { action } = await this.deps.talkie.action(call.agentId, request.actionId);
    if (!action.voice) throw refuse("the server's policy for it does not list voice");
    if (this.calls.get(callId) !== call) throw new ServiceError('not_found', 'This voice call has ended; start a new one.');
    this.deps.log.info('talkie', `voice call ${callId}: ${request.decision} decided by voice`);
    return this.deps.talkie.decide(call.agentId, request.actionId, request.decision, { paramsHash: request.paramsHash });
  }

  /** A provider `error` event the renderer read on the call's channel: logged, at most 20 per call. */
  providerError(
    callId: string,
    report: {
      type?: string | undefined;
      code?: string | undefined;
      message: string;
      param?: string | undefined;
      eventId?: string | undefined;
      answersUpdate: boolean;
    },
  ): { logged: boolean } {
    const call = this.call(callId);
    if (call.providerErrors >= maxProviderErrorsLogged) return { logged: false };
    call.providerErrors += 1;
    const kind = [report.type, report.code].filter((part) => part !== undefined).join('/') || 'error';
    const about = report.answersUpdate
      ? `, refusing the turn-detection update ${report.eventId ?? ''}`
      : report.eventId === undefined
        ? ''
        : `, answering ${report.eventId}`;
    const at = report.param === undefined ? '' : ` at ${report.param}`;
    const last = call.providerErrors === maxProviderErrorsLogged ? ' (the last one logged for this call)' : '';
    this.deps.log.warn('talkie', `voice call ${callId}: the speech provider reported ${kind}${at}${about}: ${report.message}${last}`);
    return { logged: true };
  }

  /** Rules 19–20: each final transcript item once. */
  async transcript(callId: string, request: { role: 'user' | 'assistant'; text: string; itemId: string }): Promise<{ stored: boolean }> {
    const call = this.call(callId);
    if (call.transcripts.has(request.itemId)) return { stored: false };
    if (call.transcripts.size >= maxTranscriptsPerCall) throw new ServiceError('not_allowed', 'This voice call has sent too many transcripts.');
    call.transcripts.add(request.itemId);
    try {
      await this.deps.talkie.voiceCall(call.agentId, () => call.client.voiceTranscript(call.session.voiceSessionId, request));
    } catch (error) {
      call.transcripts.delete(request.itemId); // not stored: a retry may send it
      throw error;
    }
    return { stored: true };
  }

  /** Rules 21, 23: a periodic report; the server's remainingSeconds wins. */
  async usage(callId: string, seconds: number): Promise<{ remainingSeconds: number }> {
    const call = this.call(callId);
    call.lastSeconds = Math.max(call.lastSeconds, seconds);
    return this.report(call, call.lastSeconds, false);
  }

  /** Rule 22: the final usage, once; the call (and any secret left) is forgotten first, so a second end sends nothing. */
  async end(callId: string, seconds?: number): Promise<{ ended: boolean; remainingSeconds?: number }> {
    const call = this.calls.get(callId);
    if (!call) return { ended: false };
    this.calls.delete(callId);
    this.deps.shortcut?.disarm(callId);
    call.clientSecret = undefined;
    try {
      const { remainingSeconds } = await this.report(call, Math.max(call.lastSeconds, seconds ?? 0), true);
      return { ended: true, remainingSeconds };
    } catch (error) {
      this.deps.log.warn('talkie', `voice call ${callId}: the final usage report failed`, error);
      return { ended: true };
    }
  }

  /**
   * The call's global shortcut: taken only for a live, connected call of this service, given back on
   * request and when the call ends.
   */
  shortcut(callId: string, armed: boolean): CallShortcutState {
    const shortcut = this.deps.shortcut;
    if (!armed) return shortcut ? shortcut.disarm(callId) : { state: 'off' };
    const call = this.call(callId);
    if (!call.connected) throw new ServiceError('not_allowed', 'The shortcut works once the call is connected.');
    return shortcut ? shortcut.arm(callId) : { state: 'unavailable' };
  }

  /** How many voice calls are open (the updater waits while one is). */
  openCalls(): number {
    return this.calls.size;
  }

  /** App quit or the window closed: every open call ends with its last reported seconds. */
  async endAll(): Promise<number> {
    const open = [...this.calls.keys()];
    await Promise.all(open.map((callId) => this.end(callId)));
    return open.length;
  }

  private async report(call: VoiceCall, seconds: number, final: boolean): Promise<{ remainingSeconds: number }> {
    const json = await this.deps.talkie.voiceCall(call.agentId, () => call.client.voiceUsage(call.session.voiceSessionId, { seconds, final }));
    const parsed = usageAnswerSchema.safeParse(json);
    if (!parsed.success) throw new ServiceError('protocol_error', 'The server sent a voice usage answer the app cannot read.', undefined, true);
    return { remainingSeconds: Math.max(-24 * 3600, Math.min(24 * 3600, Math.round(parsed.data.remainingSeconds))) };
  }

  private call(callId: string): VoiceCall {
    const call = this.calls.get(callId);
    if (!call) throw new ServiceError('not_found', 'This voice call has ended; start a new one.');
    return call;
  }
}
