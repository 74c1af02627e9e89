import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AgentCallAgent } from '../../../shared/agentcall/ipc-schemas';
import { limits, type Intent } from '../../../shared/agentcall/protocol';
import type { ConversationItem, ItemOfKind } from '../../../shared/conversation/items';
import type { IpcError } from '../../../shared/base/errors';
import { bargeInSettingOf } from '../../../shared/settings/settings';
import { ErrorAlert } from '../../components/ErrorText';
import { originOf } from '../../components/format';
import { LinkOpenError } from '../../components/LinkOpenError';
import { useSettings } from '../../hooks/useApiData';
import { call } from '../../hooks/useLiveResource';
import { useOpenLink } from '../../hooks/useOpenLink';
import { useWindowFileDrop } from '../../hooks/useWindowFileDrop';
import { usePolicyView } from '../../kiosk/policy-context';
import { recognizerInUse } from '../../../shared/speech/ipc-schemas';
import { useI18n } from '../../i18n/I18nProvider';
import type { StartTag } from '../../kiosk/KioskStartScreen';
import type { NfcObservationResult } from '../../screens/nfc/ScanControl';
import { PhotoDialog } from '../../screens/photo/PhotoDialog';
import type { StagedPhotoView as StagedPhotoData } from '../../screens/photo/photo-api';
import type { ProfileInput, ProtocolProfile } from '../profile';
import type { AgentCallItemActions } from './agentcall/actions';
import { AgentCallCallControl, CallButton } from './agentcall/AgentCallCallControl';
import { AgentCallDetails } from './agentcall/AgentCallDetails';
import { ClientVoiceControl, TalkButton } from './agentcall/ClientVoiceControl';
import { agentCallItemViews } from './agentcall/items';
import { StagedPhotoView, StagedTagView, type Staged } from './agentcall/staged';
import { TokenPanel } from './agentcall/TokenPanel';
import { AgentCallTools, modalityReason } from './agentcall/tools';
import { useAgentCallCall } from './agentcall/useAgentCallCall';
import { useAgentSpeech } from './agentcall/useAgentSpeech';
import { useClientListening } from './agentcall/useClientListening';
import { usePhotoThumbnails } from './agentcall/usePhotoThumbnails';
import { useReadAloud } from './agentcall/useReadAloud';
import '../../styles/agentcall.css';

/** The labels the agent gave objects in this conversation (observations it named, its proposals, passports), by reference. */
function objectLabels(items: readonly ConversationItem[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const item of items) {
    if (item.kind === 'observation' && item.object?.label !== undefined) labels.set(item.object.objectRef, item.object.label);
    if (item.kind === 'teaching' && item.state !== 'cancelled' && item.proposal.label.trim() !== '')
      labels.set(item.proposal.objectRef, item.proposal.label.trim());
    if (item.kind === 'passport' && item.passport.label.trim() !== '') labels.set(item.passport.objectRef, item.passport.label.trim());
  }
  return labels;
}

function lastOfKind<K extends ConversationItem['kind']>(items: readonly ConversationItem[], kind: K): ItemOfKind<K> | undefined {
  return items.findLast((item): item is ItemOfKind<K> => item.kind === kind);
}

/** The kiosk's start screen hands its tag to the start agent's screen (the first observation of its session). */
export function agentCallProfile(options: { startTag?: StartTag }): (input: ProfileInput) => ProtocolProfile {
  return function useAgentCallProfileWithStartTag(input: ProfileInput) {
    return useAgentCallProfile(input, options);
  };
}

/**
 * An AgentCall agent's share of the conversation screen (AgentCall AG-UI extension 0.1, docs/protocols.md#agentcall-ag-ui-extension-01):
 * - its items: what the user sent (the object by the name the agent gave it, else "Unknown object";
 *   a photo's thumbnail), the agent's scan and photo requests with Scan/Take the photo/Decline where
 *   they were asked, teaching proposals with Confirm/Cancel, object passports, the end of the session
 *   with Start a new session;
 * - at the end of the conversation, what exists only on this machine until it is sent: a tag just
 *   read, a photo just taken (renderer-local, not items: main has not been told of them), each with
 *   Send (with the intent) and Discard;
 * - the composer's tools: Scan object, Take a photo…, Call (a WebRTC card) or Talk by voice (a card
 *   whose voice is the client's), the intent; the call's bar above the composer while it is on;
 * - the token field when the card asks for one; the card's facts and web pages behind Details.
 * Leaving the screen keeps the session (coming back shows it; a reload finds it again); End session,
 * the session's own end or Hang up end it; Start a new session opens a new one.
 */
