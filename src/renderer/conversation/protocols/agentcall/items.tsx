import { memo, useEffect, useId, useRef, useState } from 'react';
import type { Intent } from '../../../../shared/agentcall/protocol';
import type { ImageSummary } from '../../../../shared/agentcall/session-view';
import type { ItemOfKind } from '../../../../shared/conversation/items';
import type { IpcError } from '../../../../shared/base/errors';
import { ErrorAlert } from '../../../components/ErrorText';
import { LinkView } from '../../../components/LinkView';
import { useI18n } from '../../../i18n/I18nProvider';
import type { MessageKey } from '../../../i18n/strings';
import { ScanControl } from '../../../screens/nfc/ScanControl';
import { useItemActions } from '../../item-actions';
import type { ItemViews } from '../../Transcript';
import type { AgentCallItemActions } from './actions';

export const intentKeys: Record<Intent, MessageKey> = {
  identify: 'agentcall.intent.identify',
  remember: 'agentcall.intent.remember',
  inspect: 'agentcall.intent.inspect',
  act: 'agentcall.intent.act',
};

const requestStateKeys: Record<ItemOfKind<'request'>['state'], MessageKey> = {
  pending: 'agentcall.interaction.pending',
  answered: 'agentcall.interaction.answered',
  cancelled: 'agentcall.interaction.cancelled',
  declined: 'agentcall.interaction.declined',
  superseded: 'agentcall.interaction.superseded',
};

function useAgentCall(): AgentCallItemActions | undefined {
  return useItemActions().agentCall;
}

/**
 * An object, by the name the agent gave it in this session, else "Unknown object": never its
 * reference, which only the tooltip shows (a tag's reference is an opaque alias nobody reads).
 */
export function ObjectName({ objectRef, label }: { objectRef: string; label: string | undefined }) {
  const { t } = useI18n();
  return (
    <span className={`agentcall-object${label === undefined ? ' agentcall-object--unknown' : ''}`} title={objectRef}>
      {label ?? t('agentcall.object.unknown')}
    </span>
  );
}

/** A sent photo: its thumbnail while the session lasts (when this page still has it), and its size. */
export function PhotoChip({ image, thumbnail }: { image: ImageSummary; thumbnail: string | undefined }) {
  const { t, language } = useI18n();
  const size = new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(image.byteCount / 1024);
  return (
    <span className="agentcall-chip agentcall-chip--photo">
      {thumbnail !== undefined ? (
        <img
          className="agentcall-chip__thumbnail"
          src={thumbnail}
          alt={t('agentcall.photo.thumbnailAlt', { width: image.pixelWidth, height: image.pixelHeight })}
        />
      ) : null}
      <span className="agentcall-chip__kicker">{t('agentcall.photo.kicker')}</span>{' '}
      <span className="agentcall-chip__meta">{t('agentcall.photo.facts', { width: image.pixelWidth, height: image.pixelHeight, size })}</span>
    </span>
  );
}

/** What the user sent from this machine: the object (by its name) and/or the photo, with the intent. */
const ObservationItem = memo(function ObservationItem({ item }: { item: ItemOfKind<'observation'> }) {
  const { t } = useI18n();
  const agentCall = useAgentCall();
  return (
    <div className="message message--user agentcall-observation">
      <p className="visually-hidden">{t('chat.you')}</p>
      {item.object ? (
        <p className="agentcall-observation__object">
          <span className="agentcall-chip__kicker">{t('agentcall.object.kicker')}:</span>{' '}
          <ObjectName objectRef={item.object.objectRef} label={item.object.label} />
        </p>
      ) : null}
      {item.image ? <PhotoChip image={item.image} thumbnail={agentCall?.thumbnail(item.image.sha256)} /> : null}
      <p className="message__state">
        {t('agentcall.intent.line', { intent: t(intentKeys[item.intent]) })}
        {item.interactionId !== undefined ? ` · ${t('agentcall.observation.answers')}` : null}
      </p>
    </div>
  );
});

