import type { StartTag } from '../../kiosk/KioskStartScreen';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { limits, type Intent } from '../../../shared/agentcall/protocol';
import type { SessionView } from '../../../shared/agentcall/session-view';
import type { IpcError } from '../../../shared/ipc/errors';
import { bargeInSettingOf } from '../../../shared/settings/settings';
import { useSettings } from '../../hooks/useApiData';
import { ConnectionFeedback } from '../../components/ConnectionFeedback';
import { Composer } from '../../components/Composer';
import { call } from '../../hooks/useLiveResource';
import { ObjectRefText } from '../../components/ObjectRefText';
import { useReportAgentStatus } from '../../hooks/useAgentStatus';
import { useConnectionLost } from '../../hooks/useConnection';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { ChatEnvironmentContext, type ChatEnvironment } from '../../components/ChatContext';
import { PhotoDialog } from '../photo/PhotoDialog';
import { WebPagesPanel } from '../webpages/WebPagesPanel';
import { AgentCallHeader } from './AgentCallHeader';
import type { ItemContext } from './AgentCallItems';
import { AgentCallTranscript } from './AgentCallTranscript';
import { modalityReason, ObservationBar, type SendObservation } from './ObservationBar';
import { RequestPanel } from './RequestPanel';
import { TokenPanel } from './TokenPanel';
import { useAgentCallSession } from './useAgentCallSession';
import { useAgentCallCall } from './useAgentCallCall';
import { AgentCallCallControl } from './AgentCallCallControl';
import { useAgentSpeech } from './useAgentSpeech';
import { useReadAloud } from './useReadAloud';
import { useClientListening } from './useClientListening';
import { ClientVoiceControl } from './ClientVoiceControl';
import { usePhotoThumbnails } from './usePhotoThumbnails';
import '../../styles/agentcall.css';
import type { AgentScreenProps } from '../../navigation';
import { useOpenLink } from '../../hooks/useOpenLink';
import { useWindowFileDrop } from '../../hooks/useWindowFileDrop';
import { LinkOpenError } from '../../components/LinkOpenError';
import { originOf } from '../../components/format';
import { InSidebar } from '../shell/SidebarPlace';

/** The one polite status line: what the session and the agent are doing, never the streamed text. */
function statusKey(view: SessionView): MessageKey | undefined {
  if (view.phase === 'connecting') return undefined;
  if (view.phase === 'awaitingEstablished') return 'agentcall.status.starting';
  if (view.phase === 'ended') return 'agentcall.ended.title';
  if (view.runActive) return view.runCancelling ? 'agentcall.status.cancelling' : 'chat.status.answering';
  if (view.pendingInteraction) return view.pendingInteraction.modality === 'nfc' ? 'agentcall.status.request.nfc' : 'agentcall.status.request.photo';
  const last = view.items.findLast((item) => item.kind === 'agentText');
  if (last?.kind !== 'agentText') return undefined;
  switch (last.state) {
    case 'completed':
      return 'chat.status.answered';
    case 'cancelled':
      return 'chat.status.cancelled';
    case 'failed':
      return 'chat.status.error';
    default:
      return undefined;
  }
}

/**
 * A session with an AgentCall agent (spec: agentcall-agui-extension-0.1, docs/agentcall.md):
 * connect (with the card's reasons when it cannot be used, or a token field when it asks for one),
 * then the transcript, the agent's requests to scan or photograph something, teaching proposals,
 * scans and photos the user sends with an intent, and text. Leaving the screen ends the session.
 */
