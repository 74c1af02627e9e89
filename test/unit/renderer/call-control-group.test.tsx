import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentCallCallControl } from '../../../src/renderer/screens/agentcall/AgentCallCallControl';
import { ClientVoiceControl } from '../../../src/renderer/screens/agentcall/ClientVoiceControl';
import type { AgentCallCallHandle } from '../../../src/renderer/screens/agentcall/useAgentCallCall';
import type { ClientListening } from '../../../src/renderer/screens/agentcall/useClientListening';

/**
 * The two call controls of the AgentCall screen share their frame (a labelled group, live while the
 * call is open) and the microphone-problem alert (voice/CallControlGroup.tsx): the same words for the
 * same problem, inside each control's group.
 */

afterEach(cleanup);
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
        <AgentCallCallControl call={agentCall({ kind: 'microphone', problem: 'denied' })} name="Demo" runActive={false} />
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
});
