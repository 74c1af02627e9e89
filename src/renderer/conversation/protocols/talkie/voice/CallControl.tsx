import { usePolicyView } from '../../../../kiosk/policy-context';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../../../../shared/ipc/api';
import { voiceConsentGiven } from '../../../../../shared/settings/settings';
import type { ServerView } from '../../../../../shared/talkie/ipc-schemas';
import type { CallMode, CallView } from '../../../../../shared/talkie/voice/voice-call';
import { ErrorAlert } from '../../../../components/ErrorText';
import { useSettings } from '../../../../hooks/useApiData';
import { call } from '../../../../hooks/useLiveResource';
import { useI18n } from '../../../../i18n/I18nProvider';
import type { MessageKey } from '../../../../i18n/strings';
import { formatCountdown } from '../../../../components/format';
import type { VoiceCall } from './useVoiceCall';
import { VoiceConsentDialog } from './VoiceConsentDialog';
import { CallBar, CallNote, modeKeys } from '../../../../voice/CallBar';
import { CallControlGroup, MicrophoneProblemText } from '../../../../voice/CallControlGroup';
import './voice.css';

export const endedKeys: Record<NonNullable<CallView['ended']>, MessageKey> = {
  user: 'voice.ended.user',
  left: 'voice.ended.left',
  time_limit: 'voice.ended.time_limit',
  quota: 'voice.ended.quota',
  connection_lost: 'voice.ended.connection_lost',
  error: 'voice.ended.error',
};

/**
 * A Talkie 1 voice call's controls (§10) on the conversation screen: `tool`, the Call button in the
 * composer's row (only when the server offers voice; greyed out with the reason when Talkie 1 §4 status says
 * voice is off), and `bar`, above the composer, the labelled group of the call — before the first
 * call with a server the consent dialog (Talkie 1 §12); in a call, what it is doing (Connecting…, Listening,
 * Thinking…, Speaking), the microphone level, Mute, the mode (hands-free, or push to talk with a
 * Hold-to-talk button: hold it, or hold Space while it has focus), the microphone, the time left
 * (with the warning) and Hang up; after it, why it ended or could not start. The element that plays
 * the provider's voice is always there. State changes are announced by the screen's announcer.
 */
