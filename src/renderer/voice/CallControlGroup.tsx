import type { ReactNode } from 'react';
import { useI18n } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/strings';
import type { MicrophoneProblem } from './call-media';

const microphoneKeys: Record<MicrophoneProblem, MessageKey> = {
  denied: 'voice.mic.denied',
  noMicrophone: 'voice.mic.noMicrophone',
  busy: 'voice.mic.busy',
  unavailable: 'voice.mic.unavailable',
  failed: 'voice.mic.failed',
};

/** Why the microphone could not be opened, said as an alert (denied, none, busy, unavailable, failed). */
export function MicrophoneProblemText({ problem }: { problem: MicrophoneProblem }) {
  const { t } = useI18n();
  return (
    <p className="error-text" role="alert">
      {t(microphoneKeys[problem])}
    </p>
  );
}

/**
 * The frame of a call's controls on an AgentCall screen (agent-owned calls and client-owned listening):
 * one labelled group, marked live while the call is open (the bar moves into the conversation), with
 * what went wrong, if anything, after the controls.
 */
export function CallControlGroup({ live, label, failure, children }: { live: boolean; label: string; failure?: ReactNode; children: ReactNode }) {
  return (
    <div className={`call-control${live ? ' call-control--live' : ''}`} role="group" aria-label={label}>
      {children}
      {failure}
    </div>
  );
}