/**
 * The agent's request to scan an object or take a photo: its prompt (plain text) and, while it waits
 * and the session lasts, the control that collects it and Decline — in the conversation, where it
 * was asked. Nothing is collected by itself: a tag read for it waits at the end of the conversation
 * for Send, a photo opens the photo dialog.
 */
const RequestItem = memo(function RequestItem({ item }: { item: ItemOfKind<'request'> }) {
  const { t } = useI18n();
  const id = useId();
  const agentCall = useAgentCall();
  const [declining, setDeclining] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const { interactionId, modality, prompt } = item.request;
  const open = item.state === 'pending' && agentCall?.live === true;
  const kicker = t(modality === 'nfc' ? 'agentcall.interaction.nfc' : 'agentcall.interaction.photo');
  if (!open || !agentCall) {
    return (
      <div className={`agentcall-event agentcall-event--${item.state}`}>
        <p>
          <span className="agentcall-event__kicker">{kicker}</span> <span className="agentcall-event__text">{prompt}</span>
        </p>
        {item.state !== 'pending' ? <p className="message__state">{t(requestStateKeys[item.state])}</p> : null}
      </div>
    );
  }
  const canCollect = agentCall.usable.includes(modality);
  const decline = () => {
    if (declining) return;
    setDeclining(true);
    setError(undefined);
    void agentCall.decline().then((failure) => {
      setDeclining(false);
      setError(failure);
    });
  };
  return (
    <section
      className="agentcall-event agentcall-event--pending agentcall-request"
      aria-label={t(modality === 'nfc' ? 'agentcall.request.title.nfc' : 'agentcall.request.title.photo')}
      aria-describedby={`${id}-prompt`}
    >
      <p>
        <span className="agentcall-event__kicker">{kicker}</span>{' '}
        <span id={`${id}-prompt`} className="agentcall-event__text">
          {prompt}
        </span>
      </p>
      {!canCollect ? <p className="muted">{t('agentcall.request.unusable')}</p> : null}
      <div className="agentcall-request__controls">
        {canCollect && modality === 'nfc' ? (
          <div className="agentcall-request__scan" data-staging-source="">
            <ScanControl api={agentCall.api} compact label={t('agentcall.request.scan')} onObservation={(result) => agentCall.tagRead(result, interactionId)} />
          </div>
        ) : null}
        {canCollect && modality === 'photo' ? (
          <button type="button" className="button button--primary" data-staging-source="" onClick={() => agentCall.takePhoto(interactionId)}>
            {t('agentcall.request.photo')}
          </button>
        ) : null}
        <button type="button" className="button button--secondary" disabled={declining} aria-busy={declining || undefined} onClick={decline}>
          {t('agentcall.request.decline')}
        </button>
      </div>
      <ErrorAlert summary={t('agentcall.notSent')} error={error} />
    </section>
  );
});

