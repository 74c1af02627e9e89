import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentCallAgent, AgentCallOpenResponse } from '../../../src/shared/agentcall/ipc-schemas';
import type { SessionOpened, SessionUpdate } from '../../../src/shared/agentcall/session-view';
import type { EventPayload } from '../../../src/shared/ipc/contract';
import { ServiceError } from '../../../src/shared/base/errors';
import { Listeners } from '../../../src/shared/base/listeners';
import { agentCallAdapter, type AgentCallSessions } from '../../../src/main/conversation/agentcall-source';
import { ConversationService } from '../../../src/main/conversation/conversation-service';
import type { ConversationAdapter } from '../../../src/main/conversation/conversation-source';
import { memoryLogger } from '../../support/logger';

/**
 * An AgentCall agent's conversation in main: its session folded from AgentCallService's updates, a
 * WebRTC card's conversation waiting for the page's call and following the session that call opens,
 * and a new session after the end (`renew`).
 */

const agent = (transport: 'websocket' | 'webrtc'): AgentCallAgent => ({
  name: 'Demo',
  description: '',
  version: '',
  cardUrl: 'http://127.0.0.1:9/.well-known/agent-card.json',
  endpoint: 'http://127.0.0.1:9/agui',
  accepted: ['nfc', 'photo'],
  agentRequests: [],
  legacyExtension: false,
  skills: [],
  notes: [],
  voice: transport === 'webrtc' ? { owner: 'agent', transport, explicitTurns: true } : { owner: 'client', transport, explicitTurns: false },
});

const starting: SessionUpdate = { type: 'session.starting', sessionId: 's', usableModalities: ['photo'], agentRequests: [], focusContext: true };

class FakeAgentCall implements AgentCallSessions {
  transport: 'websocket' | 'webrtc' = 'websocket';
  opened = 0;
  readonly texts: [string, string][] = [];
  readonly ended: string[] = [];
  refuseText: ServiceError | undefined;
  readonly sessionListeners = new Listeners<[SessionOpened]>();
  async card() {
    return { agent: agent(this.transport) };
  }
  async open(): Promise<AgentCallOpenResponse> {
    this.opened += 1;
    return { sessionKey: `session-${this.opened}`, agent: agent(this.transport), updates: [starting] };
  }
  sendText(key: string, text: string) {
    if (this.refuseText) throw this.refuseText;
    this.texts.push([key, text]);
    return { sent: true as const };
  }
  cancel() {
    return { sent: true as const };
  }
  async end(key: string) {
    this.ended.push(key);
    return { ended: true };
  }
  async dispose() {
    return 0;
  }
  onSessionOpened(listener: (opened: SessionOpened) => void) {
    return this.sessionListeners.subscribe(listener);
  }
}

