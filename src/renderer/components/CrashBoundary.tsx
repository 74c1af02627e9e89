import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useI18n } from '../i18n/I18nProvider';

/**
 * A render error anywhere below would leave an empty window. Instead the page says what happened
 * and offers Reload: main keeps the open screen, the drafts, the threads and the approvals, so
 * the reloaded page comes back where the user was. Reloading is the user's choice (an error that
 * repeats on every render would otherwise reload forever).
 */
export class CrashBoundary extends Component<{ children: ReactNode; onReload?: () => void }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // The console is the renderer's log (devtools, the web shell's browser); no payloads are in it.
    console.error('AgentDesk: the page stopped after an error', error.name, info.componentStack?.split('\n', 3).join(' '));
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return <CrashNotice onReload={this.props.onReload ?? (() => window.location.reload())} />;
  }
}

function CrashNotice({ onReload }: { onReload: () => void }) {
  const { t } = useI18n();
  return (
    <main id="content" className="missing" tabIndex={-1}>
      <div className="missing__panel" role="alert">
        <p className="app-title">{t('app.name')}</p>
        <h1 className="missing__title">{t('crash.title')}</h1>
        <p className="missing__body">{t('crash.body')}</p>
        <button type="button" className="button button--primary" onClick={onReload}>
          {t('crash.reload')}
        </button>
      </div>
    </main>
  );
}
