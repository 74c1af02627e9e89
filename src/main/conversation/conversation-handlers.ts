import type { HandlerTable } from '../ipc/handler-table';
import type { ConversationService } from './conversation-service';

/** `conversation.*`: the one interface to a conversation, whatever the agent speaks. */
export function conversationHandlers(service: ConversationService): HandlerTable<'conversation'> {
  return {
    'conversation.open': ({ agentId, threadId, renew }) =>
      service.openConversation(agentId, { ...(threadId === undefined ? {} : { threadId }), ...(renew === true ? { renew } : {}) }),
    'conversation.view': ({ agentId, conversationId }) => service.view(agentId, conversationId),
    'conversation.send': ({ agentId, conversationId, messageId, text }) => service.send(agentId, conversationId, { messageId, text }),
    'conversation.unqueue': ({ agentId, conversationId, messageId }) => service.unqueue(agentId, conversationId, messageId),
    'conversation.cancel': ({ agentId, conversationId }) => service.cancel(agentId, conversationId),
    'conversation.earlier': ({ agentId, conversationId }) => service.earlier(agentId, conversationId),
    'conversation.close': async ({ agentId }) => ({ closed: await service.close(agentId) }),
  };
}
