import { createContext, useContext } from 'react';

/** What the deep parts of a chat (links in Markdown and cards) need to know. */
export interface ChatEnvironment {
  /** The server's canonical origin: links are judged against it (safeLink). */
  issuer: string;
  serverName: string;
  /** Opens an https: link in the system browser; called only from a click or key press. */
  openLink: (href: string) => void;
}

export const ChatEnvironmentContext = createContext<ChatEnvironment>({ issuer: '', serverName: '', openLink: () => undefined });

export function useChatEnvironment(): ChatEnvironment {
  return useContext(ChatEnvironmentContext);
}