/** A teaching proposal: what will be remembered, Confirm and Cancel while it is the one shown, then how it ended. */
const TeachingItem = memo(function TeachingItem({ item }: { item: ItemOfKind<'teaching'> }) {
  const { t } = useI18n();
  const id = useId();
  const agentCall = useAgentCall();
  const [busy, setBusy] = useState<'confirm' | 'cancel' | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const { proposal } = item;
  const current = item.state === 'shown' && agentCall?.live === true && agentCall.currentProposalId === proposal.proposalId;
  let stateKey: MessageKey | undefined;
  if (item.state === 'confirmed') stateKey = 'agentcall.teaching.confirmed';
  else if (item.state === 'cancelled') stateKey = 'agentcall.teaching.cancelled';
  else if (item.state === 'invalidated') stateKey = 'agentcall.teaching.invalidated';
  else if (item.state === 'ended') stateKey = 'agentcall.teaching.endedWithSession';
  else if (!current) stateKey = 'agentcall.teaching.replaced';

  // Confirm and Cancel are disabled while the answer goes, then gone: focus moves to what will be
  // remembered, then to the state line once the agent answered, never to <body>.
  const statementRef = useRef<HTMLParagraphElement>(null);
  const stateRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (stateKey !== undefined && document.activeElement === statementRef.current) stateRef.current?.focus();
  }, [stateKey]);

  async function answer(choice: 'confirm' | 'cancel') {
    if (busy || !agentCall) return;
    if (document.activeElement instanceof HTMLButtonElement && statementRef.current?.parentElement?.contains(document.activeElement))
      statementRef.current.focus();
    setBusy(choice);
    setError(undefined);
    const failure = await agentCall.answerProposal(proposal.proposalId, choice);
    setBusy(undefined);
    setError(failure);
  }

  const statementId = `${id}-statement`;
  const shownState = item.state === 'ended' ? 'invalidated' : current ? 'current' : item.state;
  return (
    <div className={`agentcall-teaching agentcall-teaching--${shownState}`}>
      <p className="agentcall-teaching__kicker">{t('agentcall.teaching.kicker')}</p>
      <p ref={statementRef} tabIndex={-1} id={statementId} className="agentcall-teaching__statement" title={proposal.objectRef}>
        {t('agentcall.teaching.willRememberThis', { label: proposal.label })}
      </p>
      {current ? (
        <>
          <p>{t('agentcall.teaching.question')}</p>
          <div className="button-row">
            <button
              type="button"
              className="button button--primary"
              aria-describedby={statementId}
              disabled={busy !== undefined}
              aria-busy={busy === 'confirm' || undefined}
              onClick={() => void answer('confirm')}
            >
              {t('agentcall.teaching.confirm')}
            </button>
            <button
              type="button"
              className="button button--secondary"
              aria-describedby={statementId}
              disabled={busy !== undefined}
              aria-busy={busy === 'cancel' || undefined}
              onClick={() => void answer('cancel')}
            >
              {t('agentcall.teaching.cancel')}
            </button>
          </div>
        </>
      ) : null}
      {stateKey !== undefined ? (
        <p ref={stateRef} tabIndex={-1} className="message__state agentcall-teaching__state">
          {t(stateKey)}
        </p>
      ) : null}
      <ErrorAlert summary={t('agentcall.notSent')} error={error} />
    </div>
  );
});

const passportStateKeys: Record<Exclude<ItemOfKind<'passport'>['state'], 'current'>, MessageKey> = {
  replaced: 'agentcall.passport.replaced',
  otherObject: 'agentcall.passport.otherObject',
  ended: 'agentcall.passport.ended',
};

/** The host a passport link goes to (the schema let through https links only). */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

/**
 * An object passport: untrusted data, shown as plain text (no Markdown, no markup, no image). Links
 * are links the user may click (external.open, https only); the host they go to is written beside
 * them. Each action says what it would do; asking the agent for it takes two clicks: "Ask…", then
 * Confirm in the question that names the agent and the action. Nothing else is sent or done.
 */
