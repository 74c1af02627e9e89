import { useId, type ReactNode } from 'react';
import { intentSchema, type Intent, type Modality } from '../../../../shared/agentcall/protocol';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import { useI18n } from '../../../i18n/I18nProvider';
import { usePolicyView } from '../../../kiosk/policy-context';
import type { MessageKey } from '../../../i18n/strings';
import { ScanControl, type NfcObservationResult } from '../../../screens/nfc/ScanControl';
import { CameraIcon } from './icons';
import { intentKeys } from './items';

/** Why the user cannot send this modality now, or undefined when they can. */
export function modalityReason(
  modality: Modality,
  state: { ready: boolean; call: boolean },
  usable: readonly Modality[],
  accepted: readonly Modality[],
): MessageKey | undefined {
  if (!state.ready) return state.call ? 'agentcall.notReadyCall' : 'agentcall.notReady';
  if (usable.includes(modality)) return undefined;
  if (modality === 'nfc') return accepted.includes('nfc') ? 'agentcall.scan.noReader' : 'agentcall.scan.notAccepted';
  return 'agentcall.photo.notAccepted';
}

/**
 * AgentCall's tools in the composer's row, each a compact button with its words: Scan object (a tag
 * read waits at the end of the conversation for Send), Take a photo… (the photo, once taken, too),
 * the call or voice button, and the intent the next scan or photo goes with (Identify by default; it
 * grants nothing). Only what the agent's card accepts is offered; what cannot be used now is disabled,
 * and its tooltip and description say why. A kiosk offers no intent (issue #27: a visitor's scan or
 * photo goes with Identify; an agent's own request still says what it is for).
 */
export function AgentCallTools({
  api,
  accepted,
  usable,
  ready,
  call,
  intent,
  onIntent,
  onTagRead,
  onPhoto,
  voice,
}: {
  api: AgentDeskApi;
  /** What the agent's card accepts. */
  accepted: readonly Modality[];
  /** What this session can carry. */
  usable: readonly Modality[];
  ready: boolean;
  /** The agent is reached by a call (nothing can be sent until it is on). */
  call: boolean;
  intent: Intent;
  onIntent: (intent: Intent) => void;
  onTagRead: (scan: NfcObservationResult) => void;
  onPhoto: () => void;
  /** Talk by voice, or Call. */
  voice?: ReactNode;
}) {
  const { t } = useI18n();
  const id = useId();
  const state = { ready, call };
  const nfcReason = modalityReason('nfc', state, usable, accepted);
  const photoReason = modalityReason('photo', state, usable, accepted);
  const { kiosk } = usePolicyView();
  const physical = accepted.length > 0 && !kiosk;
  return (
    <>
      {accepted.includes('nfc') ? (
        <div className="agentcall-scan" data-staging-source="">
          <ScanControl api={api} compact disabled={nfcReason !== undefined} disabledReason={nfcReason ? t(nfcReason) : undefined} onObservation={onTagRead} />
        </div>
      ) : null}
      {accepted.includes('photo') ? (
        <>
          <button
            type="button"
            className="button button--secondary agentcall-tool"
            data-staging-source=""
            disabled={photoReason !== undefined}
            title={photoReason ? t(photoReason) : t('agentcall.photo.open')}
            aria-describedby={photoReason ? `${id}-photo` : undefined}
            onClick={onPhoto}
          >
            <CameraIcon /> <span className="agentcall-tool__label">{t('agentcall.photo.open')}</span>
          </button>
          {photoReason ? (
            <span id={`${id}-photo`} className="visually-hidden">
              {t(photoReason)}
            </span>
          ) : null}
        </>
      ) : null}
      {voice}
      {physical ? (
        <label className="agentcall-intent" title={`${t('agentcall.intent.label')} ${t('agentcall.intent.hint')}`}>
          <span className="agentcall-intent__label">{t('agentcall.intent.short')}</span>
          <select
            className="select agentcall-intent__select"
            value={intent}
            aria-describedby={`${id}-intent`}
            onChange={(event) => onIntent(intentSchema.parse(event.target.value))}
          >
            {intentSchema.options.map((option) => (
              <option key={option} value={option}>
                {t(intentKeys[option])}
              </option>
            ))}
          </select>
          <span id={`${id}-intent`} className="visually-hidden">
            {t('agentcall.intent.label')} {t('agentcall.intent.hint')}
          </span>
        </label>
      ) : null}
    </>
  );
}
