import { useCallback, useEffect, useRef, useState } from 'react';
import { builtInDemoAgentId } from '../../../shared/ipc/contract';
import type { IpcError } from '../../../shared/ipc/errors';
import type { ServerView } from '../../../shared/talkie/ipc-schemas';
import { ConnectionFeedback } from '../../components/ConnectionFeedback';
import type { ShownError } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useReportAgentStatus } from '../../hooks/useAgentStatus';
import { useI18n } from '../../i18n/I18nProvider';
import { useAccent } from '../../components/accent';
import { ChatBody } from './ChatBody';
import { ChatHeader } from './ChatHeader';
import { EndpointsPanel } from './EndpointsPanel';
import { ManifestNotes } from './ManifestNotes';
import { SignInPanel } from './SignInPanel';
import { WebPagesPanel } from '../webpages/WebPagesPanel';
import type { AgentScreenProps } from '../../navigation';

type Connection =
  | { status: 'connecting' }
  | { status: 'failed'; error: IpcError }
  /** `reason`: why sign-in is shown again (a call answered sign_in_required). */
  | { status: 'ready'; view: ServerView; reason?: ShownError };

/** Which step of opening the chat the user is at. */
function stepOf(view: ServerView): 'endpoints' | 'signIn' | 'chat' {
  if (!view.endpointsAccepted) return 'endpoints';
  if (!view.signedIn) return 'signIn';
  return 'chat';
}

/**
 * A chat with one Talkie agent: connect (manifest, brand), then the steps the server needs (accept
 * endpoints on other sites, sign in), then the conversation. Escape never leaves it (#26): it closes
 * what is open (a dialog, the drawer, the chat search) or does nothing; Back goes to Home.
 */
export function TalkieScreen({
  api,
  headingRef,
  agentId,
  label,
  onBack,
}: AgentScreenProps) {
  const { t } = useI18n();
  const [connection, setConnection] = useState<Connection>({ status: 'connecting' });
  const [attempt, setAttempt] = useState(0);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<IpcError | undefined>();
  const view = connection.status === 'ready' ? connection.view : undefined;
  const rootRef = useAccent<HTMLDivElement>(view?.accent);
  const gateHeadingRef = useRef<HTMLHeadingElement>(null);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const newChatRef = useRef<HTMLButtonElement>(null);
  /** Set when the user finished a step: focus moves to what replaced it once it rendered. */
  const focusNextStep = useRef(false);

  useEffect(() => {
    let active = true;
    void call(() => api.talkie.connect({ agentId })).then((result) => {
      if (!active) return;
      setConnection(result.ok ? { status: 'ready', view: result.value } : { status: 'failed', error: result.error });
    });
    return () => {
      active = false;
    };
  }, [api, agentId, attempt]);

  const step = view ? stepOf(view) : undefined;
  useReportAgentStatus(
    agentId,
    connection.status === 'connecting' ? 'connecting' : connection.status === 'failed' ? 'unreachable' : step === 'chat' ? 'connected' : step === 'signIn' ? 'signInNeeded' : 'approvalNeeded',
  );
  useEffect(() => {
    if (!focusNextStep.current || step === undefined) return;
    focusNextStep.current = false;
    if (step === 'chat') composerRef.current?.focus();
    else gateHeadingRef.current?.focus();
  }, [step]);

  const onView = useCallback((next: ServerView) => {
    focusNextStep.current = true;
    setConnection({ status: 'ready', view: next });
  }, []);

  const onAuthProblem = useCallback((error: ShownError) => {
    setConnection((current) => {
      if (current.status !== 'ready') return current;
      if (error.code === 'sign_in_required') return { status: 'ready', view: { ...current.view, signedIn: false }, reason: error };
      if (error.code === 'endpoints_not_accepted') return { status: 'ready', view: { ...current.view, endpointsAccepted: false } };
      return current;
    });
  }, []);

  async function signOut() {
    if (signingOut) return;
    setSigningOut(true);
    setSignOutError(undefined);
    const result = await call(() => api.talkie.signOut({ agentId }));
    setSigningOut(false);
    if (result.ok) onView(result.value);
    else setSignOutError(result.error);
  }

  function retryConnect() {
    setConnection({ status: 'connecting' });
    setAttempt((n) => n + 1);
    headingRef.current?.focus();
  }

  return (
    <div ref={rootRef} className="screen chat">
      <ChatHeader
        headingRef={headingRef}
        title={view?.name ?? label}
        view={view}
        canSignOut={view !== undefined && view.signedIn && agentId !== builtInDemoAgentId}
        signingOut={signingOut}
        signOutError={signOutError}
        onBack={onBack}
        onSignOut={() => void signOut()}
      />
      <WebPagesPanel api={api} agentId={agentId} />
      <ConnectionFeedback
        connectingText={connection.status === 'connecting' ? t('chat.connecting', { name: label }) : undefined}
        failure={connection.status === 'failed' ? { summary: t('chat.connectFailed', { name: label }), error: connection.error } : undefined}
        onRetry={retryConnect}
        onBack={onBack}
      />
      {view ? <ManifestNotes problems={view.problems} /> : null}
      {view && step === 'endpoints' ? <EndpointsPanel api={api} view={view} headingRef={gateHeadingRef} onView={onView} /> : null}
      {view && step === 'signIn' ? (
        <SignInPanel api={api} view={view} reason={connection.status === 'ready' ? connection.reason : undefined} headingRef={gateHeadingRef} onView={onView} />
      ) : null}
      {view && step === 'chat' ? <ChatBody api={api} view={view} composerRef={composerRef} newChatRef={newChatRef} onAuthProblem={onAuthProblem} /> : null}
    </div>
  );
}
