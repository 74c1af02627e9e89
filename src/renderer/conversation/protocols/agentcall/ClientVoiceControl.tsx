import { useEffect, useRef, type ReactNode } from 'react';
import { recognitionModelsUrl } from '../../../../shared/speech/ipc-schemas';
import { ErrorAlert } from '../../../components/ErrorText';
import { useI18n } from '../../../i18n/I18nProvider';
import { usePolicyView } from '../../../kiosk/policy-context';
import { CallBar, CallNote } from '../../../voice/CallBar';
import type { CallPhase } from '../../../voice/call-phase';
import { CallControlGroup, MicrophoneProblemText } from '../../../voice/CallControlGroup';
import { useHeldWhile } from '../../../voice/speaking-hold';
import { MicrophoneIcon } from './icons';
import type { ClientListening } from './useClientListening';

/** Talk by voice, in the composer's row (client-owned voice on a WebSocket session). */
export function TalkButton({ listening }: { listening: ClientListening }) {
  const { t } = useI18n();
  return (
    <button type="button" className="button button--secondary agentcall-tool call-control__call" title={t('agentcall.voice.talk')} onClick={listening.start}>
      <MicrophoneIcon /> <span className="agentcall-tool__label">{t('agentcall.voice.talk')}</span>
    </button>
  );
}

/**
 * Client-owned voice on a WebSocket session, above the composer while it listens: the shared call bar
 * (what it does — Speaking held between sentences —, the level, Mute, hands-free or push to talk, the
 * microphone, and Stop in Hang up's place) and whether speaking over the agent interrupts it (the
 * setting lives in Settings → Speech); with the basic English recognizer (no model imported), that it
 * is basic. Off, it shows only why it could not listen, if it could not; without a recognizer it says
 * in one sentence what to import and where, and the keyboard (the composer, `onType`) takes the focus.
 */
export function ClientVoiceControl({
  listening,
  agentSpeaking,
  runActive,
  onType,
  readAloud,
}: {
  listening: ClientListening;
  agentSpeaking: boolean;
  runActive: boolean;
  onType: () => void;
  /** Read answers aloud, on the bar while it listens. */
  readAloud?: ReactNode;
}) {
  const { t } = useI18n();
  const {
    state,
    mode,
    muted,
    hearing,
    talking,
    working,
    level,
    deviceId,
    recognizer,
    problem,
    bargeIn,
    stop,
    setMuted,
    setMode,
    talk,
    cancelTalk,
    selectMicrophone,
  } = listening;
  const on = state !== 'off';
  const speaking = useHeldWhile(agentSpeaking);
  let phase: CallPhase = 'connecting';
  if (state === 'on') phase = hearing || talking ? 'hearing' : speaking ? 'speaking' : working || runActive ? 'thinking' : 'listening';

  // Nothing can recognise speech: the keyboard is the way to go on (each time Talk by voice finds none,
  // not at every render: the screen hands a new onType each time).
  const typeRef = useRef(onType);
  useEffect(() => {
    typeRef.current = onType;
  }, [onType]);
  useEffect(() => {
    if (problem?.kind === 'noRecognizer') typeRef.current();
  }, [problem]);

  // A kiosk's visitor cannot import a model: they are told to type, no more.
  const { kiosk } = usePolicyView();
  const failure =
    problem === undefined ? null : problem.kind === 'noRecognizer' ? (
      <p className="error-text" role="alert">
        {kiosk ? t('kiosk.voiceUnavailable') : t('agentcall.voice.noRecognizer', { url: recognitionModelsUrl })}
      </p>
    ) : problem.kind === 'transcribe' ? (
      <ErrorAlert summary={t('agentcall.voice.notHeard')} error={problem.error} />
    ) : (
      <MicrophoneProblemText problem={problem.problem} />
    );
  if (!on && failure === null) return null;

  return (
    <CallControlGroup live={on} label={t('agentcall.voice.label')} failure={failure}>
      {on ? (
        <CallBar
          phase={phase}
          level={level}
          muted={muted}
          onMute={setMuted}
          mode={{ value: mode, onChange: setMode }}
          talk={mode === 'push-to-talk' && state === 'on' ? { talking, onTalk: talk, onCancel: cancelTalk } : undefined}
          deviceId={deviceId}
          onMicrophone={selectMicrophone}
          onHangUp={stop}
          after={
            <>
              {readAloud}
              {recognizer === 'basic' ? <CallNote text={t('agentcall.voice.basic')} /> : null}
              <CallNote text={t(bargeIn.on ? 'agentcall.voice.bargeInOn' : 'agentcall.voice.bargeInOff')} />
            </>
          }
        />
      ) : null}
    </CallControlGroup>
  );
}
