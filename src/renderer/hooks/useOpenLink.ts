import { useCallback, useState } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/base/errors';
import { call } from './useLiveResource';

/**
 * Opening a link from a message in the system browser (`external.open`, called from the click, the
 * gesture main checks for), and the reason when it could not be opened.
 */
export function useOpenLink(api: AgentDeskApi): { openLink: (href: string) => void; linkError: IpcError | undefined } {
  const [linkError, setLinkError] = useState<IpcError | undefined>();
  const openLink = useCallback(
    (href: string) => {
      setLinkError(undefined);
      void call(() => api.external.open({ url: href })).then((result) => {
        if (!result.ok) setLinkError(result.error);
      });
    },
    [api],
  );
  return { openLink, linkError };
}
