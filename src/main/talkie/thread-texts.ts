import type { ConversationItem } from '../../shared/talkie/conversation';
import { searchThreads, type SearchableThread, type ThreadSearchResult } from '../../shared/threads/thread-search';

interface Entry {
  title: string;
  /** The whole thread was read from the server (opened, or read for search), not only what streamed by. */
  read: boolean;
  /** Message text by message id, in the order main saw the messages. */
  messages: Map<string, string>;
  chars: number;
}

export const threadTextLimits = {
  /** Threads kept per agent (the least recently seen go first). */
  threadsPerAgent: 200,
  /** Characters kept per thread (later text is not added). */
  charsPerThread: 200_000,
  /** Agents kept (the least recently seen go first). */
  agents: 100,
} as const;

/**
 * What main has seen of a Talkie agent's threads this session, for `agents.searchThreads`: the
 * titles of the last thread list, the user's messages as they were sent, the assistant's text as it
 * streamed, and every thread loaded (which replaces what was seen of it) — opened by the user, or read
 * by TalkieService when a search starts (`unread`). Nothing is written to disk. In memory, bounded.
 */
export class ThreadTexts {
  private readonly agents = new Map<string, { threads: Map<string, Entry>; listed: string[] }>();

  constructor(private readonly limits: { threadsPerAgent: number; charsPerThread: number; agents: number } = threadTextLimits) {}

  /** The server's thread list (newest first): its titles (or first messages), and its order for results. */
  listed(agentId: string, threads: readonly { id: string; title: string; firstMessage?: string }[]): void {
    const agent = this.agent(agentId);
    agent.listed = threads.map((thread) => thread.id);
    for (const thread of threads) {
      const title = thread.title.trim() !== '' ? thread.title : (thread.firstMessage ?? '');
      const entry = agent.threads.get(thread.id);
      if (entry) entry.title = title;
      else this.put(agentId, thread.id, { title, read: false, messages: new Map(), chars: 0 });
    }
  }

  /** A title for a thread that has none yet (a new thread's first message, until the server lists it). */
  untitled(agentId: string, threadId: string, title: string): void {
    const entry = this.entry(agentId, threadId);
    if (entry.title.trim() === '') entry.title = title;
  }

  /** A whole message (a user's, as sent): replaces what was seen of that message (a retry sends it again). */
  message(agentId: string, threadId: string, messageId: string, text: string): void {
    const entry = this.entry(agentId, threadId);
    entry.chars -= entry.messages.get(messageId)?.length ?? 0;
    entry.messages.delete(messageId);
    this.append(agentId, threadId, messageId, text);
  }

  /** A message's text (a whole user message, or a streamed part of an assistant's, appended). */
  append(agentId: string, threadId: string, messageId: string, text: string): void {
    const entry = this.entry(agentId, threadId);
    const room = this.limits.charsPerThread - entry.chars;
    if (room <= 0 || text === '') return;
    const added = text.slice(0, room);
    entry.messages.set(messageId, (entry.messages.get(messageId) ?? '') + added);
    entry.chars += added.length;
  }

  /** A thread as the server sent it: its text replaces what was seen of it. */
  loaded(agentId: string, threadId: string, items: readonly ConversationItem[]): void {
    const entry = this.entry(agentId, threadId);
    entry.messages = new Map();
    entry.chars = 0;
    entry.read = true;
    for (const item of items) {
      if (item.kind === 'user' || item.kind === 'assistant' || item.kind === 'spoken') this.message(agentId, threadId, item.id, item.text);
    }
  }

  forget(agentId: string, threadId: string): void {
    this.agents.get(agentId)?.threads.delete(threadId);
  }

  /** The listed threads whose text main has not read yet, in the list's order (newest first). */
  unread(agentId: string): string[] {
    const agent = this.agents.get(agentId);
    if (!agent) return [];
    return agent.listed.filter((threadId) => agent.threads.get(threadId)?.read === false);
  }

  search(agentId: string, query: string): ThreadSearchResult[] {
    const agent = this.agents.get(agentId);
    if (!agent) return [];
    const order = new Map(agent.listed.map((id, index) => [id, index]));
    // Threads the last list did not have (new this session) first, the most recent first; then the list's order.
    const ids = [...agent.threads.keys()].reverse();
    ids.sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
    const threads: SearchableThread[] = ids.map((threadId) => {
      const entry = agent.threads.get(threadId)!;
      return { threadId, title: entry.title, texts: [...entry.messages.values()] };
    });
    return searchThreads(threads, query);
  }

  private agent(agentId: string) {
    let agent = this.agents.get(agentId);
    if (agent) {
      this.agents.delete(agentId);
    } else {
      agent = { threads: new Map(), listed: [] };
    }
    this.agents.set(agentId, agent);
    if (this.agents.size > this.limits.agents) this.agents.delete(this.agents.keys().next().value!);
    return agent;
  }

  private entry(agentId: string, threadId: string): Entry {
    const existing = this.agent(agentId).threads.get(threadId);
    const entry = existing ?? { title: '', read: false, messages: new Map<string, string>(), chars: 0 };
    this.put(agentId, threadId, entry);
    return entry;
  }

  /** Stores the entry as the agent's most recently seen thread, dropping the least recent beyond the bound. */
  private put(agentId: string, threadId: string, entry: Entry): void {
    const { threads } = this.agent(agentId);
    threads.delete(threadId);
    threads.set(threadId, entry);
    if (threads.size > this.limits.threadsPerAgent) threads.delete(threads.keys().next().value!);
  }
}
