import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import type { AgentDeskApi } from '../shared/ipc/api';
import type { UiScreen } from '../shared/ipc/ui-memory-schemas';
import type { Settings } from '../shared/settings/settings';
import { CrashBoundary } from './components/CrashBoundary';
import { useAppInfo, useSettings, type AppInfo } from './hooks/useApiData';
import { UiMemoryProvider, useUiMemory } from './hooks/useUiMemory';
import type { LiveResource } from './hooks/useLiveResource';
import { I18nProvider, useI18n } from './i18n/I18nProvider';
import { sameScreen, type Screen } from './navigation';
import { AgentScreen } from './screens/AgentScreen';
import { HomeScreen } from './screens/HomeScreen';
import { SettingsScreen } from './screens/SettingsScreen';


export interface AppProps {
  api: AgentDeskApi;
  /** The web shell's connection: resolves when it is lost for good. */
  closed?: Promise<number> | undefined;
}

/** Loads the settings (they decide language, theme and text size) and renders the shell in them. */
export function App({ api, closed }: AppProps) {
  const settings = useSettings(api);
  const current = settings.state.status === 'ready' ? settings.state.value : undefined;
  useAppearance(current);
  return (
    <I18nProvider setting={current?.language ?? 'system'}>
      <UiMemoryProvider api={api}>
        <CrashBoundary>
          <Shell api={api} closed={closed} settings={settings} />
        </CrashBoundary>
      </UiMemoryProvider>
    </I18nProvider>
  );
}

/** Theme and text size live on <html> as data attributes; tokens.css does the rest. */
function useAppearance(settings: Settings | undefined) {
  const theme = settings?.appearance.theme ?? 'system';
  const textSize = settings?.appearance.textSize ?? 'normal';
  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = theme;
    root.dataset.textSize = textSize;
  }, [theme, textSize]);
}

function useConnectionLost(closed: Promise<number> | undefined): boolean {
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
  // After a reload or a renderer crash, the screen that was open comes back (main kept it).
  const [screen, setScreen] = useState<Screen>(() => screenOf(memory.currentScreen()));
  const headingRef = useRef<HTMLHeadingElement>(null);
  const mainRef = useRef<HTMLElement>(null);
  const focusHeadingAfterRender = useRef(false);
  const connectionLost = useConnectionLost(closed);
  const info = useAppInfo(api);

  const navigate = useCallback(
    (next: Screen) => {
      if (sameScreen(next, screen)) {
        headingRef.current?.focus();
        return;
      }
      focusHeadingAfterRender.current = true;
      memory.saveScreen(next.name === 'chat' ? { name: 'chat', agentId: next.agentId, label: next.label, ...(next.protocol ? { protocol: next.protocol } : {}) } : { name: next.name });
      setScreen(next);
    },
    [screen, memory],
  );

  useEffect(() => {
    if (!focusHeadingAfterRender.current) return;
    focusHeadingAfterRender.current = false;
    headingRef.current?.focus();
  }, [screen]);

  const skipToContent = (event: MouseEvent<HTMLAnchorElement>) => {
    // Move focus without touching the URL or the history.
    event.preventDefault();
    (headingRef.current ?? mainRef.current)?.focus();
  };

  return (
    <div className="app">
      <a className="skip-link" href="#content" onClick={skipToContent}>
        {t('shell.skipToContent')}
      </a>
      {connectionLost ? (
        <div className="banner banner--danger banner--sticky" role="alert">
          <p className="banner__text">{t('shell.connectionLost')}</p>
        </div>
      ) : null}
      <header className="app-header">
        <div className="app-header__inner">
          <p className="app-title">{t('app.name')}</p>
          <button
            type="button"
            className="button button--secondary"
            aria-current={screen.name === 'settings' ? 'page' : undefined}
            onClick={() => navigate({ name: 'settings' })}
          >
            {t('shell.settings')}
          </button>
        </div>
      </header>
      <Notices
        api={api}
        info={info.state.status === 'ready' ? info.state.value : undefined}
        onDismissed={() => (headingRef.current ?? mainRef.current)?.focus()}
      />
      <main id="content" ref={mainRef} tabIndex={-1} className="app-main">
        {screen.name === 'home' ? (
          <HomeScreen api={api} headingRef={headingRef} onOpenChat={(target) => navigate({ name: 'chat', ...target })} />
        ) : screen.name === 'chat' ? (
          <AgentScreen
            key={screen.agentId}
            api={api}
            headingRef={headingRef}
            agentId={screen.agentId}
            label={screen.label}
            {...(screen.protocol ? { protocol: screen.protocol } : {})}
            onBack={() => navigate({ name: 'home' })}
          />
        ) : (
          <SettingsScreen
            api={api}
            headingRef={headingRef}
            settings={settings}
            info={info.state}
            onBack={() => navigate({ name: 'home' })}
          />
        )}
      </main>
    </div>
  );
}

function screenOf(saved: UiScreen | undefined): Screen {
  if (saved?.name !== 'chat') return { name: saved?.name ?? 'home' };
  return { name: 'chat', agentId: saved.agentId, label: saved.label, ...(saved.protocol ? { protocol: saved.protocol } : {}) };
}

/**
 * Messages from main: those of start-up (`app.info`, for example "your settings file was unreadable
 * and moved aside") and those that come later (`app.notice`, for example a conversation that could
 * not be saved). Dismiss hides those shown; a new one brings the banner back.
 */
function Notices({ api, info, onDismissed }: { api: AgentDeskApi; info: AppInfo | undefined; onDismissed: () => void }) {
  const { t } = useI18n();
  const [later, setLater] = useState<readonly string[]>([]);
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => api.app.onNotice(({ message }) => setLater((list) => (list.includes(message) ? list : [...list, message].slice(-20)))), [api]);
  const startup = info?.notices ?? [];
  const notices = [...new Set([...startup, ...later])].filter((notice) => !dismissed.has(notice));
  const onlyStartup = notices.every((notice) => startup.includes(notice));
  const visible = notices.length > 0;
  // The live region is always present so that screen readers announce the notice when it arrives.
  return (
    <div role="status" className="notices">
      {visible ? (
        <div className="banner banner--warning">
          <div className="banner__inner">
            <div className="banner__content">
              <p className="banner__title">{t(onlyStartup ? 'shell.noticesTitle' : 'shell.noticeTitle')}</p>
              <ul className="banner__list">
                {notices.map((notice) => (
                  <li key={notice} lang="en">
                    {notice}
                  </li>
                ))}
              </ul>
            </div>
            <button type="button" className="button button--secondary" aria-label={t(onlyStartup ? 'shell.dismissNoticesLabel' : 'shell.dismissNoticeLabel')}
              onClick={() => {
                setDismissed((before) => new Set([...before, ...notices]));
                onDismissed();
              }}
            >
              {t('shell.dismissNotices')}
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
