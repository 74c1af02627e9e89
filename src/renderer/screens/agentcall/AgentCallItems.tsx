import { memo, useEffect, useId, useRef, useState } from 'react';
import type { Intent } from '../../../shared/agentcall/protocol';
import type { InteractionState, PassportState, SessionItem } from '../../../shared/agentcall/session-view';
import type { IpcError } from '../../../shared/ipc/errors';
import { ErrorAlert } from '../../components/ErrorText';
import { LinkView } from '../../components/LinkView';
import { ObjectRefText } from '../../components/ObjectRefText';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { Markdown, StreamingMarkdown } from '../../components/Markdown';
import { MessageCopy } from '../../components/MessageCopy';
import { ObjectChip, PhotoChip } from './ObservationChips';

type Item<K extends SessionItem['kind']> = Extract<SessionItem, { kind: K }>;

export const intentKeys: Record<Intent, MessageKey> = {
  identify: 'agentcall.intent.identify',
  remember: 'agentcall.intent.remember',
  inspect: 'agentcall.intent.inspect',
  act: 'agentcall.intent.act',
};

const interactionStateKeys: Record<InteractionState, MessageKey> = {
  pending: 'agentcall.interaction.pending',
  answered: 'agentcall.interaction.answered',
  cancelled: 'agentcall.interaction.cancelled',
  declined: 'agentcall.interaction.declined',
  superseded: 'agentcall.interaction.superseded',
};

/** What the items need from the screen. */
export interface ItemContext {
  agentName: string;
  /** The proposal Confirm/Cancel act on (the view's shownProposalId), while the session lasts. */
  shownProposalId: string | undefined;
  endedWithSession: ReadonlySet<string>;
  /** Sends the proposal's confirm or cancel text; resolves with the failure, if any. */
  answerProposal: (proposalId: string, answer: 'confirm' | 'cancel') => Promise<IpcError | undefined>;
  /** The object passport whose actions can be asked for (the view's currentPassportId), while the session lasts. */
  currentPassportId: string | undefined;
  /** Asks the agent for one action of that passport, after the user confirmed it; resolves with the failure, if any. */
  confirmRecipe: (passportId: string, recipeId: string) => Promise<IpcError | undefined>;
  restart: () => void;
}

function UserText({ item }: { item: Item<'userText'> }) {
  const { t } = useI18n();
  return (
    <div className="message message--user">
      <p className="visually-hidden">{t('chat.you')}</p>
      <p className="message__text">{item.text}</p>
      <MessageCopy text={item.text} />
    </div>
  );
}

function UserObservation({ item, thumbnail }: { item: Item<'userObservation'>; thumbnail: string | undefined }) {
  const { t } = useI18n();
  return (
    <div className="message message--user agentcall-observation">
      <p className="visually-hidden">{t('chat.you')}</p>
      {item.object ? <ObjectChip object={item.object} /> : null}
      {item.image ? <PhotoChip image={item.image} thumbnail={thumbnail} /> : null}
      <p className="message__state">
        {t('agentcall.intent.line', { intent: t(intentKeys[item.intent]) })}
        {item.interactionId !== undefined ? ` · ${t('agentcall.observation.answers')}` : null}
      </p>
    </div>
  );
}

function AgentText({ item, agentName }: { item: Item<'agentText'>; agentName: string }) {
  const { t } = useI18n();
  const note: MessageKey | undefined =
    item.state === 'cancelled' ? 'agentcall.text.cancelled' : item.state === 'failed' ? 'agentcall.text.failed' : item.state === 'interrupted' ? 'agentcall.text.interrupted' : undefined;
  return (
    <div className={`message message--assistant${item.state === 'streaming' ? ' message--streaming' : ''}`}>
      <p className="visually-hidden">{t('chat.agentSays', { name: agentName })}</p>
      {/* Markdown without raw HTML: a <script> in the agent's text stays text. */}
      {item.text === '' ? null : item.state === 'streaming' ? <StreamingMarkdown text={item.text} /> : <Markdown text={item.text} />}
      <MessageCopy text={item.text} streaming={item.state === 'streaming'} />
      {note !== undefined ? <p className="message__state">{t(note)}</p> : null}
    </div>
  );
}

