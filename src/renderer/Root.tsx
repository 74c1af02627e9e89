import type { Bridge } from './bridge/agentdesk';
import { App } from './App';
import { MissingBridge } from './components/MissingBridge';
import { I18nProvider } from './i18n/I18nProvider';

/** What the page shows for the bridge it found. */
export function Root({ bridge }: { bridge: Bridge }) {
  if (bridge.kind === 'missing') {
    return (
      <I18nProvider setting="system">
        <MissingBridge />
      </I18nProvider>
    );
  }
  return <App api={bridge.api} closed={bridge.closed} />;
}
