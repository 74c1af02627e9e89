import type { AgentCallOpenResponse } from '../../../src/shared/agentcall/ipc-schemas';
import type { SessionOpened } from '../../../src/shared/agentcall/session-view';
import type { MethodRequest } from '../../../src/shared/ipc/contract';
import { ServiceError, type IpcResult } from '../../../src/shared/base/errors';
import { Listeners } from '../../../src/shared/base/listeners';
import { agentCallAdapter, type AgentCallSessions } from '../../../src/main/conversation/agentcall-source';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationAdapter } from '../../../src/main/conversation/conversation-source';
import { answer } from './fake-conversation';
import type { FakeBackend } from './fake-api';

/**
 * The fake main's AgentCall conversations as main holds them: the real ConversationService and the
 * real AgentCall conversation source (agentcall-source.ts), over a fake AgentCallService that answers
 * with the fake main's own `agentcall.*` handlers (so `callsOf('agentcall.open')`, `failNext` and
 * `handle` work as for the page's calls) and follows the `agentcall.update` events the test emits.
 * Updates reach the page at once (no tick), so a test's emit is on screen once `act` returns.
 */
export interface AgentCallMain {
  service: ConversationService;
  /** Answers `agentcall.callOpened` with `respond`; main's conversation of `agentId` then follows that call's session. */
  handleCall(agentId: string, respond: (request: MethodRequest<'agentcall.callOpened'>) => IpcResult<AgentCallOpenResponse>): void;
}

function value<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new ServiceError(result.error.code, result.error.message);
  return result.value;
}

export function agentCallMain(backend: FakeBackend): AgentCallMain {
  const { api } = backend;
  const opened = new Listeners<[SessionOpened]>();
  const sessions: AgentCallSessions = {
    card: async (agentId) => value(await api.agentcall.card({ agentId })),
    open: async (agentId) => value(await api.agentcall.open({ agentId })),
    sendText: async (sessionKey, text) => value(await api.agentcall.sendText({ sessionKey, text })),
    cancel: async (sessionKey) => value(await api.agentcall.cancel({ sessionKey })),
    end: async (sessionKey) => value(await api.agentcall.end({ sessionKey })),
    dispose: async () => 0,
    onSessionOpened: (listener) => opened.subscribe(listener),
  };
  const adapter = agentCallAdapter(sessions, { observe: (_event, listener) => api.agentcall.onUpdate(listener) });
  const elsewhere: ConversationAdapter = {
    protocol: 'agui',
    open: () => Promise.reject(new ServiceError('incompatible', 'Only AgentCall here.')),
    reset: async () => ({ ended: 0, removedFiles: 0 }),
  };
  const service = new ConversationService({
    adapters: { agentcall: adapter, agui: elsewhere, talkie: elsewhere },
    protocolOf: async () => 'agentcall',
    emit: (payload) => backend.emit('conversation.update', payload),
    log: { warn: () => undefined },
    schedule: (run) => run(),
  });
  backend.handle('conversation.open', ({ agentId, threadId, renew }) =>
    answer(() => service.openConversation(agentId, { ...(threadId === undefined ? {} : { threadId }), ...(renew === true ? { renew } : {}) })),
  );
  backend.handle('conversation.view', ({ agentId, conversationId }) => answer(() => service.view(agentId, conversationId)));
  backend.handle('conversation.send', ({ agentId, conversationId, messageId, text }) =>
    answer(() => service.send(agentId, conversationId, { messageId, text })),
  );
  backend.handle('conversation.unqueue', ({ agentId, conversationId, messageId }) => answer(() => service.unqueue(agentId, conversationId, messageId)));
  backend.handle('conversation.cancel', ({ agentId, conversationId }) => answer(() => service.cancel(agentId, conversationId)));
  backend.handle('conversation.earlier', ({ agentId, conversationId }) => answer(() => service.earlier(agentId, conversationId)));
  backend.handle('conversation.close', ({ agentId }) => answer(async () => ({ closed: await service.close(agentId) })));
  return {
    service,
    handleCall: (agentId, respond) =>
      backend.handle('agentcall.callOpened', (request) => {
        const result = respond(request);
        if (result.ok) opened.emit({ sessionKey: result.value.sessionKey, agentId, updates: result.value.updates });
        return result;
      }),
  };
}
