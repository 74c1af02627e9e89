import { useEffect, useState } from 'react';
import type { Bridge } from './bridge/agentdesk';
import { App } from './App';
import { MissingBridge } from './components/MissingBridge';
import { I18nProvider } from './i18n/I18nProvider';

/** What the page shows for the bridge it found; the web shell's waits until the shell took or refused the page. */
export function Root({ bridge }: { bridge: Bridge }) {
  const connection = useConnected(bridge.kind === 'missing' ? undefined : bridge.connected);
  if (bridge.kind === 'missing' || connection === 'refused') {
    return (
      <I18nProvider setting="system">
        <MissingBridge />
      </I18nProvider>
    );
  }
  if (connection === 'waiting') return null;
  return <App api={bridge.api} closed={bridge.closed} />;
}

function useConnected(connected: Promise<boolean> | undefined): 'waiting' | 'connected' | 'refused' {
  const [state, setState] = useState<'waiting' | 'connected' | 'refused'>(connected ? 'waiting' : 'connected');
  useEffect(() => {
    if (!connected) return undefined;
    let active = true;
    void connected.then((ok) => {
      if (active) setState(ok ? 'connected' : 'refused');
    });
    return () => {
      active = false;
    };
  }, [connected]);
  return state;
}
