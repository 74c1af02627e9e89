import { useEffect, useRef } from 'react';
import { ErrorAlert } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import { CallBar, type CallPhase } from '../../voice/CallBar';
import { CallControlGroup, MicrophoneProblemText } from '../../voice/CallControlGroup';
import type { AgentCallCallHandle } from './useAgentCallCall';

/** Above this agent level the agent is speaking (its voice arrives over the call's audio track). */
const agentSpeakingLevel = 0.02;

/**
 * The call of an agent-owned-voice agent (agentcall-webrtc-0.1): Call, then the shared call bar —
 * what the call does, the microphone level, Mute, Hold to talk when the card supports explicit turns
 * (Space or Enter while it has focus; Esc, or the window losing focus, drops the turn), the
 * microphone, Hang up — and the <audio> element the agent's voice plays in.
 */
export function AgentCallCallControl({ call, name, runActive }: { call: AgentCallCallHandle; name: string; runActive: boolean }) {
  const { t } = useI18n();
  const { state, problem, pushToTalk, talking, muted, level, agentLevel, deviceId, audioElement, start, hangUp, setMuted, talk, cancelTalk, selectMicrophone } = call;
  const callButton = useRef<HTMLButtonElement>(null);
  const muteButton = useRef<HTMLButtonElement>(null);
  const talkButton = useRef<HTMLButtonElement>(null);
  const live = state !== 'idle';

  // The control that replaced the one with focus takes it: Hold to talk (or Mute) when connected, Call when it ends.
  // (Connected, the bar moves into the conversation: a new instance, which looks from 'idle'.)
  const wasLive = useRef<typeof state>('idle');
  useEffect(() => {
    if (wasLive.current === state) return;
    wasLive.current = state;
    const lost = document.activeElement === document.body || document.activeElement === null || document.activeElement === callButton.current;
    if (!lost) return;
    if (state === 'connected') (talkButton.current ?? muteButton.current)?.focus();
    else if (state === 'idle') callButton.current?.focus();
  }, [state]);

  let phase: CallPhase = 'connecting';
  if (state === 'connected') phase = talking ? 'hearing' : agentLevel > agentSpeakingLevel ? 'speaking' : runActive ? 'thinking' : 'listening';

  const failure =
    problem === undefined ? null : problem.kind === 'refused' || problem.kind === 'turn' ? (
      <ErrorAlert summary={t(problem.kind === 'refused' ? 'voice.startFailed' : 'voice.turnFailed')} error={problem.error} />
    ) : (
      <MicrophoneProblemText problem={problem.problem} />
    );

  return (
    <CallControlGroup live={live} label={t('voice.controlsLabel')} failure={failure}>
      <audio ref={audioElement} autoPlay hidden />
      {live ? (
        <CallBar
          phase={phase}
          level={level}
          muted={muted}
          onMute={setMuted}
          talk={state === 'connected' && pushToTalk ? { talking: talking, onTalk: talk, onCancel: cancelTalk } : undefined}
          deviceId={deviceId}
          onMicrophone={selectMicrophone}
          onHangUp={hangUp}
          muteRef={muteButton}
          talkRef={talkButton}
        />
      ) : (
        <>
          <button ref={callButton} type="button" className="button button--primary call-control__call" aria-label={t('voice.callNamed', { name })} onClick={start}>
            {t('voice.call')}
          </button>
          <p className="muted call-control__note">{t('agentcall.call.hint')}</p>
        </>
      )}
    </CallControlGroup>
  );
}