function setup(transport: 'websocket' | 'webrtc' = 'websocket') {
  const agentCall = new FakeAgentCall();
  agentCall.transport = transport;
  const observers = new Listeners<[EventPayload<'agentcall.update'>]>();
  const events = { observe: (_event: 'agentcall.update', listener: (payload: EventPayload<'agentcall.update'>) => void) => observers.subscribe(listener) };
  const update = (sessionKey: string, ...updates: SessionUpdate[]) => observers.emit({ sessionKey, updates });
  const adapter = agentCallAdapter(agentCall, events);
  const unused: ConversationAdapter = {
    protocol: 'agui',
    open: () => Promise.reject(new Error('not here')),
    reset: async () => ({ ended: 0, removedFiles: 0 }),
  };
  const service = new ConversationService({
    adapters: { agui: unused, talkie: unused, agentcall: adapter },
    protocolOf: async () => 'agentcall',
    emit: () => undefined,
    log: memoryLogger(),
    schedule: (run) => run(),
  });
  return { agentCall, update, service };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('an AgentCall conversation in main', () => {
  it('stamps each item with the time it reached main (the protocol gives none); an item that changes later keeps its first time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { update, service } = setup();
    const view = await service.openConversation('agent-1');
    vi.setSystemTime(new Date('2026-03-02T23:58:00Z'));
    update(
      'session-1',
      { type: 'session.established' },
      { type: 'user.text', id: 'u1', turn: 1, text: 'Hi' },
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'Hel' },
    );
    vi.setSystemTime(new Date('2026-03-03T00:02:00Z'));
    update(
      'session-1',
      { type: 'text.delta', runKey: 'r1', text: 'lo' },
      { type: 'run.completed', runKey: 'r1' },
      { type: 'user.text', id: 'u2', turn: 2, text: 'Again' },
    );
    const items = service.view('agent-1', view.conversationId).items;
    expect(items.map((item) => [item.kind === 'message' ? item.text : item.kind, new Date(item.at ?? 0).toISOString()])).toEqual([
      ['Hi', '2026-03-02T23:58:00.000Z'],
      ['Hello', '2026-03-02T23:58:00.000Z'],
      ['Again', '2026-03-03T00:02:00.000Z'],
    ]);
  });

  it('opens a session, folds its updates, sends text through the session, and refuses text once it ended', async () => {
    const { agentCall, update, service } = setup();
    const view = await service.openConversation('agent-1');
    expect(view.status).toMatchObject({ phase: 'connecting', session: 'session-1', accepts: ['photo'] });
    update('session-1', { type: 'session.established' });
    update('session-other', { type: 'user.text', id: 'x', turn: 1, text: 'not this session' });
    await service.send('agent-1', view.conversationId, { messageId: 'm1', text: 'hello' });
    expect(agentCall.texts).toEqual([['session-1', 'hello']]);
    update('session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'hello' }, { type: 'ended', reason: { kind: 'client_end', message: '' } });
    const ended = service.view('agent-1', view.conversationId);
    expect(ended.items.map((item) => item.kind)).toEqual(['message', 'ended']);
    expect(ended.status.phase).toBe('ended');
    await expect(service.send('agent-1', view.conversationId, { messageId: 'm2', text: 'again' })).rejects.toThrow(/cannot take a message/);
  });

  it('passes the session’s refusal of a text on to the page', async () => {
    const { agentCall, update, service } = setup();
    const view = await service.openConversation('agent-1');
    update('session-1', { type: 'session.established' });
    agentCall.refuseText = new ServiceError('rejected', 'The agent is still answering.');
    await expect(service.send('agent-1', view.conversationId, { messageId: 'm1', text: 'hello' })).rejects.toThrow('The agent is still answering.');
  });

  it('finds the open session again (a reload), and starts a new one only when asked to renew it', async () => {
    const { agentCall, update, service } = setup();
    const first = await service.openConversation('agent-1');
    update('session-1', { type: 'ended', reason: { kind: 'client_end', message: '' } });
    const again = await service.openConversation('agent-1');
    expect(again.conversationId).toBe(first.conversationId);
    expect(agentCall.opened).toBe(1);
    const renewed = await service.openConversation('agent-1', { renew: true });
    expect(renewed.conversationId).not.toBe(first.conversationId);
    expect(renewed.items).toEqual([]);
    expect(renewed.status).toMatchObject({ phase: 'connecting', session: 'session-2' });
    expect(agentCall.opened).toBe(2);
    // The ended session is not ended again; a live one is, when a new one replaces it.
    expect(agentCall.ended).toEqual([]);
    await service.openConversation('agent-1', { renew: true });
    expect(agentCall.ended).toEqual(['session-2']);
  });

  it('a WebRTC card waits to be called, then follows the session the page’s call opened for this agent (not another agent’s)', async () => {
    const { agentCall, update, service } = setup('webrtc');
    const view = await service.openConversation('voice-agent');
    expect(view.status).toMatchObject({ phase: 'ready', reach: 'call' });
    expect(view.status.session).toBeUndefined();
    expect(agentCall.opened).toBe(0);
    await expect(service.send('voice-agent', view.conversationId, { messageId: 'm1', text: 'hi' })).rejects.toThrow('Call the agent first.');
    agentCall.sessionListeners.emit({ sessionKey: 'call-other', agentId: 'other-agent', updates: [starting] });
    agentCall.sessionListeners.emit({ sessionKey: 'call-1', agentId: 'voice-agent', updates: [starting] });
    update('call-other', { type: 'session.established' });
    expect(service.view('voice-agent', view.conversationId).status).toMatchObject({ phase: 'connecting', session: 'call-1', reach: 'call' });
    update('call-1', { type: 'session.established' }, { type: 'user.speech', id: 'audio-2', turn: 2, state: 'final', durationMs: 2_000 });
    const live = service.view('voice-agent', view.conversationId);
    expect(live.status.phase).toBe('ready');
    expect(live.items).toEqual([{ kind: 'speech', id: 'userSpeech:audio-2', role: 'user', state: 'final', durationMs: 2_000, at: expect.any(Number) }]);
    // A later call is not this conversation's: a new one (Start a new session) follows it.
    agentCall.sessionListeners.emit({ sessionKey: 'call-2', agentId: 'voice-agent', updates: [starting] });
    expect(service.view('voice-agent', view.conversationId).status.session).toBe('call-1');
  });
});
