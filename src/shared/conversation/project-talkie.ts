import type { Conversation, ConversationItem as TalkieItem } from '../talkie/conversation';
import { itemId, type ConversationItem } from './items';
import type { ConversationStatus } from './view';

/**
 * A Talkie conversation (src/shared/talkie/conversation.ts, folded in main from the server's run
 * updates) as conversation items. Pure; unchanged source items keep their projected object.
 */
export interface TalkieProjection {
  items: ConversationItem[];
  status: Omit<ConversationStatus, 'earlier' | 'dropped' | 'phase'> & { dropped: number };
}

export function createTalkieProjector(): (conversation: Conversation) => TalkieProjection {
  const cache = new WeakMap<TalkieItem, ConversationItem>();
  return (conversation) => {
    const items: ConversationItem[] = [];
    for (const item of conversation.items) {
      let projected = cache.get(item);
      if (projected === undefined) {
        projected = projectItem(item);
        cache.set(item, projected);
      }
      items.push(projected);
    }
    return { items, status: statusOf(conversation) };
  };
}

function statusOf(conversation: Conversation): TalkieProjection['status'] {
  const run = conversation.runState === 'running' ? 'running' : 'idle';
  const outcome = ({ finished: 'done', error: 'failed', cancelled: 'stopped', interrupted: 'interrupted' } as const)[
    conversation.runState as 'finished' | 'error' | 'cancelled' | 'interrupted'
  ];
  return {
    run,
    ...(outcome === undefined ? {} : { outcome }),
    ...(conversation.threadId === undefined ? {} : { threadId: conversation.threadId }),
    dropped: conversation.removedItems ?? 0,
  };
}

function projectItem(item: TalkieItem): ConversationItem {
  const id = itemId(item.kind, item.id);
  const at = item.at === undefined ? undefined : Date.parse(item.at);
  const common = { id, ...(at === undefined || Number.isNaN(at) ? {} : { at }) };
  switch (item.kind) {
    case 'user':
      return { kind: 'message', ...common, role: 'user', text: item.text, format: 'plain', state: item.state };
    case 'assistant':
      return { kind: 'message', ...common, role: 'agent', text: item.text, format: 'markdown', state: item.streaming ? 'streaming' : 'done' };
    case 'tool':
      return {
        kind: 'tool',
        ...common,
        name: '',
        label: item.label,
        state: item.state === 'running' ? 'running' : item.state === 'ok' ? 'done' : 'failed',
        ...(item.error === undefined ? {} : { error: item.error }),
      };
    case 'card':
      return { kind: 'card', ...common, card: item.card };
    case 'action':
      return { kind: 'action', ...common, action: item.action };
    case 'link':
      return { kind: 'link', ...common, url: item.url, label: item.label };
    case 'error':
      return { kind: 'notice', ...common, tone: 'error', code: item.code, message: item.message, retryable: item.retryable };
    case 'spoken':
      return {
        kind: 'speech',
        ...common,
        role: item.role === 'assistant' ? 'agent' : 'user',
        ...(item.text === '' ? {} : { text: item.text }),
        state: item.state,
      };
  }
}
