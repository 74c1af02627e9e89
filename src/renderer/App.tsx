import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import type { AgentDeskApi } from '../shared/ipc/api';
import type { UiScreen } from '../shared/ipc/ui-memory-schemas';
import { maxDismissedNotices, type Settings } from '../shared/settings/settings';
import { CrashBoundary } from './components/CrashBoundary';
import { useAgents, useAppInfo, useSettings, type AppInfo } from './hooks/useApiData';
import { UiMemoryProvider, useUiMemory } from './hooks/useUiMemory';
import { call, type LiveResource } from './hooks/useLiveResource';
import type { Notice } from '../shared/ipc/notices';
import { I18nProvider, useI18n } from './i18n/I18nProvider';
import { noticeKey } from './i18n/strings';
import { sameScreen, type AgentProtocol, type Screen } from './navigation';
import { LazyAgentScreen, usePreloadAgentScreen } from './screens/LazyAgentScreen';
import { HomeScreen } from './screens/HomeScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { Sidebar } from './screens/shell/Sidebar';
import { SidebarPlaceContext, type SidebarPlaceValue } from './screens/shell/SidebarPlace';
import { useDialogFocus } from './hooks/useDialogFocus';
import { ConnectionLostContext } from './hooks/useConnection';
import { AgentStatusContext, type AgentStatus, type ReportAgentStatus } from './hooks/useAgentStatus';
import type { DevicePolicyStatus } from '../shared/device-policy/ipc-schemas';
import type { IpcError } from '../shared/base/errors';
import { agentTitle } from '../shared/agents/label';
import { nfcSettingsOf } from '../shared/settings/settings';
import { PolicyContext, usePolicyView } from './kiosk/policy-context';
import { installKioskGuards } from './kiosk/kiosk-guards';
import { KioskStartScreen, type StartTag } from './kiosk/KioskStartScreen';
import { IdleCountdown } from './kiosk/IdleCountdown';
import { AdminPinDialog } from './kiosk/AdminPinDialog';
import { useIdleReset } from './kiosk/useIdleReset';

export interface AppProps {
  api: AgentDeskApi;
  /** The web shell's connection: resolves when it is lost for good. */
  closed?: Promise<number> | undefined;
  /** The device policy as main reported it (none by default). */
  policy?: DevicePolicyStatus;
}

/**
 * Loads the settings (they decide language, theme and text size) and renders the shell in them. Until
 * main first answered (one IPC call) nothing is shown: a first screen in the defaults would flash English,
 * the light theme and normal text before the user's own. Settings that cannot be read give the defaults.
 */
export function App({ api, closed, policy = { state: 'none' } }: AppProps) {
  const settings = useSettings(api);
  const current = settings.state.status === 'ready' ? settings.state.value : undefined;
  const loading = settings.state.status === 'loading';
  // Only the first load shows nothing: a later one (Settings' Try again) keeps the app on screen.
  const [loadedOnce, setLoadedOnce] = useState(false);
  if (!loading && !loadedOnce) setLoadedOnce(true);
  useAppearance(current, loading);
  if (loading && !loadedOnce) return null;
  return (
    <I18nProvider setting={current?.language ?? 'system'}>
      <PolicyContext.Provider value={policy}>
        <UiMemoryProvider api={api}>
          <CrashBoundary>
            <Shell api={api} closed={closed} settings={settings} />
          </CrashBoundary>
        </UiMemoryProvider>
      </PolicyContext.Provider>
    </I18nProvider>
  );
}

/** Theme and text size live on <html> as data attributes; tokens.css does the rest. Nothing is set while the settings load. */
function useAppearance(settings: Settings | undefined, loading: boolean) {
  const theme = settings?.appearance.theme ?? 'system';
  const textSize = settings?.appearance.textSize ?? 'normal';
  // Before the browser paints the screen rendered with these settings.
  useLayoutEffect(() => {
    if (loading) return;
    const root = document.documentElement;
    root.dataset.theme = theme;
    root.dataset.textSize = textSize;
  }, [theme, textSize, loading]);
}

function useClosed(closed: Promise<number> | undefined): boolean {
  const [lost, setLost] = useState(false);
  useEffect(() => {
    if (!closed) return undefined;
    let active = true;
    void closed.then(() => {
      if (active) setLost(true);
    });
    return () => {
      active = false;
    };
  }, [closed]);
  return lost;
}

