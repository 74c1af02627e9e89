import type { KioskResetResponse } from '../../shared/device-policy/ipc-schemas';
import { ServiceError } from '../../shared/ipc/errors';
import type { AgentCallService } from '../agentcall/agentcall-service';
import type { AguiService } from '../agui/agui-service';
import type { HandlerTable } from '../ipc/handler-table';
import type { Logger } from '../platform/logger';
import type { PhotoService } from '../photo/photo-service';
import type { TalkieService } from '../talkie/talkie-service';
import type { VoiceService } from '../talkie/voice-service';
import type { AdminSession } from '../policy/admin-session';
import type { UiMemory } from './ui-memory';

export interface KioskDeps {
  /** Kiosk mode (`"kiosk": true` in the device policy, or `--kiosk`); otherwise every kiosk method is refused. */
  kiosk: boolean;
  /** The policy's start agent (its id in the agent list), if it names one. */
  startAgentId: string | undefined;
  voice: Pick<VoiceService, 'endAll'>;
  agentCall: Pick<AgentCallService, 'dispose' | 'sessionAgent' | 'sendObservation'>;
  talkie: Pick<TalkieService, 'cancelAll'>;
  agui: Pick<AguiService, 'resetAll'>;
  photos: Pick<PhotoService, 'discardAll'>;
  uiMemory: Pick<UiMemory, 'clear'>;
  admin: Pick<AdminSession, 'lock'>;
  log: Logger;
}

/**
 * The kiosk's reset (issue #18), in one place: the idle reset and the start screen ask for it, and
 * main decides what a reset is. Every session ends (voice calls hung up with their last usage,
 * AgentCall sessions with `session.end`, Talkie runs cancelled on the server, AG-UI runs stopped),
 * then what main kept of it goes: staged photos (bytes zeroed), held tags, the UI memory's screen
 * and drafts, Talkie's search texts and proposals, and the AG-UI thread files on disk; an admin
 * unlock ends too.
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
    if (this.deps.agentCall.sessionAgent(request.sessionKey) !== startAgentId) throw new ServiceError('not_allowed', 'The start tag goes only to a session of the start agent.');
    // The tag must be one the reader saw (main holds it); the observation's own rules apply.
    return this.deps.agentCall.sendObservation(request.sessionKey, { scan: { scanId: request.scanId, objectRef: request.objectRef }, intent: 'identify' });
  }

  private async wipe(): Promise<KioskResetResponse> {
    const { voice, agentCall, talkie, agui, photos, uiMemory, admin, log } = this.deps;
    // Settings close first: the next person needs the admin PIN again.
    admin.lock();
    const started = performance.now();
    // Counted before the sessions end (an AgentCall session's end drops them too).
    const discardedPhotos = photos.discardAll();
    // Calls first (the microphone's session), then the sessions and runs; each one's failure does not stop the others.
    const settled = await Promise.allSettled([voice.endAll(), agentCall.dispose(), talkie.cancelAll(), agui.resetAll()]);
    const [calls, sessions, runs, aguiReset] = settled.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as [number?, number?, number?, { runs: number; files: number }?];
    for (const result of settled) if (result.status === 'rejected') log.warn('kiosk', 'a part of the reset failed', result.reason);
    photos.discardAll();
    uiMemory.clear();
    const answer = { ended: (calls ?? 0) + (sessions ?? 0) + (runs ?? 0) + (aguiReset?.runs ?? 0), discardedPhotos, removedFiles: aguiReset?.files ?? 0 };
    log.info('kiosk', `reset in ${Math.round(performance.now() - started)} ms: ${answer.ended} ended, ${answer.discardedPhotos} photos, ${answer.removedFiles} files`);
    // A part that failed is said, after the rest was wiped.
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw new ServiceError('internal', `The reset could not end everything: ${(failed.reason as Error)?.message ?? String(failed.reason)}`);
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
