import type { AgentCallAgent } from '../../../../shared/agentcall/ipc-schemas';
import type { Modality } from '../../../../shared/agentcall/protocol';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import { hostOf } from '../../../components/format';
import { useI18n } from '../../../i18n/I18nProvider';
import type { MessageKey } from '../../../i18n/strings';
import { WebPagesPanel } from '../../../screens/webpages/WebPagesPanel';

function modalityKey(list: readonly Modality[], keys: { both: MessageKey; nfc: MessageKey; photo: MessageKey }): MessageKey | undefined {
  const nfc = list.includes('nfc');
  const photo = list.includes('photo');
  if (nfc && photo) return keys.both;
  if (nfc) return keys.nfc;
  if (photo) return keys.photo;
  return undefined;
}

/**
 * Everything about an AgentCall agent that is not the conversation, behind the header's Details: its
 * description and version, what it accepts and may ask for, where it lives, notes from its card, and
 * its web pages (read from the card on their own: shown whether or not a session opens).
 */
export function AgentCallDetails({ api, agentId, agent, name }: { api: AgentDeskApi; agentId: string; agent: AgentCallAgent | undefined; name: string }) {
  const { t } = useI18n();
  const accepts = agent
    ? (modalityKey(agent.accepted, { both: 'agentcall.accepts.both', nfc: 'agentcall.accepts.nfc', photo: 'agentcall.accepts.photo' }) ??
      'agentcall.accepts.none')
    : undefined;
  const requests = agent
    ? modalityKey(agent.agentRequests, { both: 'agentcall.requests.both', nfc: 'agentcall.requests.nfc', photo: 'agentcall.requests.photo' })
    : undefined;
  const notes = agent?.notes ?? [];
  return (
    <>
      {agent ? (
        <>
          {agent.description !== '' ? <p className="agentcall-details__description">{agent.description}</p> : null}
          <ul className="agentcall-details__facts">
            {agent.version !== '' ? <li>{t('agentcall.version', { version: agent.version })}</li> : null}
            {accepts ? <li>{t(accepts)}</li> : null}
            {requests ? <li>{t(requests)}</li> : null}
            {agent.voice.transport === 'webrtc' ? (
              <li>{t('agentcall.details.call')}</li>
            ) : agent.voice.owner === 'client' ? (
              <li>{t('agentcall.details.clientVoice')}</li>
            ) : null}
            <li>{t('agentcall.endpoint', { host: hostOf(agent.endpoint) })}</li>
            {agent.legacyExtension ? <li>{t('agentcall.legacy')}</li> : null}
          </ul>
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
        </>
      ) : (
        <p className="muted">{t('chat.connecting', { name })}</p>
      )}
      <WebPagesPanel api={api} agentId={agentId} />
    </>
  );
}