export function AgentCallScreen({
  api,
  headingRef,
  agentId,
  label,
  onBack,
  startTag,
}: AgentScreenProps & { startTag?: StartTag }) {
  const { t, language } = useI18n();
  const { connection, state, reopen, applyLocal, beginCall, adoptCall } = useAgentCallSession(api, agentId);
  const { view, endedWithSession } = state;
  const agent = connection.status === 'open' || connection.status === 'call' ? connection.agent : undefined;
  const voiceCall = useAgentCallCall(api, agentId, beginCall, adoptCall);
  // A WebRTC card (agent-owned voice): the session is the call's.
  const callShown = connection.status === 'call' || voiceCall.state !== 'idle';
  const sessionKey = connection.status === 'open' ? connection.sessionKey : undefined;
  const ended = view.phase === 'ended';
  const ready = sessionKey !== undefined && view.phase === 'established';
  const { photoApi, sent: photoSent, thumbnail, clear: clearThumbnails } = usePhotoThumbnails(api);
  const [intent, setIntent] = useState<Intent>('identify');
  /** PhotoDialog is open, for the bar (no interactionId) or for the agent's request, maybe with a file dropped on the window. */
  const [photoFor, setPhotoFor] = useState<{ interactionId?: string; file?: File } | undefined>();
  const [photoError, setPhotoError] = useState<{ interactionId?: string; error: IpcError } | undefined>();
  const [ending, setEnding] = useState(false);
  const [endError, setEndError] = useState<IpcError | undefined>();
  const rootRef = useRef<HTMLDivElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);

  // The kiosk's start tag: once the session is established, it is the first observation (main checks it was a real tap, for the start agent).
  const startTagSent = useRef(false);
  useEffect(() => {
    if (!startTag || !ready || sessionKey === undefined || startTagSent.current) return;
    startTagSent.current = true;
    void call(() => api.kiosk.startTag({ sessionKey, scanId: startTag.scanId, objectRef: startTag.objectRef }));
  }, [api, startTag, ready, sessionKey]);

  // Session-local pictures go with the session.
  useEffect(() => {
    if (ended) clearThumbnails();
  }, [ended, clearThumbnails]);

  const pending = view.pendingInteraction;
  const pendingId = pending?.interactionId;

  // Client-owned voice (a WebSocket card with voice.owner "client"): the agent's speech segments and
  // spoken prompts are read out (main synthesises, the page plays), unless turned off.
  const clientVoice = agent?.voice.owner === 'client' && agent.voice.transport === 'websocket';
  const [readAloud, setReadAloud] = useReadAloud();
  const settings = useSettings(api);
  const agentSpeech = useAgentSpeech(api, clientVoice && readAloud, sessionKey, view, language);

  // A control that goes away with the focus in it (the request answered, the session ended) hands
  // the focus on instead of dropping it on the page.
  useEffect(() => {
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    if (ended) rootRef.current?.querySelector<HTMLButtonElement>('.agentcall-ended button')?.focus();
    else if (pendingId === undefined) composerRef.current?.focus();
  }, [ended, pendingId]);

  const send = useCallback<SendObservation>(
    async (request) => {
      if (sessionKey === undefined) return { code: 'session_ended', message: '' };
      // No await before this call: it runs in the user's click, which main checks for.
      const result = await call(() => api.agentcall.sendObservation({ sessionKey, intent, ...request }));
      return result.ok ? undefined : result.error;
    },
    [api, sessionKey, intent],
  );

  const sendText = useCallback(
    async (text: string) => {
      if (sessionKey === undefined) return { code: 'session_ended' as const, message: '' };
      const result = await call(() => api.agentcall.sendText({ sessionKey, text }));
      return result.ok ? undefined : result.error;
    },
    [api, sessionKey],
  );

  const listening = useClientListening({
    api,
    sessionKey: clientVoice ? sessionKey : undefined,
    runActive: view.runActive,
    locale: language,
    bargeIn: settings.state.status === 'ready' ? bargeInSettingOf(settings.state.value) : 'automatic',
    agentSpeaking: agentSpeech.isBusy,
    silenceAgent: agentSpeech.interrupt,
    sendText,
  });

  const cancelRun = useCallback(async () => {
    if (sessionKey === undefined) return undefined;
    const result = await call(() => api.agentcall.cancel({ sessionKey }));
    return result.ok ? undefined : result.error;
  }, [api, sessionKey]);

  const decline = useCallback(async () => {
    if (sessionKey === undefined) return undefined;
    const result = await call(() => api.agentcall.decline({ sessionKey }));
    return result.ok ? undefined : result.error;
  }, [api, sessionKey]);

  const answerProposal = useCallback(
    async (proposalId: string, answer: 'confirm' | 'cancel') => {
      if (sessionKey === undefined) return { code: 'session_ended' as const, message: '' };
      const result = await call(() => api.agentcall.answerProposal({ sessionKey, proposalId, answer }));
      return result.ok ? undefined : result.error;
    },
    [api, sessionKey],
  );

  const confirmRecipe = useCallback(
    async (passportId: string, recipeId: string) => {
      if (sessionKey === undefined) return { code: 'session_ended' as const, message: '' };
      // No await before this call: it runs in the user's Confirm click, which main checks for.
      const result = await call(() => api.agentcall.confirmRecipe({ sessionKey, passportId, recipeId }));
      return result.ok ? undefined : result.error;
    },
    [api, sessionKey],
  );

  const restart = useCallback(() => {
    clearThumbnails();
    setPhotoFor(undefined);
    setPhotoError(undefined);
    setEndError(undefined);
    reopen();
    headingRef.current?.focus();
  }, [clearThumbnails, reopen, headingRef]);

  async function endSession() {
    if (sessionKey === undefined || ending) return;
    setEnding(true);
    setEndError(undefined);
    const result = await call(() => api.agentcall.end({ sessionKey }));
    setEnding(false);
    // Main had already let the session go: show it as ended here too.
    const gone = result.ok ? !result.value.ended : result.error.code === 'session_ended';
    if (gone) applyLocal([{ type: 'ended', reason: { kind: 'client_end', message: '' } }]);
    else if (!result.ok) setEndError(result.error);
  }

  function onPhotoSend(photoId: string) {
    const interactionId = photoFor?.interactionId;
    setPhotoFor(undefined);
    setPhotoError(undefined);
    photoSent(photoId);
    // PhotoDialog calls this from its Send click: the gesture main checks for.
    void send({ photoId, ...(interactionId === undefined ? {} : { interactionId }) }).then((failure) => {
      if (failure) setPhotoError({ ...(interactionId === undefined ? {} : { interactionId }), error: failure });
    });
  }

  const { openLink, linkError } = useOpenLink(api);
  const issuer = agent ? originOf(agent.cardUrl) : '';
  const agentName = agent?.name ?? label;
  const environment = useMemo<ChatEnvironment>(
    () => ({ issuer, serverName: agentName, openLink, downloadFile: async () => ({ ok: false, error: { code: 'not_allowed', message: 'AgentCall agents do not offer downloads.' } }) }),
    [issuer, agentName, openLink],
  );
  const itemContext = useMemo<ItemContext>(
    () => ({
      agentName,
      shownProposalId: ended ? undefined : view.shownProposalId,
      endedWithSession,
      answerProposal,
      currentPassportId: ended ? undefined : view.currentPassportId,
      confirmRecipe,
      restart,
    }),
    [agentName, ended, view.shownProposalId, endedWithSession, answerProposal, view.currentPassportId, confirmRecipe, restart],
  );

  // The dialog stays open only while what it is for still stands.
  const photoOpen = photoFor !== undefined && ready && (photoFor.interactionId === undefined || photoFor.interactionId === pendingId);
  const lost = useConnectionLost();
  // Main is gone: a run that was going will not end on its own, so no spinner says it still goes.
  const status = lost && view.runActive ? 'chat.status.connectionLost' : statusKey(view);

  // A picture dropped anywhere on the screen opens the photo review with it (for the agent's photo
  // request when one is waiting), whenever this agent can take a photo now.
  const photoUsable = modalityReason('photo', { ready, ended }, view.usableModalities, agent?.accepted ?? []) === undefined;
  const dragging = useWindowFileDrop(photoUsable && !photoOpen, (file) => {
    setPhotoError(undefined);
    setPhotoFor(pending?.modality === 'photo' ? { interactionId: pending.interactionId, file } : { file });
  });

  useReportAgentStatus(
    agentId,
    ended ? 'sessionEnded' : connection.status === 'failed' ? (connection.error.code === 'sign_in_required' ? 'signInNeeded' : 'unreachable') : ready ? 'connected' : 'connecting',
  );

  return (
    <div ref={rootRef} className="screen chat agentcall">
      <AgentCallHeader
        headingRef={headingRef}
        label={label}
        agent={agent}
        canEnd={sessionKey !== undefined && !ended}
        ending={ending}
        endError={endError}
        onBack={onBack}
        onEnd={() => void endSession()}
        // Read from the card on its own: shown whether or not the session opens.
        webPages={<WebPagesPanel api={api} agentId={agentId} />}
      />
      <InSidebar agentId={agentId}>
        <p className="agent-session">
          {t('shell.session')} · {t(ended || connection.status === 'failed' ? 'shell.sessionEnded' : ready ? 'shell.sessionLive' : 'shell.sessionConnecting')}
        </p>
      </InSidebar>
      <ConnectionFeedback
        connectingText={connection.status === 'connecting' ? t('chat.connecting', { name: label }) : undefined}
        failure={
          connection.status === 'failed' && connection.error.code !== 'sign_in_required'
            ? { summary: t(connection.error.code === 'incompatible' ? 'agentcall.incompatible' : 'chat.connectFailed', { name: label }), error: connection.error }
            : undefined
        }
        onRetry={restart}
        onBack={onBack}
      />
      {connection.status === 'failed' && connection.error.code === 'sign_in_required' ? (
        <TokenPanel api={api} agentId={agentId} name={label} reason={connection.error} onSaved={restart} />
      ) : null}
      {sessionKey === undefined && callShown ? (
        <section className="chat-main agentcall-main" aria-label={t('chat.conversationLabel')}>
          <AgentCallCallControl call={voiceCall} name={agentName} runActive={false} />
        </section>
      ) : null}
      {sessionKey !== undefined ? (
        <ChatEnvironmentContext.Provider value={environment}>
          <section className="chat-main agentcall-main" aria-label={t('chat.conversationLabel')}>
            <LinkOpenError error={linkError} />
            {view.focus ? (
              <p className="agentcall-focus">
                {t('agentcall.focus')} <ObjectRefText value={view.focus.objectRef} />
              </p>
            ) : null}
            <AgentCallTranscript items={view.items} removed={view.removedItems > 0} times={state.times} context={itemContext} thumbnail={thumbnail} />
            <div className="run-status">
              {clientVoice ? (
                <button type="button" className="button button--secondary agentcall-read-aloud" aria-pressed={readAloud} onClick={() => setReadAloud(!readAloud)}>
                  {t(agentSpeech.speaking ? 'agentcall.voice.readingAloud' : 'agentcall.voice.readAloud')}
                </button>
              ) : null}
              <p className="run-status__text" role="status" aria-live="polite">
                {view.runActive && !lost ? <span className="spinner" aria-hidden="true" /> : null}
                {status === undefined ? null : pending && !ended && !view.runActive ? (
                  // The request panel shows the request; the line only announces it.
                  <span className="visually-hidden">{t(status)}</span>
                ) : (
                  t(status)
                )}
              </p>
            </div>
            {pending && !ended ? (
              <RequestPanel
                key={pending.interactionId}
                api={api}
                interaction={pending}
                usable={view.usableModalities}
                send={send}
                onOpenPhoto={() => setPhotoFor({ interactionId: pending.interactionId })}
                onDecline={decline}
                photoError={photoError && photoError.interactionId === pending.interactionId ? photoError.error : undefined}
              />
            ) : null}
            {callShown ? <AgentCallCallControl call={voiceCall} name={agentName} runActive={view.runActive} /> : null}
            <ObservationBar
              key={sessionKey}
              api={api}
              ready={ready}
              ended={ended}
              usable={view.usableModalities}
              accepted={agent?.accepted ?? []}
              intent={intent}
              onIntent={setIntent}
              send={send}
              onOpenPhoto={() => setPhotoFor({})}
              photoError={photoError && photoError.interactionId === undefined ? photoError.error : undefined}
            />
            {clientVoice && ready ? (
              <ClientVoiceControl listening={listening} agentSpeaking={agentSpeech.speaking} runActive={view.runActive} onType={() => composerRef.current?.focus()} />
            ) : null}
            <Composer
              textareaRef={composerRef}
              draftKey={`agentcall:${agentId}`}
              ready={ready}
              running={view.runActive}
              cancelling={view.runCancelling}
              max={limits.textChars}
              counterFrom={limits.textChars - 1_000}
              tooLongMessage={t('agentcall.composer.tooLong', { max: limits.textChars })}
              notSentText={t('agentcall.notSent')}
              onSend={sendText}
              onCancel={cancelRun}
            />
          </section>
        </ChatEnvironmentContext.Provider>
      ) : null}
      {photoOpen ? <PhotoDialog api={photoApi} onSend={onPhotoSend} onClose={() => setPhotoFor(undefined)} initialFile={photoFor.file} /> : null}
      {dragging ? (
        <div className="agentcall-drop" aria-hidden="true">
          <p className="agentcall-drop__text">{t('agentcall.photo.dropOnWindow', { name: agentName })}</p>
        </div>
      ) : null}
    </div>
  );
}