function Failure({ item }: { item: Item<'failure'> }) {
  const { t } = useI18n();
  return (
    <div className="message message--error agentcall-failure">
      <p className="error-text">
        {t('agentcall.failure')} <code>{item.code}</code>
      </p>
      {/* The agent's own words, bounded and without control characters by the engine. */}
      {item.message !== '' ? <p className="message__text agentcall-failure__message">{item.message}</p> : null}
    </div>
  );
}

function Interaction({ item }: { item: Item<'interaction'> }) {
  const { t } = useI18n();
  return (
    <div className={`agentcall-event agentcall-event--${item.state}`}>
      <p>
        <span className="agentcall-event__kicker">{t(item.request.modality === 'nfc' ? 'agentcall.interaction.nfc' : 'agentcall.interaction.photo')}</span>{' '}
        <span className="agentcall-event__text">{item.request.prompt}</span>
      </p>
      <p className="message__state">{t(interactionStateKeys[item.state])}</p>
    </div>
  );
}

function Teaching({ item, context }: { item: Item<'teaching'>; context: ItemContext }) {
  const { t } = useI18n();
  const id = useId();
  const [busy, setBusy] = useState<'confirm' | 'cancel' | undefined>();
  const [error, setError] = useState<IpcError | undefined>();
  const { proposal } = item;
  const current = item.state === 'shown' && context.shownProposalId === proposal.proposalId;
  let stateKey: MessageKey | undefined;
  if (item.state === 'confirmed') stateKey = 'agentcall.teaching.confirmed';
  else if (item.state === 'cancelled') stateKey = 'agentcall.teaching.cancelled';
  else if (item.state === 'invalidated') stateKey = context.endedWithSession.has(item.id) ? 'agentcall.teaching.endedWithSession' : 'agentcall.teaching.invalidated';
  else if (!current) stateKey = 'agentcall.teaching.replaced';

  // Confirm and Cancel are disabled while the answer goes, then gone: focus moves to what will be
  // remembered, then to the state line once the agent answered, never to <body>.
  const statementRef = useRef<HTMLParagraphElement>(null);
  const stateRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (stateKey !== undefined && document.activeElement === statementRef.current) stateRef.current?.focus();
  }, [stateKey]);

  async function answer(choice: 'confirm' | 'cancel') {
    if (busy) return;
    if (document.activeElement instanceof HTMLButtonElement && statementRef.current?.parentElement?.contains(document.activeElement)) statementRef.current.focus();
    setBusy(choice);
    setError(undefined);
    const failure = await context.answerProposal(proposal.proposalId, choice);
    setBusy(undefined);
    setError(failure);
  }

  const statementId = `${id}-statement`;
  return (
    <div className={`agentcall-teaching agentcall-teaching--${current ? 'current' : item.state}`}>
      <p className="agentcall-teaching__kicker">{t('agentcall.teaching.kicker')}</p>
      <p ref={statementRef} tabIndex={-1} id={statementId} className="agentcall-teaching__statement">
        {t('agentcall.teaching.willRemember', { label: proposal.label })} <ObjectRefText value={proposal.objectRef} />
      </p>
      {current ? (
        <>
          <p>{t('agentcall.teaching.question')}</p>
          <div className="button-row">
            <button type="button" className="button button--primary" aria-describedby={statementId} disabled={busy !== undefined} aria-busy={busy === 'confirm' || undefined} onClick={() => void answer('confirm')}>
              {t('agentcall.teaching.confirm')}
            </button>
            <button type="button" className="button button--secondary" aria-describedby={statementId} disabled={busy !== undefined} aria-busy={busy === 'cancel' || undefined} onClick={() => void answer('cancel')}>
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
}

const passportStateKeys: Record<Exclude<PassportState, 'current'>, MessageKey> = {
  replaced: 'agentcall.passport.replaced',
  otherObject: 'agentcall.passport.otherObject',
  ended: 'agentcall.passport.ended',
};

/**
 * An object passport: untrusted data, shown as plain text (no Markdown, no markup, no image). Links
 * are links the user may click (external.open, https only); the host they go to is written beside
 * them. Each action says what it would do; asking the agent for it takes two clicks: "Ask…", then
 * Confirm in the question that names the agent and the action. Nothing else is sent or done.
 */
function Passport({ item, context }: { item: Item<'passport'>; context: ItemContext }) {
  const { t } = useI18n();
  const id = useId();
  const { passport } = item;
  const current = item.state === 'current' && context.currentPassportId === passport.passportId;
  const [asking, setAsking] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const questionRef = useRef<HTMLParagraphElement>(null);

  // The question takes the focus when it appears, so Confirm is never pressed by the same key press.
  useEffect(() => {
    if (asking !== undefined) questionRef.current?.focus();
  }, [asking]);

  async function confirm(recipeId: string) {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    const failure = await context.confirmRecipe(passport.passportId, recipeId);
    setBusy(false);
    setError(failure);
    if (!failure) setAsking(undefined);
  }

  const labelId = `${id}-label`;
  return (
    <section className={`agentcall-passport agentcall-passport--${current ? 'current' : item.state}`} aria-labelledby={labelId}>
      <p className="agentcall-passport__kicker">{passport.source === 'tag' ? t('agentcall.passport.kicker.tag') : t('agentcall.passport.kicker.agent', { name: context.agentName })}</p>
      <p id={labelId} className="agentcall-passport__label">
        {passport.label} <ObjectRefText value={passport.objectRef} />
      </p>
      <p className="agentcall-passport__untrusted">{t(passport.source === 'tag' ? 'agentcall.passport.untrusted.tag' : 'agentcall.passport.untrusted.agent')}</p>
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
                      {t('agentcall.passport.question', { name: context.agentName, title: action.title })}
                    </p>
                    <div className="button-row">
                      <button type="button" className="button button--primary" aria-describedby={`${id}-${action.recipeId}`} disabled={busy} aria-busy={busy || undefined} onClick={() => void confirm(action.recipeId)}>
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
}

/** The host a passport link goes to (the schema let through https links only). */
function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : url;
}

function Ended({ item, restart }: { item: Item<'ended'>; restart: () => void }) {
  const { t } = useI18n();
  const { reason } = item;
  return (
    <div className="agentcall-ended">
      <p className="agentcall-ended__title">{t('agentcall.ended.title')}</p>
      {/* Main explains the reason in English. */}
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
      <button type="button" className="button button--primary" onClick={restart}>
        {t('agentcall.ended.restart')}
      </button>
    </div>
  );
}

/**
 * One transcript entry, memoized: unchanged items stay identical in the view, so while a reply
 * streams only the growing message re-renders. Speech segments are the spoken form of the text
 * already shown, so they are not shown again.
 */
export const AgentCallItem = memo(function AgentCallItem({ item, context, thumbnail }: { item: SessionItem; context: ItemContext; thumbnail?: string | undefined }) {
  switch (item.kind) {
    case 'userText':
      return <UserText item={item} />;
    case 'userObservation':
      return <UserObservation item={item} thumbnail={thumbnail} />;
    case 'agentText':
      return <AgentText item={item} agentName={context.agentName} />;
    case 'speech':
      return null;
    case 'failure':
      return <Failure item={item} />;
    case 'notice':
      // The engine's notices are written in English.
      return (
        <p className="muted agentcall-notice" lang="en">
          {item.message}
        </p>
      );
    case 'interaction':
      return <Interaction item={item} />;
    case 'teaching':
      return <Teaching item={item} context={context} />;
    case 'passport':
      return <Passport item={item} context={context} />;
    case 'ended':
      return <Ended item={item} restart={context.restart} />;
  }
});

/**
 * The items the transcript shows, each request once: a request still waiting is the request panel
 * below the transcript (it joins the transcript once answered, declined or gone), and an agent's
 * answer that only repeats a request's prompt (as the demo's does) is not shown beside it.
 */
export function shownItems(items: readonly SessionItem[]): SessionItem[] {
  const prompts = new Set(items.flatMap((item) => (item.kind === 'interaction' ? [item.request.prompt.trim()] : [])));
  return items.filter((item) => isShown(item) && !(item.kind === 'agentText' && item.state === 'completed' && prompts.has(item.text.trim())));
}

/** Whether an item shows anything (speech repeats the text; an empty finished answer says nothing; a waiting request is the panel). */
function isShown(item: SessionItem): boolean {
  if (item.kind === 'speech') return false;
  if (item.kind === 'interaction') return item.state !== 'pending';
  if (item.kind === 'agentText') return item.text !== '' || item.state !== 'completed';
  return true;
}