export function useCallControls({
  api,
  view,
  switchedOff,
  voice,
  threadId,
}: {
  api: AgentDeskApi;
  view: ServerView | undefined;
  switchedOff: boolean;
  voice: VoiceCall;
  threadId: string | undefined;
}): { tool: ReactNode; bar: ReactNode } {
  const { t } = useI18n();
  const { voiceMode: forcedMode, voice: voiceAllowed } = usePolicyView();
  const settings = useSettings(api);
  const [asking, setAsking] = useState(false);
  const reasonId = useId();
  const callButton = useRef<HTMLButtonElement>(null);
  const muteButton = useRef<HTMLButtonElement>(null);
  const talkButton = useRef<HTMLButtonElement>(null);
  const {
    view: shown,
    starting,
    startError,
    level,
    deviceId,
    unencrypted,
    shortcut,
    audioElement,
    start,
    hangUp,
    setMuted,
    setMode: changeMode,
    talk,
    selectMicrophone,
  } = voice;
  const inCall = shown !== undefined && shown.phase !== 'ended';

  // The control that replaced the one with focus takes it: Mute when the call starts, Call when it ends.
  const wasInCall = useRef(inCall);
  useEffect(() => {
    if (wasInCall.current === inCall) return;
    // Only when the focus was lost with the control that went away.
    const lost = document.activeElement === document.body || document.activeElement === null;
    wasInCall.current = inCall;
    if (!lost) return;
    (inCall ? muteButton : callButton).current?.focus();
  }, [inCall]);

  // Choosing push to talk puts the focus on Hold to talk, so Space works at once.
  const focusTalk = useRef(false);
  const talkShown = inCall && shown.mode === 'push-to-talk';
  useEffect(() => {
    if (!talkShown || !focusTalk.current) return;
    focusTalk.current = false;
    talkButton.current?.focus();
  }, [talkShown]);

  // The provider's voice: an element that plays the remote track (Chromium decodes it only then).
  const audio = <audio ref={audioElement} autoPlay hidden />;
  // Where the device policy turns voice off, no Call is offered (not one greyed out: issue #27).
  if (view === undefined || !view.voice.offered || !voiceAllowed) return { tool: null, bar: audio };
  const server = view;
  const hosts = view.voice.signalingHosts;
  const consented = settings.state.status === 'ready' && voiceConsentGiven(settings.state.value, view, hosts);

  function onCall() {
    if (consented) start(threadId);
    else setAsking(true);
  }

  function onContinue() {
    setAsking(false);
    // Still inside the click: the call starts first (a gesture method), then the consent is kept.
    start(threadId);
    void call(() => api.settings.update({ patch: { voiceConsent: { serverId: server.serverId, issuer: server.issuer, signalingHosts: [...hosts] } } })).then(
      (result) => {
        if (result.ok) settings.set(result.value);
      },
    );
  }

  function setMode(mode: CallMode) {
    changeMode(mode);
    focusTalk.current = mode === 'push-to-talk';
  }

  const failure =
    startError === undefined ? null : startError.kind === 'ipc' ? (
      <ErrorAlert summary={t('voice.startFailed')} error={startError.error} />
    ) : startError.kind === 'microphone' ? (
      <MicrophoneProblemText problem={startError.problem} />
    ) : (
      <p className="error-text" role="alert">
        {t('voice.connectionFailed')}
      </p>
    );

  const tool = inCall ? null : (
    <button
      ref={callButton}
      type="button"
      className="button button--secondary call-control__call"
      aria-label={t('voice.callNamed', { name: view.name })}
      aria-describedby={switchedOff ? reasonId : undefined}
      aria-busy={starting || undefined}
      disabled={switchedOff || starting}
      onClick={onCall}
    >
      {starting ? t('voice.starting') : t('voice.call')}
    </button>
  );

  let body: ReactNode;
  if (!inCall) {
    const ended = shown?.ended !== undefined && startError === undefined ? <CallNote text={t(endedKeys[shown.ended])} /> : null;
    const off = switchedOff ? (
      <p id={reasonId} className="muted call-control__note">
        {t('voice.switchedOff')}
      </p>
    ) : null;
    body =
      off || ended ? (
        <>
          {off}
          {ended}
        </>
      ) : null;
  } else {
    const time = formatCountdown(shown.timeLeftSeconds * 1000);
    body = (
      <CallBar
        phase={shown.phase === 'listening' && shown.userSpeaking ? 'hearing' : shown.phase === 'ended' ? 'connecting' : shown.phase}
        level={shown.microphoneOpen ? level : 0}
        muted={shown.muted}
        onMute={setMuted}
        // The device policy may set the mode: then the other is not offered, and the bar says so.
        mode={forcedMode ? undefined : { value: shown.mode, onChange: setMode }}
        talk={shown.mode === 'push-to-talk' ? { talking: shown.talking, onTalk: talk } : undefined}
        deviceId={deviceId}
        onMicrophone={selectMicrophone}
        onHangUp={hangUp}
        muteRef={muteButton}
        talkRef={talkButton}
        after={
          <>
            {shortcut?.state === 'armed' ? (
              <CallNote text={t(shown.mode === 'push-to-talk' ? 'voice.shortcutTalk' : 'voice.shortcutMute', { keys: shortcut.label })} />
            ) : shortcut?.state === 'taken' ? (
              <CallNote text={t('voice.shortcutTaken', { keys: shortcut.label })} />
            ) : null}
            {shown.providerError !== undefined ? <CallNote text={t('voice.providerError', { message: shown.providerError })} /> : null}
            {/* Talkie 1 §10.1 requires https: a call the development setting let through on http:// says so. */}
            {unencrypted ? <CallNote text={t('voice.unencrypted')} muted={false} /> : null}
          </>
        }
      >
        {forcedMode ? <CallNote text={t('voice.modeForced', { mode: t(modeKeys[forcedMode]) })} /> : null}
        <span className={`call-control__time${shown.warning ? ' call-control__time--warning' : ''}`}>
          {t(shown.warning ? 'voice.timeWarning' : 'voice.timeLeft', { time })}
        </span>
      </CallBar>
    );
  }

  const bar = (
    <>
      {audio}
      {body !== null || failure !== null ? (
        <CallControlGroup live={inCall} label={t('voice.controlsLabel')} failure={failure}>
          {body}
        </CallControlGroup>
      ) : null}
      {asking ? <VoiceConsentDialog serverName={view.name} hosts={hosts} onContinue={onContinue} onCancel={() => setAsking(false)} /> : null}
    </>
  );
  return { tool, bar };
}
