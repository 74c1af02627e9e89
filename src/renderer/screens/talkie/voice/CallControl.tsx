import { usePolicyView } from '../../../kiosk/policy-context';
import { useEffect, useId, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import { voiceConsentGiven } from '../../../../shared/settings/settings';
import type { ServerView } from '../../../../shared/talkie/ipc-schemas';
import type { CallMode, CallView } from '../../../../shared/talkie/voice/voice-call';
import { ErrorAlert } from '../../../components/ErrorText';
import { useSettings } from '../../../hooks/useApiData';
import { call } from '../../../hooks/useLiveResource';
import { useMediaDevices } from '../../../hooks/useMediaDevices';
import { useI18n } from '../../../i18n/I18nProvider';
import type { MessageKey } from '../../../i18n/strings';
import { formatCountdown } from '../../../components/format';
import type { StartError, VoiceCall } from './useVoiceCall';
import { VoiceConsentDialog } from './VoiceConsentDialog';
import './voice.css';

const phaseKeys: Record<CallView['phase'], MessageKey> = {
  connecting: 'voice.phase.connecting',
  listening: 'voice.phase.listening',
  thinking: 'voice.phase.thinking',
  speaking: 'voice.phase.speaking',
  ended: 'voice.phase.ended',
};

export const endedKeys: Record<NonNullable<CallView['ended']>, MessageKey> = {
  user: 'voice.ended.user',
  left: 'voice.ended.left',
  time_limit: 'voice.ended.time_limit',
  quota: 'voice.ended.quota',
  connection_lost: 'voice.ended.connection_lost',
  error: 'voice.ended.error',
};

const microphoneKeys: Record<Extract<StartError, { kind: 'microphone' }>['problem'], MessageKey> = {
  denied: 'voice.mic.denied',
  noMicrophone: 'voice.mic.noMicrophone',
  busy: 'voice.mic.busy',
  unavailable: 'voice.mic.unavailable',
  failed: 'voice.mic.failed',
};

export const modeKeys: Record<CallMode, MessageKey> = { 'hands-free': 'voice.mode.handsFree', 'push-to-talk': 'voice.mode.pushToTalk' };

/** Space or Enter on the focused Hold-to-talk button, the key push to talk uses (see the README). */
const isTalkKey = (key: string) => key === ' ' || key === 'Enter';

/**
 * The voice call bar above the composer (Talkie §10). Before a call: Call (only when the server
 * offers voice; greyed out with the reason when §4 status says voice is off), and before the first
 * call with a server the consent dialog (§12). In a call: what the call is doing (Connecting…,
 * Listening, Thinking…, Speaking), the microphone level, Mute, the mode (hands-free, or push to talk
 * with a Hold-to-talk button: hold it, or hold Space while it has focus), the microphone, the time
 * left (with the warning) and Hang up. State changes are announced by the chat's live region.
 */
export function CallControl({ api, view, switchedOff, voice, threadId }: { api: AgentDeskApi; view: ServerView; switchedOff: boolean; voice: VoiceCall; threadId: string | undefined }) {
  const { t } = useI18n();
  const forcedMode = usePolicyView().voiceMode;
  const settings = useSettings(api);
  const [asking, setAsking] = useState(false);
  const reasonId = useId();
  const hintId = useId();
  const modeId = useId();
  const microphoneId = useId();
  const callButton = useRef<HTMLButtonElement>(null);
  const muteButton = useRef<HTMLButtonElement>(null);
  const talkButton = useRef<HTMLButtonElement>(null);
  const { view: shown, starting, startError, level, deviceId, shortcut, audioElement, start, hangUp, setMuted, setMode: changeMode, talk, selectMicrophone } = voice;
  const inCall = shown !== undefined && shown.phase !== 'ended';
  const media = useMediaDevices(inCall && shown.phase !== 'connecting');

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

  if (!view.voice.offered) return null;
  const hosts = view.voice.signalingHosts;
  const consented = settings.state.status === 'ready' && voiceConsentGiven(settings.state.value, view.serverId, hosts);

  function onCall() {
    if (consented) start(threadId);
    else setAsking(true);
  }

  function onContinue() {
    setAsking(false);
    // Still inside the click: the call starts first (a gesture method), then the consent is kept.
    start(threadId);
    void call(() => api.settings.update({ patch: { voiceConsent: { serverId: view.serverId, signalingHosts: [...hosts] } } })).then((result) => {
      if (result.ok) settings.set(result.value);
    });
  }

  function setMode(mode: CallMode) {
    changeMode(mode);
    focusTalk.current = mode === 'push-to-talk';
  }

  const failure =
    startError === undefined ? null : startError.kind === 'ipc' ? (
      <ErrorAlert summary={t('voice.startFailed')} error={startError.error} />
    ) : (
      <p className="error-text" role="alert">
        {t(startError.kind === 'microphone' ? microphoneKeys[startError.problem] : 'voice.connectionFailed')}
      </p>
    );

  let body;
  if (!inCall) {
    body = (
      <>
        <button
          ref={callButton}
          type="button"
          className="button button--primary call-control__call"
          aria-label={t('voice.callNamed', { name: view.name })}
          aria-describedby={switchedOff ? reasonId : undefined}
          aria-busy={starting || undefined}
          disabled={switchedOff || starting}
          onClick={onCall}
        >
          {starting ? t('voice.starting') : t('voice.call')}
        </button>
        {switchedOff ? (
          <p id={reasonId} className="muted call-control__note">
            {t('voice.switchedOff')}
          </p>
        ) : null}
        {shown?.ended !== undefined && startError === undefined ? <p className="muted call-control__note">{t(endedKeys[shown.ended])}</p> : null}
      </>
    );
  } else {
    const phase = shown.phase === 'listening' && shown.userSpeaking ? 'voice.phase.hearing' : phaseKeys[shown.phase];
    const devices = media.status === 'ready' ? media.microphoneDevices : [];
    const time = formatCountdown(shown.timeLeftSeconds * 1000);
    body = (
      <>
        <p className={`call-control__state call-control__state--${shown.phase}`}>
          <span className="call-control__dot" aria-hidden="true" />
          {t(phase)}
        </p>
        <meter className="call-control__level" min={0} max={1} value={shown.microphoneOpen ? level : 0} aria-label={t('voice.level')} />
        <button ref={muteButton} type="button" className="button button--secondary" aria-pressed={shown.muted} onClick={() => setMuted(!shown.muted)}>
          {t(shown.muted ? 'voice.unmute' : 'voice.mute')}
        </button>
        {forcedMode ? (
          // The device policy sets the mode: the other is not offered.
          <p className="muted call-control__note">{t('voice.modeForced', { mode: t(modeKeys[forcedMode]) })}</p>
        ) : (
          <>
            <label className="visually-hidden" htmlFor={modeId}>
              {t('voice.mode')}
            </label>
            <select id={modeId} className="select call-control__select" value={shown.mode} onChange={(event) => setMode(event.target.value as CallMode)}>
              {(Object.keys(modeKeys) as CallMode[]).map((mode) => (
                <option key={mode} value={mode}>
                  {t(modeKeys[mode])}
                </option>
              ))}
            </select>
          </>
        )}
        {shown.mode === 'push-to-talk' ? (
          <>
            <button
              ref={talkButton}
              type="button"
              className="button button--secondary call-control__talk"
              aria-pressed={shown.talking}
              aria-describedby={hintId}
              disabled={shown.muted}
              onPointerDown={(event) => {
                event.currentTarget.setPointerCapture?.(event.pointerId);
                talk(true);
              }}
              onPointerUp={() => talk(false)}
              onPointerCancel={() => talk(false)}
              onKeyDown={(event) => {
                if (!isTalkKey(event.key)) return;
                event.preventDefault();
                if (!event.repeat) talk(true);
              }}
              onKeyUp={(event) => {
                if (!isTalkKey(event.key)) return;
                event.preventDefault();
                talk(false);
              }}
              onBlur={() => talk(false)}
            >
              {t(shown.talking ? 'voice.talking' : 'voice.holdToTalk')}
            </button>
            <span id={hintId} className="visually-hidden">
              {t('voice.holdToTalkHint')}
            </span>
          </>
        ) : null}
        <label className="visually-hidden" htmlFor={microphoneId}>
          {t('voice.microphone')}
        </label>
        <select id={microphoneId} className="select call-control__select" value={deviceId ?? ''} onChange={(event) => selectMicrophone(event.target.value)}>
          <option value="">{t('voice.microphoneDefault')}</option>
          {devices
            .filter((device) => device.deviceId !== '' && device.deviceId !== 'default')
            .map((device, index) => (
              <option key={device.deviceId} value={device.deviceId}>
                {device.label !== '' ? device.label : t('voice.microphoneUnnamed', { number: index + 1 })}
              </option>
            ))}
        </select>
        <span className={`call-control__time${shown.warning ? ' call-control__time--warning' : ''}`}>{t(shown.warning ? 'voice.timeWarning' : 'voice.timeLeft', { time })}</span>
        <button type="button" className="button button--danger call-control__hangup" onClick={hangUp}>
          {t('voice.hangUp')}
        </button>
        {shortcut?.state === 'armed' ? (
          <p className="muted call-control__note">{t(shown.mode === 'push-to-talk' ? 'voice.shortcutTalk' : 'voice.shortcutMute', { keys: shortcut.label })}</p>
        ) : shortcut?.state === 'taken' ? (
          <p className="muted call-control__note">{t('voice.shortcutTaken', { keys: shortcut.label })}</p>
        ) : null}
        {shown.providerError !== undefined ? <p className="muted call-control__note">{t('voice.providerError', { message: shown.providerError })}</p> : null}
      </>
    );
  }

  return (
    <div className={`call-control${inCall ? ' call-control--live' : ''}`} role="group" aria-label={t('voice.controlsLabel')}>
      {/* The provider's voice: an element that plays the remote track (Chromium decodes it only then). */}
      <audio ref={audioElement} autoPlay hidden />
      {body}
      {failure}
      {asking ? <VoiceConsentDialog serverName={view.name} hosts={hosts} onContinue={onContinue} onCancel={() => setAsking(false)} /> : null}
    </div>
  );
}
