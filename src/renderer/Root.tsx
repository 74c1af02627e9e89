import { useEffect, useState } from 'react';
import type { AgentDeskApi } from '../shared/ipc/api';
import type { DevicePolicyStatus } from '../shared/device-policy/ipc-schemas';
import type { Bridge } from './bridge/agentdesk';
import { App } from './App';
import { MissingBridge } from './components/MissingBridge';
import { PolicyError } from './components/PolicyError';
import { I18nProvider, useI18n } from './i18n/I18nProvider';

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
  if (connection === 'waiting') return <Starting />;
  return <PolicyGate api={bridge.api} closed={bridge.closed} />;
}

/**
 * The device policy decides first: in kiosk mode with a policy that cannot be used, main runs
 * nothing else and the page shows only why. (Main enforces the policy; if it cannot say, the app opens.)
 */
function PolicyGate({ api, closed }: { api: AgentDeskApi; closed: Promise<number> | undefined }) {
  const [status, setStatus] = useState<DevicePolicyStatus | 'loading'>('loading');
  useEffect(() => {
    let active = true;
    void api.policy.status().then(
      (result) => active && setStatus(result.ok ? result.value : { state: 'none' }),
      () => active && setStatus({ state: 'none' }),
    );
    return () => {
      active = false;
    };
  }, [api]);
  if (status === 'loading') return <Starting />;
  if (status.state === 'failed') {
    return (
      <I18nProvider setting="system">
        <PolicyError file={status.file} message={status.message} />
      </I18nProvider>
    );
  }
  return <App api={api} closed={closed} policy={status} />;
}

/** While the page connects and asks for the policy: never a blank screen (a kiosk reloaded after a crash shows this first). */
function Starting() {
  return (
    <I18nProvider setting="system">
      <StartingText />
    </I18nProvider>
  );
}

function StartingText() {
  const { t } = useI18n();
  return (
    <main className="starting">
      <p role="status">{t('kiosk.loading')}</p>
    </main>
  );
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