export function useAgentCallProfile(
  { api, agentId, label, store, state, view, composer }: ProfileInput,
  { startTag }: { startTag?: StartTag } = {},
): ProtocolProfile {
  const { t, language } = useI18n();
  const status = view?.status;
  const sessionKey = status?.session;
  const ended = status?.phase === 'ended';
  const ready = status?.phase === 'ready' && sessionKey !== undefined;
  const byCall = status?.reach === 'call';
  const runActive = status !== undefined && status.run !== 'idle';
  const usable = useMemo(() => status?.accepts ?? [], [status?.accepts]);
  const items = useMemo(() => view?.items ?? [], [view?.items]);

  // The card, for the title, what the agent accepts and how it is reached (it needs no session).
  const [agent, setAgent] = useState<AgentCallAgent | undefined>();
  const opened = state.status === 'open';
  useEffect(() => {
    let active = true;
    void call(() => api.agentcall.card({ agentId })).then((result) => {
      if (active && result.ok) setAgent(result.value.agent);
    });
    return () => {
      active = false;
    };
  }, [api, agentId, opened]);
  // A kiosk names the agent as its administrator did (the policy's name), never by its card (issue #27).
  const policy = usePolicyView();
  const agentName = policy.kiosk ? label : (agent?.name ?? label);
  const accepted = useMemo(() => agent?.accepted ?? [], [agent]);

  const pendingRequest = items.findLast((item): item is ItemOfKind<'request'> => item.kind === 'request' && item.state === 'pending');
  const pendingRequestId = ended ? undefined : pendingRequest?.request.interactionId;
  const lastProposal = lastOfKind(items, 'teaching');
  const currentProposalId = lastProposal?.state === 'shown' ? lastProposal.proposal.proposalId : undefined;
  const currentPassportId = items.findLast((item): item is ItemOfKind<'passport'> => item.kind === 'passport' && item.state === 'current')?.passport.passportId;
  const labels = useMemo(() => objectLabels(items), [items]);

  const [intent, setIntent] = useState<Intent>('identify');
  const thumbnails = usePhotoThumbnails(api);
  const { clear: clearThumbnails, sent: photoSent } = thumbnails;

  // What waits on this machine for Send: one tag and one photo at most (a newer one replaces it), in the order they came.
  const [staged, setStaged] = useState<Staged[]>([]);
  const [sending, setSending] = useState<ReadonlySet<Staged['kind']>>(new Set());
  const [stageErrors, setStageErrors] = useState<Partial<Record<Staged['kind'], IpcError>>>({});
  const stage = useCallback(
    (entry: Staged) => {
      setStaged((current) => {
        for (const old of current)
          if (old.kind === 'photo' && entry.kind === 'photo' && old.photo.photoId !== entry.photo.photoId)
            void call(() => api.photo.discard({ photoId: old.photo.photoId }));
        return [...current.filter((old) => old.kind !== entry.kind), entry];
      });
      setStageErrors((current) => ({ ...current, [entry.kind]: undefined }));
    },
    [api],
  );
  const unstage = useCallback((kind: Staged['kind']) => {
    setStaged((current) => current.filter((entry) => entry.kind !== kind));
    setStageErrors((current) => ({ ...current, [kind]: undefined }));
  }, []);
  const forget = useCallback(() => {
    setStaged([]);
    setStageErrors({});
    clearThumbnails();
  }, [clearThumbnails]);

  // Session-local things go with the session: what waited is not shown any more (main dropped its photos
  // and tags), the thumbnails go.
  useEffect(() => {
    if (ended) clearThumbnails();
  }, [ended, clearThumbnails]);
  const waiting = ended ? [] : staged;

  const sendStaged = (entry: Staged) => {
    if (sessionKey === undefined || sending.has(entry.kind)) return;
    const interactionId = entry.interactionId !== undefined && entry.interactionId === pendingRequestId ? entry.interactionId : undefined;
    const request = entry.kind === 'tag' ? { scan: { scanId: entry.scan.scanId, objectRef: entry.scan.object.objectRef } } : { photoId: entry.photo.photoId };
    setSending((current) => new Set([...current, entry.kind]));
    setStageErrors((current) => ({ ...current, [entry.kind]: undefined }));
    // No await before this call: it runs in the user's click, which main checks for.
    void call(() => api.agentcall.sendObservation({ sessionKey, intent, ...request, ...(interactionId === undefined ? {} : { interactionId }) })).then(
      (result) => {
        setSending((current) => new Set([...current].filter((kind) => kind !== entry.kind)));
        if (!result.ok) return setStageErrors((current) => ({ ...current, [entry.kind]: result.error }));
        if (entry.kind === 'photo') photoSent(entry.photo.photoId);
        setStaged((current) => current.filter((shown) => shown !== entry));
      },
    );
  };
  const discardStaged = (entry: Staged) => {
    if (entry.kind === 'photo') void call(() => api.photo.discard({ photoId: entry.photo.photoId }));
    unstage(entry.kind);
  };

  /** The photo dialog: for the composer's Take a photo… or for the agent's request, maybe with a file dropped on the window. */
  const [photoFor, setPhotoFor] = useState<{ interactionId?: string; file?: File } | undefined>();
  const photoOpen = photoFor !== undefined && ready && (photoFor.interactionId === undefined || photoFor.interactionId === pendingRequestId);
  const photoUsable = modalityReason('photo', { ready, call: byCall }, usable, accepted) === undefined && !ended;
  const dragging = useWindowFileDrop(photoUsable && !photoOpen && policy.filePicker, (file) => {
    setPhotoFor(pendingRequest?.request.modality === 'photo' && pendingRequestId !== undefined ? { interactionId: pendingRequestId, file } : { file });
  });
  const onPhotoStaged = (photo: StagedPhotoData) => {
    const interactionId = photoFor?.interactionId;
    setPhotoFor(undefined);
    stage({ kind: 'photo', photo, ...(interactionId === undefined ? {} : { interactionId }) });
  };

  // The kiosk's start tag: once the session is established, it is the first observation (main checks it was a real tap, for the start agent).
  const startTagSent = useRef(false);
  useEffect(() => {
    if (!startTag || !ready || sessionKey === undefined || startTagSent.current) return;
    startTagSent.current = true;
    void call(() => api.kiosk.startTag({ sessionKey, scanId: startTag.scanId, objectRef: startTag.objectRef }));
  }, [api, startTag, ready, sessionKey]);

  // Voice. A WebRTC card (agent-owned voice) is called; a card whose voice is the client's is read aloud (main
  // synthesises, the page plays) and listened to (main recognises).
  const voiceCall = useAgentCallCall(api, agentId);
  // Where the policy turns voice off, neither is offered (no Call, no Talk by voice, no call bar).
  const clientVoice = policy.voice && agent?.voice.owner === 'client' && agent.voice.transport === 'websocket';
  // A kiosk offers Talk by voice only where something can recognise speech: without, it would only tell a
  // visitor to import a speech model (issue #27). Elsewhere Talk by voice says so itself, to the user who can.
  const [canRecognise, setCanRecognise] = useState(!policy.kiosk);
  useEffect(() => {
    if (!policy.kiosk || !clientVoice) return undefined;
    let active = true;
    void call(() => api.speech.status({})).then((result) => {
      if (active) setCanRecognise(result.ok && recognizerInUse(result.value.recognition) !== 'none');
    });
    return () => {
      active = false;
    };
  }, [api, policy.kiosk, clientVoice]);
  const [readAloud, setReadAloud] = useReadAloud();
  const settings = useSettings(api);
  const agentSpeech = useAgentSpeech(api, clientVoice && readAloud, sessionKey, language);
  const readAloudToggle = (
    <button type="button" className="button button--secondary agentcall-read-aloud" aria-pressed={readAloud} onClick={() => setReadAloud(!readAloud)}>
      {t(agentSpeech.speaking ? 'agentcall.voice.readingAloud' : 'agentcall.voice.readAloud')}
    </button>
  );
  const listening = useClientListening({
    api,
    sessionKey: clientVoice ? sessionKey : undefined,
    runActive,
    locale: language,
    bargeIn: settings.state.status === 'ready' ? bargeInSettingOf(settings.state.value) : 'automatic',
    agentSpeaking: agentSpeech.isBusy,
    silenceAgent: agentSpeech.interrupt,
    sendText: (text) => store.send(text),
  });

  // A control that went away with the focus in it (a request answered, Hang up, Stop, End session) hands
  // the focus on — to Start a new session once the session ended, else to the composer — never to the page.
  const composerRef = useRef(composer);
  useEffect(() => {
    composerRef.current = composer;
  }, [composer]);
  useEffect(() => {
    const active = document.activeElement;
    if (active !== null && active !== document.body) return;
    if (ended) document.querySelector<HTMLButtonElement>('.agentcall-ended button')?.focus();
    // A call that ended ends its session: the focus waits for Start a new session.
    else if (pendingRequestId === undefined && !(byCall && sessionKey !== undefined && voiceCall.state === 'idle')) composerRef.current.field()?.focus();
  }, [ended, pendingRequestId, byCall, sessionKey, voiceCall.state, listening.state]);

  const [ending, setEnding] = useState(false);
  const [endError, setEndError] = useState<IpcError | undefined>();
  const endSession = async () => {
    if (sessionKey === undefined || ending) return;
    setEnding(true);
    setEndError(undefined);
    const result = await call(() => api.agentcall.end({ sessionKey }));
    setEnding(false);
    if (!result.ok && result.error.code !== 'session_ended') setEndError(result.error);
  };

  const renew = useCallback(() => {
    forget();
    setPhotoFor(undefined);
    setEndError(undefined);
    void store.renew();
  }, [forget, store]);

  const { openLink, linkError } = useOpenLink(api);
  const environment = useMemo(
    () => ({
      issuer: agent ? originOf(agent.cardUrl) : '',
      serverName: agentName,
      openLink,
      downloadFile: async () => ({ ok: false as const, error: { code: 'not_allowed' as const, message: 'AgentCall agents do not offer downloads.' } }),
    }),
    [agent, agentName, openLink],
  );

  const sessionRef = useRef(sessionKey);
  useEffect(() => {
    sessionRef.current = sessionKey;
  }, [sessionKey]);
  const answer = useCallback(async (send: (key: string) => Promise<{ ok: boolean; error?: IpcError }>): Promise<IpcError | undefined> => {
    const key = sessionRef.current;
    if (key === undefined) return { code: 'session_ended', message: '' };
    const result = await send(key);
    return result.ok ? undefined : result.error;
  }, []);
  const { thumbnail } = thumbnails;
  const actions = useMemo(() => {
    const agentCall: AgentCallItemActions = {
      api,
      agentName,
      live: ready && !ended,
      usable,
      currentProposalId,
      currentPassportId,
      // No await before each call: it runs in the user's click, which main checks for.
      answerProposal: (proposalId, choice) => answer((key) => call(() => api.agentcall.answerProposal({ sessionKey: key, proposalId, answer: choice }))),
      confirmRecipe: (passportId, recipeId) => answer((key) => call(() => api.agentcall.confirmRecipe({ sessionKey: key, passportId, recipeId }))),
      decline: () => answer((key) => call(() => api.agentcall.decline({ sessionKey: key }))),
      tagRead: (scan: NfcObservationResult, interactionId: string) => stage({ kind: 'tag', scan, interactionId }),
      takePhoto: (interactionId: string) => setPhotoFor({ interactionId }),
      thumbnail,
      renew,
    };
    return { agentCall };
  }, [api, agentName, ready, ended, usable, currentProposalId, currentPassportId, answer, stage, thumbnail, renew]);

  const signIn = state.status === 'failed' && state.error.code === 'sign_in_required' ? state.error : undefined;
  const voiceTool =
    byCall && policy.voice && voiceCall.state === 'idle' ? (
      <CallButton call={voiceCall} name={agentName} />
    ) : clientVoice && canRecognise && ready && listening.state === 'off' ? (
      <TalkButton listening={listening} />
    ) : undefined;

  return {
    title: agentName,
    ...(signIn ? { gate: <TokenPanel api={api} agentId={agentId} name={agentName} reason={signIn} onSaved={() => void store.open()} /> } : {}),
    views: agentCallItemViews,
    actions,
    environment,
    tools: ended ? undefined : (
      <AgentCallTools
        api={api}
        accepted={accepted}
        usable={usable}
        ready={ready}
        call={byCall}
        intent={intent}
        onIntent={setIntent}
        onTagRead={(scan) => stage({ kind: 'tag', scan })}
        onPhoto={() => setPhotoFor({})}
        voice={voiceTool}
      />
    ),
    callBar:
      byCall && policy.voice ? (
        <div className="agentcall-call">
          <AgentCallCallControl call={voiceCall} runActive={runActive} />
        </div>
      ) : clientVoice && ready ? (
        <div className="agentcall-call">
          <ClientVoiceControl
            listening={listening}
            agentSpeaking={agentSpeech.speaking}
            runActive={runActive}
            onType={() => composer.field()?.focus()}
            readAloud={readAloudToggle}
          />
        </div>
      ) : undefined,
    pending:
      waiting.length === 0 ? undefined : (
        <>
          {waiting.map((entry) => {
            const props = {
              intent,
              forRequest: entry.interactionId !== undefined && entry.interactionId === pendingRequestId,
              sending: sending.has(entry.kind),
              error: stageErrors[entry.kind],
              onSend: () => sendStaged(entry),
              onDiscard: () => discardStaged(entry),
            };
            return entry.kind === 'tag' ? (
              <StagedTagView
                key={`tag:${entry.scan.scanId}:${entry.scan.object.objectRef}`}
                staged={entry}
                label={labels.get(entry.scan.object.objectRef)}
                {...props}
              />
            ) : (
              <StagedPhotoView key={`photo:${entry.photo.photoId}`} staged={entry} {...props} />
            );
          })}
        </>
      ),
    overlay: (
      <>
        {photoOpen ? (
          <PhotoDialog
            api={thumbnails.photoApi}
            onSend={() => undefined}
            onStaged={onPhotoStaged}
            onClose={() => setPhotoFor(undefined)}
            initialFile={photoFor.file}
          />
        ) : null}
        {dragging ? (
          <div className="agentcall-drop" aria-hidden="true">
            <p className="agentcall-drop__text">{t('agentcall.photo.dropOnWindow', { name: agentName })}</p>
          </div>
        ) : null}
      </>
    ),
    details: <AgentCallDetails api={api} agentId={agentId} agent={agent} name={agentName} />,
    sidebar: (
      <p className="agent-session">
        {t('shell.session')} · {t(ended || state.status === 'failed' ? 'shell.sessionEnded' : ready ? 'shell.sessionLive' : 'shell.sessionConnecting')}
      </p>
    ),
    headerActions:
      sessionKey !== undefined && !ended ? (
        <button type="button" className="button button--secondary" disabled={ending} aria-busy={ending || undefined} onClick={() => void endSession()}>
          {t('agentcall.end')}
        </button>
      ) : undefined,
    composer: {
      draftKey: `agentcall:${agentId}`,
      max: limits.textChars,
      // A WebRTC card's conversation is the call's: nothing can be sent before it.
      ...(byCall && sessionKey === undefined ? { blocked: 'agentcall.call.first' as const } : {}),
    },
    ...(pendingRequest !== undefined && !ended
      ? { waitingText: t(pendingRequest.request.modality === 'nfc' ? 'agentcall.status.request.nfc' : 'agentcall.status.request.photo') }
      : {}),
    statusExtra: (
      <>
        {/* While Talk by voice listens, the toggle is on the call's bar (one row less above the composer). */}
        {clientVoice && ready && listening.state === 'off' ? readAloudToggle : null}
        <ErrorAlert summary={t('agentcall.endFailed')} error={endError} />
        <LinkOpenError error={linkError} />
      </>
    ),
    empty: byCall && sessionKey === undefined ? t('agentcall.call.hint') : t('agentcall.empty'),
  };
}
