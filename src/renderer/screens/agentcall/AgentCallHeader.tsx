import type { ReactNode, RefObject } from 'react';
import type { AgentCallAgent } from '../../../shared/agentcall/ipc-schemas';
import type { Modality } from '../../../shared/agentcall/protocol';
import type { IpcError } from '../../../shared/ipc/errors';
import { AgentHeader } from '../../components/AgentHeader';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { hostOf } from '../../components/format';

function modalityKey(list: readonly Modality[], keys: { both: MessageKey; nfc: MessageKey; photo: MessageKey }): MessageKey | undefined {
  const nfc = list.includes('nfc');
  const photo = list.includes('photo');
  if (nfc && photo) return keys.both;
  if (nfc) return keys.nfc;
  if (photo) return keys.photo;
  return undefined;
}

/**
 * The agent's band: Back, its name (the screen's heading), version, description, what it accepts
 * and may ask for, where it lives, notes from its card, and End session.
 */
export function AgentCallHeader({
  headingRef,
  label,
  agent,
  canEnd,
  ending,
  endError,
  onBack,
  onEnd,
  webPages,
}: {
  headingRef: RefObject<HTMLHeadingElement | null>;
  label: string;
  agent: AgentCallAgent | undefined;
  canEnd: boolean;
  ending: boolean;
  endError: IpcError | undefined;
  onBack: () => void;
  onEnd: () => void;
  /** The agent's web pages toggle, on the facts' line (its list opens under it). */
  webPages?: ReactNode;
}) {
  const { t } = useI18n();
  const accepts = agent ? (modalityKey(agent.accepted, { both: 'agentcall.accepts.both', nfc: 'agentcall.accepts.nfc', photo: 'agentcall.accepts.photo' }) ?? 'agentcall.accepts.none') : undefined;
  const requests = agent ? modalityKey(agent.agentRequests, { both: 'agentcall.requests.both', nfc: 'agentcall.requests.nfc', photo: 'agentcall.requests.photo' }) : undefined;
  const notes = agent?.notes ?? [];
  return (
    <AgentHeader
      className="agentcall-header"
      headingRef={headingRef}
      title={agent?.name ?? label}
      onBack={onBack}
      subtitle={
        agent ? (
          <>
            {agent.version !== '' ? <p className="agentcall-header__version">{t('agentcall.version', { version: agent.version })}</p> : null}
            {agent.description !== '' ? (
              <p className="chat-header__description" title={agent.description}>
                {agent.description}
              </p>
            ) : null}
          </>
        ) : null
      }
      action={canEnd ? { label: t('agentcall.end'), busy: ending, onClick: onEnd } : undefined}
      failure={endError ? { summary: t('agentcall.endFailed'), error: endError } : undefined}
    >
      <div className="chat-header__meta">
        {agent ? (
          <ul className="agentcall-header__facts">
            {accepts ? <li>{t(accepts)}</li> : null}
            {requests ? <li>{t(requests)}</li> : null}
            <li>{t('agentcall.endpoint', { host: hostOf(agent.endpoint) })}</li>
            {agent.legacyExtension ? <li>{t('agentcall.legacy')}</li> : null}
          </ul>
        ) : null}
        {webPages}
      </div>
      {notes.length > 0 ? (
        <details className="manifest-notes">
          <summary className="manifest-notes__summary">{t('agentcall.notes.title', { count: notes.length })}</summary>
          {/* Main writes these notes in English. */}
          <ul className="manifest-notes__list" lang="en">
            {notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </AgentHeader>
  );
}