function Shell({ api, closed, settings }: { api: AgentDeskApi; closed: Promise<number> | undefined; settings: LiveResource<Settings> }) {
  const { t } = useI18n();
  const memory = useUiMemory();
  const policy = usePolicyView();
  const { kiosk } = policy;
  // After a reload or a renderer crash, the screen that was open comes back (main kept it); a kiosk starts on its start screen.
  const [screen, setScreen] = useState<Screen>(() => (kiosk ? { name: 'start' } : screenOf(memory.currentScreen())));
  const headingRef = useRef<HTMLHeadingElement>(null);
  const mainRef = useRef<HTMLElement>(null);
  const connectionLost = useClosed(closed);
  const info = useAppInfo(api);
  const agents = useAgents(api);

  const addInputRef = useRef<HTMLInputElement>(null);
  /** Where focus goes once the new screen rendered: its heading, or Home's address field ("Add an agent"). */
  const focusAfterRender = useRef<'heading' | 'add' | null>(null);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const menuButtonRef = useRef<HTMLButtonElement>(null);
  const firstSidebarItemRef = useRef<HTMLButtonElement>(null);

  // Settings under the admin PIN: the PIN prompt first (main decides; the page remembers it for main's 5 minutes).
  const [pinPrompt, setPinPrompt] = useState(false);
  const adminUntil = useRef(0);

  const navigate = useCallback(
    (next: Screen, focus: 'heading' | 'add' = 'heading') => {
      setDrawerOpen(false);
      if (sameScreen(next, screen)) {
        (focus === 'add' ? addInputRef : headingRef).current?.focus();
        return;
      }
      if (next.name === 'settings' && policy.adminPin && Date.now() >= adminUntil.current) {
        setPinPrompt(true);
        return;
      }
      // A kiosk without an admin PIN has no Settings.
      if (next.name === 'settings' && kiosk && !policy.adminPin) return;
      focusAfterRender.current = focus;
      if (next.name !== 'start') {
        memory.saveScreen(
          next.name === 'chat'
            ? { name: 'chat', agentId: next.agentId, label: next.label, ...(next.protocol ? { protocol: next.protocol } : {}) }
            : { name: next.name },
        );
      }
      setScreen(next);
    },
    [screen, memory, policy.adminPin, kiosk],
  );

  // The kiosk (issue #18): its guards, the start screen, the reset (at start, after a crash, when idle).
  useEffect(() => (kiosk ? installKioskGuards() : undefined), [kiosk]);
  const [resetting, setResetting] = useState(kiosk);
  const [resetError, setResetError] = useState<IpcError | undefined>();
  const [startTag, setStartTag] = useState<StartTag | undefined>();
  /**
   * Main ends every session and wipes it first (photos, tags, drafts, files: its rule, `kiosk.reset`),
   * with the page's own copy of the drafts dropped before, so that nothing the screens send as they
   * go can bring a draft back; then the start screen replaces whatever was open.
   */
  const startOver = useCallback(async () => {
    // For bench:kiosk (the reset → start screen figure): when the reset began.
    performance.mark('agentdesk:kiosk-reset');
    memory.forget();
    setResetting(true);
    const result = await call(() => api.kiosk.reset({}));
    setResetError(result.ok ? undefined : result.error);
    setResetting(false);
    setDrawerOpen(false);
    setPinPrompt(false);
    setStartTag(undefined);
    adminUntil.current = 0;
    focusAfterRender.current = 'heading';
    setScreen({ name: 'start' });
  }, [api, memory]);
  // A kiosk page that starts (at launch, or reloaded after a crash) clears what the last one left.
  const bootReset = useRef(kiosk);
  useEffect(() => {
    if (!bootReset.current) return;
    bootReset.current = false;
    void startOver();
  }, [startOver]);
  const idle = useIdleReset(api, {
    idleResetSeconds: kiosk ? policy.idleResetSeconds : undefined,
    idleAgentHoldSeconds: policy.idleAgentHoldSeconds,
    session: screen.name !== 'start' && !resetting,
    onReset: startOver,
  });
  const kioskScan = settings.state.status === 'ready' && nfcSettingsOf(settings.state.value).kioskScan && policy.forced.includes('nfc.kioskScan');
  const agentList = agents.state.status === 'ready' ? agents.state.value : [];
  // The kiosk's start screen offers the policy's agents by the administrator's names when there are several (issue #27).
  const choices = kiosk && agentList.length > 1 ? agentList.map((entry) => ({ agentId: entry.id, title: agentTitle(entry) })) : undefined;
  const start = (tag?: StartTag, chosen?: string) => {
    if (resetting) return;
    // A tag (or a touch with one agent) opens the start agent; a kiosk with one agent and no start agent opens that one.
    const agentId = chosen ?? policy.startAgentId ?? (kiosk && agentList.length === 1 ? agentList[0]?.id : undefined);
    const entry = agentList.find((agent) => agent.id === agentId);
    if (agentId === undefined || !entry) return kiosk ? undefined : navigate({ name: 'home' });
    setStartTag(tag && agentId === policy.startAgentId ? tag : undefined);
    navigate({ name: 'chat', agentId, label: agentTitle(entry) });
  };
  const onUnlocked = (until: string) => {
    adminUntil.current = Date.parse(until);
    setPinPrompt(false);
    focusAfterRender.current = 'heading';
    memory.saveScreen({ name: 'settings' });
    setScreen({ name: 'settings' });
  };

  usePreloadAgentScreen();

  const focusAfterNavigation = useCallback(() => {
    const focus = focusAfterRender.current;
    if (focus === null) return;
    const target = (focus === 'add' ? addInputRef : headingRef).current;
    // The agent screens' code may still be loading: LazyAgentScreen calls this again once it rendered.
    if (!target) return;
    focusAfterRender.current = null;
    target.focus();
  }, []);
  useEffect(focusAfterNavigation, [screen, focusAfterNavigation]);

  // The drawer (narrow windows): opening it moves focus into it; closing it gives focus back to the menu button.
  const drawerWasOpen = useRef(false);
  useEffect(() => {
    if (drawerOpen) firstSidebarItemRef.current?.focus();
    else if (drawerWasOpen.current && document.activeElement === document.body) menuButtonRef.current?.focus();
    drawerWasOpen.current = drawerOpen;
  }, [drawerOpen]);

  // While the drawer is open, Tab stays inside it (its own open/close focus above: navigating moves focus to the new screen).
  const drawerRef = useRef<HTMLDivElement>(null);
  useDialogFocus(drawerRef, drawerOpen, { moveFocus: false });

  const closeDrawer = () => {
    setDrawerOpen(false);
    menuButtonRef.current?.focus();
  };
  const onDrawerKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (event.key !== 'Escape' || !drawerOpen || event.defaultPrevented) return;
      // The drawer takes this Escape: nothing under it (a search box, the screen) acts on it as well.
      event.preventDefault();
      setDrawerOpen(false);
      menuButtonRef.current?.focus();
    },
    [drawerOpen],
  );

  // What each agent opened this session turned out to speak: the sidebar shows it as its kind.
  const [kinds, setKinds] = useState<Readonly<Record<string, AgentProtocol | 'a2a'>>>({});
  const openAgentId = screen.name === 'chat' ? screen.agentId : undefined;
  const identified = useCallback(
    (protocol: AgentProtocol | 'a2a') => {
      if (openAgentId !== undefined) setKinds((known) => (known[openAgentId] === protocol ? known : { ...known, [openAgentId]: protocol }));
    },
    [openAgentId],
  );

  // What the open agent's screen says of it: the sidebar shows it with the kind.
  const [statuses, setStatuses] = useState<Readonly<Record<string, AgentStatus>>>({});
  const reportStatus = useCallback<ReportAgentStatus>((agentId, status) => {
    setStatuses((known) => {
      if (known[agentId] === status) return known;
      const next = { ...known };
      if (status === undefined) delete next[agentId];
      else next[agentId] = status;
      return next;
    });
  }, []);

  // Under the open agent's entry, its screen shows its threads or its session (SidebarPlace).
  const [placeElement, setPlaceElement] = useState<HTMLDivElement | null>(null);
  const place = useMemo<SidebarPlaceValue>(
    () => ({
      element: placeElement,
      agentId: openAgentId,
      onPicked: () => {
        if (!drawerOpen) return;
        // The drawer closes over the chat the user picked; focus goes to its screen, not the hidden drawer.
        setDrawerOpen(false);
        (headingRef.current ?? mainRef.current)?.focus();
      },
      onKeyDown: onDrawerKeyDown,
    }),
    [placeElement, openAgentId, drawerOpen, onDrawerKeyDown],
  );

  const skipToContent = (event: MouseEvent<HTMLAnchorElement>) => {
    // Move focus without touching the URL or the history.
    event.preventDefault();
    (headingRef.current ?? mainRef.current)?.focus();
  };

  const overlays = (
    <>
      {idle.secondsLeft !== undefined ? <IdleCountdown secondsLeft={idle.secondsLeft} onContinue={idle.stillHere} /> : null}
      {pinPrompt ? <AdminPinDialog api={api} onUnlocked={onUnlocked} onCancel={() => setPinPrompt(false)} /> : null}
    </>
  );

  if (screen.name === 'start') {
    return (
      <div className="app app--kiosk-start">
        <main id="content" ref={mainRef} tabIndex={-1} className="app-main kiosk-start__main">
          <KioskStartScreen
            api={api}
            headingRef={headingRef}
            nfcArmed={kioskScan}
            busy={resetting}
            error={resetError}
            choices={choices}
            onStart={start}
            onAdmin={policy.adminPin ? () => navigate({ name: 'settings' }) : undefined}
          />
        </main>
        {overlays}
      </div>
    );
  }

  // A kiosk's way back is a new visitor's start screen (the session wiped); elsewhere, Home.
  const back = () => (kiosk ? void startOver() : navigate({ name: 'home' }));
  const screenElement = (
    <>
      {screen.name === 'home' ? (
        <HomeScreen
          api={api}
          headingRef={headingRef}
          agents={agents}
          addInputRef={addInputRef}
          onOpenChat={(target) => navigate({ name: 'chat', ...target })}
        />
      ) : screen.name === 'chat' ? (
        <LazyAgentScreen
          key={screen.agentId}
          fallback={
            <p className="muted" role="status">
              {t('chat.loadingScreen')}
            </p>
          }
          onShown={focusAfterNavigation}
          api={api}
          headingRef={headingRef}
          agentId={screen.agentId}
          label={screen.label}
          {...(screen.protocol ? { protocol: screen.protocol } : {})}
          {...(startTag && screen.agentId === policy.startAgentId ? { startTag } : {})}
          onBack={back}
          onIdentified={identified}
        />
      ) : (
        <SettingsScreen api={api} headingRef={headingRef} settings={settings} info={info.state} onBack={back} />
      )}
    </>
  );

  // A kiosk (issue #27): a visitor's screen, and only it — no sidebar, no menu, no notices (they are in Settings behind the PIN).
  if (kiosk) {
    return (
      <div className="app app--kiosk">
        {connectionLost ? (
          <div className="banner banner--danger banner--sticky" role="alert">
            <p className="banner__text">{t('shell.connectionLost')}</p>
          </div>
        ) : null}
        <ConnectionLostContext.Provider value={connectionLost}>
          <main id="content" ref={mainRef} tabIndex={-1} className={`app-main${screen.name === 'chat' ? ' app-main--agent' : ''}`}>
            {screenElement}
          </main>
        </ConnectionLostContext.Provider>
        {overlays}
      </div>
    );
  }

  const shell = (
    <div className={`app${drawerOpen ? ' app--drawer-open' : ''}`}>
      <a className="skip-link" href="#content" onClick={skipToContent}>
        {t('shell.skipToContent')}
      </a>
      {connectionLost ? (
        <div className="banner banner--danger banner--sticky" role="alert">
          <p className="banner__text">{t('shell.connectionLost')}</p>
        </div>
      ) : null}
      <div className="app-body">
        <div ref={drawerRef} className="app-sidebar" onKeyDown={onDrawerKeyDown}>
          <Sidebar
            api={api}
            agents={agents}
            id="app-sidebar"
            current={screen}
            kinds={kinds}
            statuses={statuses}
            firstRef={firstSidebarItemRef}
            placeRef={setPlaceElement}
            onNavigate={(next) => navigate(next)}
            onAddAgent={() => navigate({ name: 'home' }, 'add')}
          />
        </div>
        {drawerOpen ? <div className="app-backdrop" aria-hidden="true" onClick={closeDrawer} /> : null}
        <div className="app-pane">
          {/* The narrow window's top bar: the page's one banner landmark (wide windows hide it). */}
          <header className="app-topbar">
            <button
              ref={menuButtonRef}
              type="button"
              className="button button--secondary app-topbar__menu"
              aria-label={t('shell.openMenuLabel')}
              aria-expanded={drawerOpen}
              aria-controls="app-sidebar"
              onClick={() => setDrawerOpen((open) => !open)}
            >
              <span aria-hidden="true" className="app-topbar__icon">
                ☰
              </span>{' '}
              {t('shell.openMenu')}
            </button>
            <p className="app-title">{t('app.name')}</p>
          </header>
          <Notices
            api={api}
            info={info.state.status === 'ready' ? info.state.value : undefined}
            settings={settings}
            onDismissed={() => (headingRef.current ?? mainRef.current)?.focus()}
          />
          <AgentStatusContext.Provider value={reportStatus}>
            <ConnectionLostContext.Provider value={connectionLost}>
              <main id="content" ref={mainRef} tabIndex={-1} className={`app-main${screen.name === 'chat' ? ' app-main--agent' : ''}`}>
                {screenElement}
              </main>
            </ConnectionLostContext.Provider>
          </AgentStatusContext.Provider>
        </div>
      </div>
      {overlays}
    </div>
  );
  // The open agent's screen reaches its place under its entry in the sidebar through this context.
  return <SidebarPlaceContext.Provider value={place}>{shell}</SidebarPlaceContext.Provider>;
}

