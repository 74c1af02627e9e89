import { useEffect, useRef } from 'react';
import { ErrorAlert } from '../../../components/ErrorText';
import { useI18n } from '../../../i18n/I18nProvider';
import { CallBar } from '../../../voice/CallBar';
import type { CallPhase } from '../../../voice/call-phase';
import { CallControlGroup, MicrophoneProblemText } from '../../../voice/CallControlGroup';
import { useHeldWhile } from '../../../voice/speaking-hold';
import { PhoneIcon } from './icons';
import type { AgentCallCallHandle } from './useAgentCallCall';

/** Above this agent level the agent is speaking (its voice arrives over the call's audio track). */
const agentSpeakingLevel = 0.02;

/** Call, in the composer's row: a call to an agent-owned-voice agent (agentcall-webrtc-0.1) starts from this click. */
export function CallButton({ call, name }: { call: AgentCallCallHandle; name: string }) {
  const { t } = useI18n();
  return (
    <button
      type="button"
      className="button button--primary agentcall-tool call-control__call"
      aria-label={t('voice.callNamed', { name })}
      title={t('agentcall.call.hint')}
      onClick={call.start}
    >
      <PhoneIcon /> <span className="agentcall-tool__label">{t('voice.call')}</span>
    </button>
  );
}

/**
 * The call of an agent-owned-voice agent, above the composer while it is on: the shared call bar —
 * what the call does (Speaking held until the agent's voice has been quiet for a moment, so it does
 * not flicker between sentences), the microphone level, Mute, Hold to talk when the card supports
 * explicit turns (Space or Enter while it has focus; Esc, or the window losing focus, drops the
 * turn), the microphone, Hang up — and the <audio> element the agent's voice plays in. Off, it shows
 * only why the last call could not be made, if it could not.
 */
export function AgentCallCallControl({ call, runActive }: { call: AgentCallCallHandle; runActive: boolean }) {
  const { t } = useI18n();
  const { state, problem, pushToTalk, talking, muted, level, agentLevel, deviceId, audioElement, hangUp, setMuted, talk, cancelTalk, selectMicrophone } = call;
  const muteButton = useRef<HTMLButtonElement>(null);
  const talkButton = useRef<HTMLButtonElement>(null);
  const live = state !== 'idle';
  const agentSpeaking = useHeldWhile(state === 'connected' && agentLevel > agentSpeakingLevel);

  // Connected, Hold to talk (or Mute) takes the focus the Call button had (it went away when the call started).
  useEffect(() => {
    if (state !== 'connected') return;
    const active = document.activeElement;
    if (active === null || active === document.body) (talkButton.current ?? muteButton.current)?.focus();
  }, [state]);

  let phase: CallPhase = 'connecting';
  if (state === 'connected') phase = talking ? 'hearing' : agentSpeaking ? 'speaking' : runActive ? 'thinking' : 'listening';

  const failure =
    problem === undefined ? null : problem.kind === 'refused' || problem.kind === 'turn' ? (
      <ErrorAlert summary={t(problem.kind === 'refused' ? 'voice.startFailed' : 'voice.turnFailed')} error={problem.error} />
    ) : (
      <MicrophoneProblemText problem={problem.problem} />
    );
  if (!live && failure === null) return null;

  return (
    <CallControlGroup live={live} label={t('voice.controlsLabel')} failure={failure}>
      {live ? (
        <>
          <audio ref={audioElement} autoPlay hidden />
          <CallBar
            phase={phase}
            level={level}
            muted={muted}
            onMute={setMuted}
            talk={state === 'connected' && pushToTalk ? { talking, onTalk: talk, onCancel: cancelTalk } : undefined}
            deviceId={deviceId}
            onMicrophone={selectMicrophone}
            onHangUp={hangUp}
            muteRef={muteButton}
            talkRef={talkButton}
          />
        </>
      ) : null}
    </CallControlGroup>
  );
}
