import type { ConversationItem } from '../../../src/shared/conversation/items';
import type { ConversationProtocol, ConversationStatus } from '../../../src/shared/conversation/view';
import { fail, ok, ServiceError, type IpcResult } from '../../../src/shared/base/errors';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationAdapter, ConversationSource } from '../../../src/main/conversation/conversation-source';

/**
 * A protocol's side of a conversation, driven by a renderer test: the items and status it is told,
 * the messages it was sent. Behind it runs main's real ConversationService (its window, its queue,
 * its diff), so the page gets exactly what main would send it.
 */
export class FakeConversationSource implements ConversationSource {
  items: ConversationItem[] = [];
  status: Omit<ConversationStatus, 'earlier' | 'dropped'> & { dropped?: number } = { phase: 'ready', run: 'idle' };
  sent: { messageId: string; text: string }[] = [];
  cancels = 0;
  ended = false;
  /** Sending answers with this refusal (then clears it). */
  refuseNext: ServiceError | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(readonly protocol: ConversationProtocol = 'agui') {}

  snapshot() {
    return { items: this.items, status: this.status };
  }
  subscribe(changed: () => void) {
    this.listeners.add(changed);
    return () => this.listeners.delete(changed);
  }
  /** Changes what the protocol shows, as a run or a session would. */
  change(apply: (source: this) => void): void {
    apply(this);
    for (const listener of this.listeners) listener();
  }
  async send(message: { messageId: string; text: string }) {
    const refused = this.refuseNext;
    this.refuseNext = undefined;
    if (refused) throw refused;
    this.sent.push(message);
    this.change((source) => {
      source.items = [...source.items, { kind: 'message', id: `user:${message.messageId}`, role: 'user', text: message.text, format: 'plain', state: 'sent' }];
      source.status = { ...source.status, run: 'running' };
    });
  }
  async cancel() {
    this.cancels += 1;
    return this.status.run !== 'idle';
  }
  async end() {
    this.ended = true;
  }
}

export interface FakeConversations {
  service: ConversationService;
  /** The source an agent's next open gets (made on first use). */
  source(agentId: string, protocol?: ConversationProtocol): FakeConversationSource;
}

/**
 * `main`: what the fake main itself can open (its plain AG-UI agents' threads, say) and what its
 * agents speak; an agent whose source a test made (`source(agentId)`) gets that source instead.
 */
export function fakeConversations(
  emit: (
    payload: Parameters<ConversationService['openConversation']> extends never ? never : { agentId: string; conversationId: string; ops: never[] },
  ) => void,
  main: {
    adapters?: Partial<Record<ConversationProtocol, ConversationAdapter>>;
    protocolOf?: (agentId: string) => Promise<ConversationProtocol | undefined>;
  } = {},
): FakeConversations {
  const sources = new Map<string, FakeConversationSource>();
  const source = (agentId: string, protocol: ConversationProtocol = 'agui') => {
    let found = sources.get(agentId);
    if (found === undefined) sources.set(agentId, (found = new FakeConversationSource(protocol)));
    return found;
  };
  const adapter = (protocol: ConversationProtocol): ConversationAdapter => ({
    protocol,
    open: async (agentId, options) => sources.get(agentId) ?? (await main.adapters?.[protocol]?.open(agentId, options)) ?? source(agentId, protocol),
    reset: async () => ({ ended: 0, removedFiles: 0 }),
  });
  const service = new ConversationService({
    adapters: { agui: adapter('agui'), talkie: adapter('talkie'), agentcall: adapter('agentcall') },
    protocolOf: async (agentId) => sources.get(agentId)?.protocol ?? (await main.protocolOf?.(agentId)) ?? source(agentId).protocol,
    emit: emit as never,
    log: { warn: () => undefined },
  });
  return { service, source };
}

/** A service call as the dispatcher answers it: the value, or the ServiceError as an IPC failure. */
export async function answer<T>(run: () => T | Promise<T>): Promise<IpcResult<T>> {
  try {
    return ok(await run());
  } catch (error) {
    return error instanceof ServiceError ? fail(error.code, error.message) : fail('internal', String(error));
  }
}
