import { act, cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { speakingHoldMs } from '../../../src/renderer/voice/speaking-hold';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentCallCallControl } from '../../../src/renderer/conversation/protocols/agentcall/AgentCallCallControl';
import { ClientVoiceControl } from '../../../src/renderer/conversation/protocols/agentcall/ClientVoiceControl';
import type { AgentCallCallHandle } from '../../../src/renderer/conversation/protocols/agentcall/useAgentCallCall';
import type { ClientListening } from '../../../src/renderer/conversation/protocols/agentcall/useClientListening';

/**
 * The two call controls of the AgentCall screen share their frame (a labelled group, live while the
 * call is open) and the microphone-problem alert (voice/CallControlGroup.tsx): the same words for the
 * same problem, inside each control's group.
 */

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});
const nothing = () => undefined;

const agentCall = (problem: AgentCallCallHandle['problem']): AgentCallCallHandle => ({
  state: 'idle',
  problem,
  pushToTalk: false,
  talking: false,
  muted: false,
  level: 0,
  agentLevel: 0,
  deviceId: undefined,
  audioElement: nothing,
  start: nothing,
  hangUp: nothing,
  setMuted: nothing,
  talk: nothing,
  cancelTalk: nothing,
  selectMicrophone: nothing,
});

const listening = (problem: ClientListening['problem']): ClientListening => ({
  state: 'off',
  mode: 'hands-free',
  muted: false,
  hearing: false,
  talking: false,
  working: false,
  level: 0,
  deviceId: undefined,
  problem,
  bargeIn: { on: false, setting: 'automatic' },
  start: nothing,
  stop: nothing,
  setMuted: nothing,
  setMode: nothing,
  talk: nothing,
  cancelTalk: nothing,
  selectMicrophone: nothing,
});

describe('the AgentCall call controls', () => {
  it('say a microphone problem the same way, as an alert in their own group', () => {
    render(
      <I18nProvider setting="en">
        <AgentCallCallControl call={agentCall({ kind: 'microphone', problem: 'denied' })} runActive={false} />
        <ClientVoiceControl listening={listening({ kind: 'microphone', problem: 'denied' })} agentSpeaking={false} runActive={false} onType={nothing} />
      </I18nProvider>,
    );
    const said = 'AgentDesk may not use the microphone. Allow it and try again.';
    for (const name of ['Voice call', 'Voice']) {
      const group = screen.getByRole('group', { name });
      expect(within(group).getByRole('alert').textContent).toBe(said);
      expect(group.classList.contains('call-control--live')).toBe(false);
    }
  });

  it('holds Speaking between the agent’s sentences: Listening only once its voice has been quiet for speakingHoldMs', () => {
    vi.useFakeTimers();
    const connected = (agentLevel: number): AgentCallCallHandle => ({ ...agentCall(undefined), state: 'connected', agentLevel });
    const state = () => within(screen.getByRole('group', { name: 'Voice call' })).getByText(/^(Speaking|Listening)$/).textContent;
    const call = render(
      <I18nProvider setting="en">
        <AgentCallCallControl call={connected(0.4)} runActive={false} />
      </I18nProvider>,
    );
    expect(state()).toBe('Speaking');
    // A pause between two sentences: still Speaking.
    call.rerender(
      <I18nProvider setting="en">
        <AgentCallCallControl call={connected(0)} runActive={false} />
      </I18nProvider>,
    );
    act(() => vi.advanceTimersByTime(speakingHoldMs - 100));
    expect(state()).toBe('Speaking');
    call.rerender(
      <I18nProvider setting="en">
        <AgentCallCallControl call={connected(0.3)} runActive={false} />
      </I18nProvider>,
    );
    call.rerender(
      <I18nProvider setting="en">
        <AgentCallCallControl call={connected(0)} runActive={false} />
      </I18nProvider>,
    );
    act(() => vi.advanceTimersByTime(speakingHoldMs - 1));
    expect(state()).toBe('Speaking');
    act(() => vi.advanceTimersByTime(1));
    expect(state()).toBe('Listening');

    // Client-owned voice: the agent's voice played by this page, the same hold.
    const on = (agentSpeaking: boolean) => (
      <I18nProvider setting="en">
        <ClientVoiceControl listening={{ ...listening(undefined), state: 'on' }} agentSpeaking={agentSpeaking} runActive={false} onType={nothing} />
      </I18nProvider>
    );
    const voice = () => within(screen.getByRole('group', { name: 'Voice' })).getByText(/^(Speaking|Listening)$/).textContent;
    call.rerender(on(true));
    expect(voice()).toBe('Speaking');
    call.rerender(on(false));
    act(() => vi.advanceTimersByTime(speakingHoldMs - 1));
    expect(voice()).toBe('Speaking');
    act(() => vi.advanceTimersByTime(1));
    expect(voice()).toBe('Listening');
  });
});