function screenOf(saved: UiScreen | undefined): Screen {
  if (saved?.name !== 'chat') return { name: saved?.name ?? 'home' };
  return { name: 'chat', agentId: saved.agentId, label: saved.label, ...(saved.protocol ? { protocol: saved.protocol } : {}) };
}

/**
 * Messages from main: those of start-up (`app.info`, for example "your settings file was unreadable
 * and moved aside") and those that come later (`app.notice`, for example a conversation that could
 * not be saved). Dismiss hides those shown, and main keeps the dismissal in the settings
 * (`notices.dismissed`), so that a notice the user dismissed does not come back at the next launch;
 * a new one brings the banner back.
 */
function Notices({
  api,
  info,
  settings,
  onDismissed,
}: {
  api: AgentDeskApi;
  info: AppInfo | undefined;
  settings: LiveResource<Settings>;
  onDismissed: () => void;
}) {
  const { t } = useI18n();
  const [later, setLater] = useState<readonly Notice[]>([]);
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(
    () => api.app.onNotice((notice) => setLater((list) => (list.some((kept) => kept.message === notice.message) ? list : [...list, notice].slice(-20)))),
    [api],
  );
  const saved = settings.state.status === 'ready' ? (settings.state.value.notices?.dismissed ?? []) : settings.state.status === 'error' ? [] : undefined;
  const startup = info?.notices ?? [];
  // A notice is known by main's text (a dismissal keeps that); it is shown in the user's language from its code.
  const all = [...new Map([...startup, ...later].map((notice) => [notice.message, notice])).values()];
  // Until the settings are known, nothing is shown: a dismissed notice must not flash up.
  const notices = saved === undefined ? [] : all.filter((notice) => !dismissed.has(notice.message) && !saved.includes(notice.message));
  const onlyStartup = notices.every((notice) => startup.some((kept) => kept.message === notice.message));
  const visible = notices.length > 0;
  const [open, setOpen] = useState(false);
  const listId = useId();
  const { set } = settings;

  function dismiss() {
    const texts = notices.map((notice) => notice.message);
    setDismissed((before) => new Set([...before, ...texts]));
    setOpen(false);
    onDismissed();
    const remembered = [...new Set([...(saved ?? []), ...texts])].slice(-maxDismissedNotices);
    // Shown as dismissed at once; if main could not keep it, it is dismissed for this run only.
    void call(() => api.settings.update({ patch: { notices: { dismissed: remembered } } })).then((result) => {
      if (result.ok) set(result.value);
    });
  }

  // The live region is always present so that screen readers announce the notice when it arrives.
  // One line above the screen: the title, the notices' text (cut short with an ellipsis), Details
  // (the whole text and main's raw cause) and Dismiss; it must not take the conversation's height.
  return (
    <div role="status" className="notices">
      {visible ? (
        <div className={`banner banner--warning notices__banner${open ? ' notices__banner--open' : ''}`}>
          <p className="notices__title">{t(onlyStartup ? 'shell.noticesTitle' : 'shell.noticeTitle')}</p>
          <ul id={listId} className="notices__list">
            {notices.map((notice) => (
              <li key={notice.message} className="notices__item">
                <NoticeText notice={notice} open={open} />
              </li>
            ))}
          </ul>
          <button
            type="button"
            className="error-details__toggle notices__details"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => setOpen((was) => !was)}
          >
            {open ? t('error.hideDetails') : t('error.details')}
          </button>
          <button
            type="button"
            className="button button--secondary notices__dismiss"
            aria-label={t(onlyStartup ? 'shell.dismissNoticesLabel' : 'shell.dismissNoticeLabel')}
            onClick={dismiss}
          >
            {t('shell.dismissNotices')}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** A notice in the user's language: the catalogue's sentence for its code; main's raw cause once the banner is open (Details). */
function NoticeText({ notice, open }: { notice: Notice; open: boolean }) {
  const { t } = useI18n();
  const params = Object.fromEntries(Object.entries(notice.params ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return (
    <>
      {t(noticeKey(notice.code), params)}
      {notice.detail !== undefined && notice.detail.trim() !== '' ? (
        <span className="error-details" hidden={!open}>
          {' '}
          <code lang="en">{notice.detail}</code>
        </span>
      ) : null}
    </>
  );
}
