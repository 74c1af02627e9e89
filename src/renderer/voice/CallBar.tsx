import { useId, type ReactNode, type RefObject } from 'react';
import type { CallMode } from '../../shared/talkie/voice/voice-call';
import { useMediaDevices } from '../hooks/useMediaDevices';
import { useCallActivity } from '../kiosk/activity';
import type { CallPhase } from './call-phase';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/strings';
import './call-bar.css';

const phaseKeys: Record<CallPhase, MessageKey> = {
  connecting: 'voice.phase.connecting',
  listening: 'voice.phase.listening',
  hearing: 'voice.phase.hearing',
  thinking: 'voice.phase.thinking',
  speaking: 'voice.phase.speaking',
};

export const modeKeys: Record<CallMode, MessageKey> = { 'hands-free': 'voice.mode.handsFree', 'push-to-talk': 'voice.mode.pushToTalk' };

/** Space or Enter on the focused Hold-to-talk button, the key push to talk uses (see the README). */
const isTalkKey = (key: string) => key === ' ' || key === 'Enter';

export interface CallBarProps {
  phase: CallPhase;
  /** The microphone's level, 0..1 (shown as 0 while it sends nothing). */
  level: number;
  muted: boolean;
  onMute(muted: boolean): void;
  /** The mode list, when the call offers a choice (Talkie); without it, `talking` alone says whether Hold to talk shows. */
  mode?: { value: CallMode; onChange(mode: CallMode): void };
  /** Hold to talk, when the call is push to talk now. */
  talk?: { talking: boolean; onTalk(down: boolean): void; /** Esc while held: the turn is dropped (AgentCall's audio.turn.cancel). */ onCancel?(): void };
  /** The chosen microphone ('' or undefined: the system default). */
  deviceId: string | undefined;
  onMicrophone(deviceId: string): void;
  onHangUp(): void;
  muteRef?: RefObject<HTMLButtonElement | null>;
  talkRef?: RefObject<HTMLButtonElement | null>;
  /** What only one kind of call shows after the microphone (Talkie: the time left)… */
  children?: ReactNode;
  /** …and after Hang up (Talkie: the shortcut, the provider's error). */
  after?: ReactNode;
}

/**
 * The live call's bar, one for Talkie voice calls and AgentCall calls: what the call is doing
 * (Connecting…, Listening, Thinking…, Speaking), the microphone level, Mute, Hold to talk (the mouse,
 * or Space or Enter while it has focus; Esc drops the turn where the call can), the mode (when there
 * is a choice) and the microphone behind Call settings, and Hang up: one slim row above the composer,
 * so that the conversation keeps the window's height during a call. It only shows and reports: the
 * call hooks decide.
 */
export function CallBar({ phase, level, muted, onMute, mode, talk, deviceId, onMicrophone, onHangUp, muteRef, talkRef, children, after }: CallBarProps) {
  const { t } = useI18n();
  const hintId = useId();
  const modeId = useId();
  const microphoneId = useId();
  const media = useMediaDevices(phase !== 'connecting');
  // The visitor talking is someone there (a kiosk's idle reset hears it: hands-free talk has no pointer or
  // key); the agent speaking or thinking only holds the countdown off for a while; a call merely open,
  // listening to silence, is neither (kiosk/activity.ts has the rule).
  useCallActivity(phase, muted);
  const devices = media.status === 'ready' ? media.microphoneDevices : [];
  return (
    <>
      <p className={`call-control__state call-control__state--${phase === 'hearing' ? 'listening' : phase}`}>
        <span className="call-control__dot" aria-hidden="true" />
        {t(phaseKeys[phase])}
      </p>
      <meter className="call-control__level" min={0} max={1} value={level} aria-label={t('voice.level')} />
      <button ref={muteRef} type="button" className="button button--secondary" aria-pressed={muted} onClick={() => onMute(!muted)}>
        {t(muted ? 'voice.unmute' : 'voice.mute')}
      </button>
      {talk ? (
        <>
          <button
            ref={talkRef}
            type="button"
            className="button button--secondary call-control__talk"
            aria-pressed={talk.talking}
            aria-describedby={hintId}
            disabled={muted}
            onPointerDown={(event) => {
              event.currentTarget.setPointerCapture?.(event.pointerId);
              talk.onTalk(true);
            }}
            onPointerUp={() => talk.onTalk(false)}
            onPointerCancel={() => (talk.onCancel ?? (() => talk.onTalk(false)))()}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && talk.onCancel && talk.talking) {
                event.preventDefault();
                talk.onCancel();
                return;
              }
              if (!isTalkKey(event.key)) return;
              event.preventDefault();
              if (!event.repeat) talk.onTalk(true);
            }}
            onKeyUp={(event) => {
              if (!isTalkKey(event.key)) return;
              event.preventDefault();
              talk.onTalk(false);
            }}
            onBlur={() => (talk.onCancel ?? (() => talk.onTalk(false)))()}
          >
            {t(talk.talking ? 'voice.talking' : 'voice.holdToTalk')}
          </button>
          <span id={hintId} className="visually-hidden">
            {t(talk.onCancel ? 'voice.holdToTalkHintCancel' : 'voice.holdToTalkHint')}
          </span>
        </>
      ) : null}
      {/* The mode and the microphone, behind one button: chosen once a call, they need no room of their own. */}
      <details className="call-control__more">
        <summary className="button button--secondary call-control__more-button" title={t('voice.settings')}>
          <span aria-hidden="true" className="call-control__more-icon">
            ⚙
          </span>
          <span className="visually-hidden">{t('voice.settings')}</span>
        </summary>
        <div className="call-control__more-panel">
          {mode ? (
            <>
              <label className="call-control__more-label" htmlFor={modeId}>
                {t('voice.mode')}
              </label>
              <select
                id={modeId}
                className="select call-control__select"
                value={mode.value}
                onChange={(event) => mode.onChange(event.target.value as CallMode)}
              >
                {(Object.keys(modeKeys) as CallMode[]).map((value) => (
                  <option key={value} value={value}>
                    {t(modeKeys[value])}
                  </option>
                ))}
              </select>
            </>
          ) : null}
          <label className="call-control__more-label" htmlFor={microphoneId}>
            {t('voice.microphone')}
          </label>
          <select id={microphoneId} className="select call-control__select" value={deviceId ?? ''} onChange={(event) => onMicrophone(event.target.value)}>
            <option value="">{t('voice.microphoneDefault')}</option>
            {devices
              .filter((device) => device.deviceId !== '' && device.deviceId !== 'default')
              .map((device, index) => (
                <option key={device.deviceId} value={device.deviceId}>
                  {device.label !== '' ? device.label : t('voice.microphoneUnnamed', { number: index + 1 })}
                </option>
              ))}
          </select>
        </div>
      </details>
      {children}
      <button type="button" className="button button--danger call-control__hangup" onClick={onHangUp}>
        {t('voice.hangUp')}
      </button>
      {after}
    </>
  );
}

/** A note on the call's bar: one line, cut short where the row is narrow; its whole text is its tooltip. */
export function CallNote({ text, muted = true }: { text: string; muted?: boolean }) {
  return (
    <p className={muted ? 'muted call-control__note' : 'call-control__note'} title={text}>
      {text}
    </p>
  );
}