const PassportItem = memo(function PassportItem({ item }: { item: ItemOfKind<'passport'> }) {
  const { t } = useI18n();
  const id = useId();
  const agentCall = useAgentCall();
  const { passport } = item;
  const agentName = agentCall?.agentName ?? '';
  const current = item.state === 'current' && agentCall?.live === true && agentCall.currentPassportId === passport.passportId;
  const [asking, setAsking] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const questionRef = useRef<HTMLParagraphElement>(null);

  // The question takes the focus when it appears, so Confirm is never pressed by the same key press.
  useEffect(() => {
    if (asking !== undefined) questionRef.current?.focus();
  }, [asking]);

  async function confirm(recipeId: string) {
    if (busy || !agentCall) return;
    setBusy(true);
    setError(undefined);
    const failure = await agentCall.confirmRecipe(passport.passportId, recipeId);
    setBusy(false);
    setError(failure);
    if (!failure) setAsking(undefined);
  }

  const labelId = `${id}-label`;
  return (
    <section className={`agentcall-passport agentcall-passport--${current ? 'current' : item.state}`} aria-labelledby={labelId}>
      <p className="agentcall-passport__kicker">
        {passport.source === 'tag' ? t('agentcall.passport.kicker.tag') : t('agentcall.passport.kicker.agent', { name: agentName })}
      </p>
      <p id={labelId} className="agentcall-passport__label" title={passport.objectRef}>
        {passport.label.trim() === '' ? t('agentcall.object.unknown') : passport.label}
      </p>
      <p className="agentcall-passport__untrusted">
        {t(passport.source === 'tag' ? 'agentcall.passport.untrusted.tag' : 'agentcall.passport.untrusted.agent')}
      </p>
      {passport.summary !== undefined ? <p className="message__text">{passport.summary}</p> : null}
      {passport.facts.length > 0 ? (
        <dl className="agentcall-passport__facts" aria-label={t('agentcall.passport.facts')}>
          {passport.facts.map((fact, index) => (
            <div key={index}>
              <dt>{fact.name}</dt>
              <dd>{fact.value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {passport.links.length > 0 ? (
        <ul className="agentcall-passport__links" aria-label={t('agentcall.passport.links')}>
          {passport.links.map((link, index) => (
            <li key={index}>
              <LinkView url={link.url}>{link.title}</LinkView> <span className="link-note">({t('agentcall.passport.linkTo', { host: hostOf(link.url) })})</span>
            </li>
          ))}
        </ul>
      ) : null}
      {passport.actions.length > 0 ? (
        <>
          <p className="agentcall-passport__heading">{t('agentcall.passport.actions')}</p>
          <ul className="agentcall-passport__actions">
            {passport.actions.map((action) => (
              <li key={action.recipeId} className="agentcall-passport__action">
                <p className="agentcall-passport__action-title">{action.title}</p>
                {action.description !== undefined ? <p>{action.description}</p> : null}
                {current && asking === action.recipeId ? (
                  <div className="agentcall-passport__question">
                    <p ref={questionRef} tabIndex={-1} id={`${id}-${action.recipeId}`}>
                      {t('agentcall.passport.question', { name: agentName, title: action.title })}
                    </p>
                    <div className="button-row">
                      <button
                        type="button"
                        className="button button--primary"
                        aria-describedby={`${id}-${action.recipeId}`}
                        disabled={busy}
                        aria-busy={busy || undefined}
                        onClick={() => void confirm(action.recipeId)}
                      >
                        {t('agentcall.passport.confirm')}
                      </button>
                      <button type="button" className="button button--secondary" disabled={busy} onClick={() => setAsking(undefined)}>
                        {t('agentcall.passport.cancel')}
                      </button>
                    </div>
                  </div>
                ) : current ? (
                  <button type="button" className="button button--secondary" disabled={busy} onClick={() => setAsking(action.recipeId)}>
                    {t('agentcall.passport.ask')}
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {!current ? <p className="message__state">{t(passportStateKeys[item.state === 'current' ? 'replaced' : item.state])}</p> : null}
      <ErrorAlert summary={t('agentcall.notSent')} error={error} />
    </section>
  );
});

/**
 * The end of the session, said once, in the conversation: why (main explains it in English), and
 * Start a new session. It takes the focus when the control that had it went away (Hang up, End session).
 */
const EndedItem = memo(function EndedItem({ item }: { item: ItemOfKind<'ended'> }) {
  const { t } = useI18n();
  const agentCall = useAgentCall();
  const { reason } = item;
  const restart = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (active === null || active === document.body) restart.current?.focus();
  }, []);
  return (
    <div className="agentcall-ended">
      <p className="agentcall-ended__title">{t('agentcall.ended.title')}</p>
      {reason.message !== '' ? (
        <p lang="en" className="agentcall-ended__reason">
          {reason.message}
        </p>
      ) : null}
      {reason.kind === 'protocol_error' ? (
        <p className="message__state">
          {t('agentcall.ended.code')} <code>{reason.code}</code>
        </p>
      ) : null}
      {agentCall ? (
        <button ref={restart} type="button" className="button button--primary" onClick={agentCall.renew}>
          {t('agentcall.ended.restart')}
        </button>
      ) : null}
    </div>
  );
});

/** The views of AgentCall's own kinds. */
export const agentCallItemViews: ItemViews = {
  observation: ObservationItem,
  request: RequestItem,
  teaching: TeachingItem,
  passport: PassportItem,
  ended: EndedItem,
};
