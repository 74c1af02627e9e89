import type { AgentDeskApi } from '../../shared/ipc/api';
import type { ConversationPort } from './conversation-store';

/** The API's `conversation.*` as the store's port. */
export function conversationPort(api: AgentDeskApi): ConversationPort {
  const { conversation } = api;
  return {
    open: (request) => conversation.open(request),
    view: (request) => conversation.view(request),
    send: (request) => conversation.send(request),
    unqueue: (request) => conversation.unqueue(request),
    cancel: (request) => conversation.cancel(request),
    earlier: (request) => conversation.earlier(request),
    close: (request) => conversation.close(request),
    onUpdate: (listener) => conversation.onUpdate(listener),
  };
}
