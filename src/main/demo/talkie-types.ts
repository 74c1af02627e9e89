/**
 * The Talkie 1 shapes the demo server sends (§4, §6, §8, §9). Only what the demo
 * produces is typed here; a client keeps its own validating schemas (it must not trust a server).
 */

export type CardBlock =
  | { type: 'heading'; text: string }
  | { type: 'text'; text: string }
  | { type: 'fields'; fields: { label: string; value: string }[] }
  | { type: 'list'; items: { title: string; subtitle?: string; url?: string }[]; more?: number }
  | { type: 'link'; label: string; url: string }
  | { type: 'file'; name: string; mime?: string; size?: number; url: string }
  | { type: 'badge'; text: string; tone?: 'neutral' | 'positive' | 'warning' | 'negative' };

export const cardBlockTypes = ['heading', 'text', 'fields', 'list', 'link', 'file', 'badge'] as const satisfies readonly CardBlock['type'][];

export interface TalkieCard {
  id: string;
  version: 1;
  title?: string;
  subtitle?: string;
  url?: string;
  blocks: CardBlock[];
  /** REQUIRED by Talkie 1 §6: shown instead of the whole card by a client that cannot render a block. */
  fallbackText: string;
  a11yLabel?: string;
}

export type ActionStatus = 'pending' | 'running' | 'done' | 'failed' | 'cancelled' | 'expired';
export type ConfirmMethod = 'button' | 'voice';
export type RiskLevel = 'low' | 'medium' | 'high';

export interface TalkieAction {
  id: string;
  version: 1;
  threadId: string;
  toolCallId: string;
  summary: string;
  riskLevel: RiskLevel;
  status: ActionStatus;
  paramsHash: string;
  createdAt: string;
  expiresAt: string;
  /** Only while `status` is `running` and the operation can still be undone with a `cancel` decision. */
  undoUntil?: string;
  confirm: { methods: ConfirmMethod[]; voice?: { keyword: string } };
}

export interface UsageEntry {
  label: string;
  used: number;
  limit: number;
  unit: string;
}

export interface TalkieUser {
  id: string;
  name: string;
  email?: string;
}

/** Talkie 1 §9: where a thread was started, and where each message of it was said. */
export type Channel = 'chat' | 'voice';

export interface ThreadSummary {
  id: string;
  title: string;
  channel: Channel;
  createdAt: string;
  updatedAt: string;
}

export interface ThreadMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  cards: TalkieCard[];
  channel: Channel;
}

/** Talkie 1 §3: the body of every non-2xx response of a Talkie endpoint. */
export interface TalkieErrorBody {
  error: { code: string; message: string; retryable: boolean };
}
