/** The agent a chat screen talks to; `label` is what the user saw on Home (the heading while connecting). */
export interface ChatTarget {
  agentId: string;
  label: string;
  /** Known when the target was opened as one protocol (the built-in demo's sides); otherwise main identifies it. */
  protocol?: AgentProtocol;
}

export type AgentProtocol = 'talkie' | 'agentcall' | 'agui';

export type Screen = { name: 'home' } | { name: 'settings' } | ({ name: 'chat' } & ChatTarget);

export function sameScreen(a: Screen, b: Screen): boolean {
  if (a.name === 'chat' && b.name === 'chat') return a.agentId === b.agentId;
  return a.name === b.name;
}
