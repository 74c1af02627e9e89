import type { RefObject } from 'react';
import type { AgentDeskApi } from '../shared/ipc/api';
/** The agent a chat screen talks to; `label` is what the user saw on Home (the heading while connecting). */
export interface ChatTarget {
  agentId: string;
  label: string;
  /** Known when the target was opened as one protocol (the built-in demo's sides); otherwise main identifies it. */
  protocol?: AgentProtocol;
}

export type AgentProtocol = 'talkie' | 'agentcall' | 'agui';

/** What every agent screen (Talkie chat, AgentCall session, plain AG-UI) is given. */
export interface AgentScreenProps {
  api: AgentDeskApi;
  headingRef: RefObject<HTMLHeadingElement | null>;
  agentId: string;
  label: string;
  onBack: () => void;
}

/** `start`: the kiosk's start screen (issue #18), never remembered in main's UI memory. */
export type Screen = { name: 'start' } | { name: 'home' } | { name: 'settings' } | ({ name: 'chat' } & ChatTarget);

export function sameScreen(a: Screen, b: Screen): boolean {
  if (a.name === 'chat' && b.name === 'chat') return a.agentId === b.agentId;
  return a.name === b.name;
}
