import { createContext, useContext, useEffect } from 'react';

/**
 * What the open agent's screen knows of it, for the sidebar's line under its name ("Talkie ·
 * connected"). Only the open agent has one: nothing is polled in the background, so the sidebar never
 * shows a status that may have gone stale.
 */
export type AgentStatus = 'connecting' | 'connected' | 'signInNeeded' | 'approvalNeeded' | 'unreachable' | 'sessionEnded';

export type ReportAgentStatus = (agentId: string, status: AgentStatus | undefined) => void;

export const AgentStatusContext = createContext<ReportAgentStatus>(() => undefined);

/** The screen of `agentId` says how that agent is now; the report is withdrawn when the screen goes. */
export function useReportAgentStatus(agentId: string, status: AgentStatus | undefined): void {
  const report = useContext(AgentStatusContext);
  useEffect(() => {
    report(agentId, status);
  }, [report, agentId, status]);
  useEffect(() => () => report(agentId, undefined), [report, agentId]);
}
