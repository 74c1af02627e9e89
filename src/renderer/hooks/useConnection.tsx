import { createContext, useContext } from 'react';

/**
 * Whether the page lost its connection to AgentDesk's main services for good (the web shell's
 * socket closed). A screen that waits for main (a run's spinner) then stops waiting and says so:
 * nothing more will arrive, so "answering…" would contradict the banner.
 */
export const ConnectionLostContext = createContext(false);

export function useConnectionLost(): boolean {
  return useContext(ConnectionLostContext);
}
