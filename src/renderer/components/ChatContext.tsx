import { createContext, useContext } from 'react';
import type { MethodResponse } from '../../shared/ipc/contract';
import { fail, type IpcResult } from '../../shared/base/errors';

/** What the deep parts of a chat (links in Markdown and cards) need to know. */
export interface ChatEnvironment {
  /** The server's canonical origin: links are judged against it (safeLink). */
  issuer: string;
  serverName: string;
  /** Opens an https: link in the system browser; called only from a click or key press. */
  openLink: (href: string) => void;
  /** Downloads a same-origin file through main (with the user's token); called only from a click. */
  downloadFile: (
    file: { url: string; name: string },
    onProgress: (received: number, total?: number) => void,
  ) => Promise<IpcResult<MethodResponse<'talkie.download'>>>;
}

export const ChatEnvironmentContext = createContext<ChatEnvironment>({
  issuer: '',
  serverName: '',
  openLink: () => undefined,
  downloadFile: async () => fail('internal', 'Downloads need an open chat.'),
});

export function useChatEnvironment(): ChatEnvironment {
  return useContext(ChatEnvironmentContext);
}
