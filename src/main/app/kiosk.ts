import type { KioskResetResponse } from '../../shared/device-policy/ipc-schemas';
import { ServiceError } from '../../shared/base/errors';
import type { AgentCallService } from '../agentcall/agentcall-service';
import type { ConversationService } from '../conversation/conversation-service';
import type { HandlerTable } from '../ipc/handler-table';
import type { Logger } from '../platform/logger';
import type { PhotoService } from '../photo/photo-service';
import type { VoiceService } from '../talkie/voice-service';
import type { AdminSession } from '../policy/admin-session';
import type { SettingsService } from '../store/settings-service';
import type { EndpointApprovals } from '../talkie/endpoint-approvals';
import type { UiMemory } from './ui-memory';

export interface KioskDeps {
  /** Kiosk mode (`"kiosk": true` in the device policy, or `--kiosk`); otherwise every kiosk method is refused. */
  kiosk: boolean;
  /** The policy's start agent (its id in the agent list), if it names one. */
  startAgentId: string | undefined;
  voice: Pick<VoiceService, 'endAll'>;
  /** Every conversation, whatever its protocol, ends through this one interface. */
  conversations: Pick<ConversationService, 'resetAll'>;
  agentCall: Pick<AgentCallService, 'sessionAgent' | 'sendObservation'>;
  photos: Pick<PhotoService, 'discardAll'>;
  uiMemory: Pick<UiMemory, 'clear'>;
  admin: Pick<AdminSession, 'lock'>;
  /** What visitors answer per agent (accepted endpoints, voice consents): put back as the kiosk started (`visitorAnswers`). */
  answers?: { restore(): Promise<void> };
  log: Logger;
  /** Told after every reset that ended everything (the updater's moment, issue #28). */
  onReset?: () => void;
}

/**
 * Per-agent answers a visitor gives that would otherwise greet the next visitor as given: a Talkie
 * server's endpoints on other sites accepted, consent to where a voice call's audio goes. Taken when
 * the kiosk starts; every reset puts them back. (An agent's connection settings — tokens,
 * forwardedProps — are not a visitor's to change at all: guardAgentSettings.)
 */
export function visitorAnswers(
  settings: Pick<SettingsService, 'voiceConsents' | 'restoreVoiceConsents'>,
  approvals: Pick<EndpointApprovals, 'snapshot' | 'restore'>,
): { restore(): Promise<void> } {
  const consents = settings.voiceConsents();
  const accepted = approvals.snapshot();
  return {
    restore: async () => {
      await Promise.all([settings.restoreVoiceConsents(consents), approvals.restore(accepted)]);
    },
  };
}

/**
 * The kiosk's reset (issue #18), in one place: the idle reset and the start screen ask for it, and
 * main decides what a reset is. Voice calls hang up (with their last usage), then every conversation
 * ends through the conversation service, whatever its protocol (each protocol ends what it had going
 * — AgentCall sessions with `session.end`, Talkie runs cancelled on the server, AG-UI runs stopped —
 * and forgets what it kept: Talkie's search texts and proposals, the AG-UI thread files, held tags);
 * then staged photos (bytes zeroed) and the UI memory's screen and drafts go, what visitors answered per
 * agent is put back as the kiosk started (`visitorAnswers`); an admin unlock ends too.
 */
export class Kiosk {
  private running: Promise<KioskResetResponse> | undefined;

  constructor(private readonly deps: KioskDeps) {}

  /** Two callers at once (the countdown and a reload) share one reset. */
  reset(): Promise<KioskResetResponse> {
    this.refuseOutsideKiosk();
    return (this.running ??= this.wipe().finally(() => (this.running = undefined)));
  }

  startTag(request: { sessionKey: string; scanId: string; objectRef: string }): { sent: true } {
    this.refuseOutsideKiosk();
    const { startAgentId } = this.deps;
    if (startAgentId === undefined) throw new ServiceError('not_allowed', 'The device policy names no start agent.');
    if (this.deps.agentCall.sessionAgent(request.sessionKey) !== startAgentId)
      throw new ServiceError('not_allowed', 'The start tag goes only to a session of the start agent.');
    // The tag must be one the reader saw (main holds it); the observation's own rules apply.
    return this.deps.agentCall.sendObservation(request.sessionKey, { scan: { scanId: request.scanId, objectRef: request.objectRef }, intent: 'identify' });
  }

  private async wipe(): Promise<KioskResetResponse> {
    const { voice, conversations, photos, uiMemory, admin, log } = this.deps;
    // Settings close first: the next person needs the admin PIN again.
    admin.lock();
    const started = performance.now();
    // Counted before the sessions end (an AgentCall session's end drops them too).
    const discardedPhotos = photos.discardAll();
    // Calls first (the microphone's session), then the conversations; each one's failure does not stop the others.
    const settled = await Promise.allSettled([voice.endAll(), conversations.resetAll(), this.deps.answers?.restore()]);
    const calls = settled[0].status === 'fulfilled' ? settled[0].value : 0;
    const reset = settled[1].status === 'fulfilled' ? settled[1].value : { ended: 0, removedFiles: 0, failures: [] };
    const failures = [...settled.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])), ...reset.failures];
    for (const failure of failures) log.warn('kiosk', 'a part of the reset failed', failure);
    photos.discardAll();
    uiMemory.clear();
    const answer = { ended: calls + reset.ended, discardedPhotos, removedFiles: reset.removedFiles };
    log.info(
      'kiosk',
      `reset in ${Math.round(performance.now() - started)} ms: ${answer.ended} ended, ${answer.discardedPhotos} photos, ${answer.removedFiles} files`,
    );
    // A part that failed is said, after the rest was wiped.
    const failed = failures[0];
    if (failed !== undefined) throw new ServiceError('internal', `The reset could not end everything: ${(failed as Error)?.message ?? String(failed)}`);
    this.deps.onReset?.();
    return answer;
  }

  private refuseOutsideKiosk(): void {
    if (!this.deps.kiosk) throw new ServiceError('not_allowed', 'Only a kiosk resets its sessions (device policy "kiosk": true, or --kiosk).');
  }
}

export function kioskHandlers(kiosk: Kiosk): HandlerTable<'kiosk'> {
  return {
    'kiosk.reset': () => kiosk.reset(),
    'kiosk.startTag': (request) => kiosk.startTag(request),
  };
}
