import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import { ok } from '../../../src/shared/base/errors';
import { App } from '../../../src/renderer/App';
import { defaultSettings, type Settings } from '../../../src/shared/settings/settings';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend } from './fake-api';

/**
 * The kiosk's presentation (issue #27): what a walk-up visitor sees on the one conversation screen.
 * The fake main's AgentCall card is a developer's (its own name "AgentDesk demo agent", version 0.1.0,
 * an http://127.0.0.1 address, a voice the client recognises); the policy names the agent "Workshop".
 */

afterEach(() => {
  cleanup();
  delete document.documentElement.dataset.kiosk;
});

const workshop = {
  id: 'policy-0123456789abcdef0123456789abcdef',
  url: 'http://192.168.1.20:8080/',
  display: '192.168.1.20:8080',
  addedAt: '2026-12-01T00:00:00.000Z',
  label: 'Workshop',
};
const reception = {
  id: 'policy-fedcba9876543210fedcba9876543210',
  url: 'http://192.168.1.21:8080/',
  display: '192.168.1.21:8080',
  addedAt: '2026-12-01T00:00:00.000Z',
  label: 'Reception',
};
const kioskPolicy: DevicePolicyStatus = {
  state: 'active',
  file: '/etc/agentdesk/policy.json',
  kiosk: true,
  agentsLocked: true,
  startAgentId: workshop.id,
  forced: ['appearance.textSize'],
  camera: true,
  filePicker: false,
  voice: true,
  adminPin: true,
  idleResetSeconds: 60,
};

/** What no kiosk screen shows a visitor: versions, addresses, protocol names, the card's own name, Details, the notices' words. */
const technical = [
  /0\.1\.0/,
  /\bversion\b|\bverze\b/i,
  /https?:\/\//,
  /127\.0\.0\.1|192\.168\./,
  /AgentCall|AG-UI|Talkie|protocol|protokol/i,
  /AgentDesk demo agent/,
  /keychain|klíčenk/i,
  /Details|Podrobnosti/,
  /speech model|řečov|model řeči/i,
  /\bIntent\b|Záměr/,
];

function expectNothingTechnical(where: string) {
  // Each text node on its own line: "passed" and "Details" stay two words.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts: string[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) parts.push(node.textContent ?? '');
  const text = parts.join('\n');
  for (const pattern of technical) expect(text, `${where}: ${String(pattern)}`).not.toMatch(pattern);
  // Nor in what a screen reader says of the controls.
  const names = [...document.querySelectorAll('button, [role=button], a, [title], [aria-label]')]
    .map((element) => `${element.getAttribute('aria-label') ?? ''} ${element.getAttribute('title') ?? ''}`)
    .join(' ');
  for (const pattern of technical) expect(names, `${where} (names): ${String(pattern)}`).not.toMatch(pattern);
}

function kioskApp({ agents = [workshop], policy = kioskPolicy, language = 'en' as Settings['language'] } = {}) {
  const backend = createFakeBackend({
    agents,
    agentCallAgents: agents.map((agent) => agent.id),
    policy,
    settings: { ...structuredClone(defaultSettings), language },
    notices: [
      {
        code: 'keychain_memory',
        message: 'No keychain is reachable: sign-ins last until AgentDesk closes.',
        detail: 'org.freedesktop.secrets was not provided by any .service files',
      },
    ],
  });
  agentCallMain(backend);
  // The session is live at once (Talk by voice, Scan and Take a photo can be used).
  let sessions = 0;
  backend.handle('agentcall.open', () =>
    ok({
      sessionKey: `kiosk-session-${++sessions}`,
      agent: backend.state.agentCall,
      updates: [
        { type: 'session.starting', sessionId: 'agentdesk-fake', usableModalities: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true },
        { type: 'session.established' },
      ],
    }),
  );
  const user = userEvent.setup();
  render(<App api={backend.api} policy={policy} />);
  return { backend, user };
}

async function started(backend: ReturnType<typeof kioskApp>['backend']) {
  await waitFor(() => expect(backend.callsOf('kiosk.reset')).toHaveLength(1));
}

describe('the kiosk for a walk-up visitor (issue #27)', () => {
  it('with several agents, the start screen shows them as large buttons by the administrator’s names; no sidebar; Start over goes back to it, wiped', async () => {
    const { backend, user } = kioskApp({ agents: [workshop, reception] });
    await started(backend);
    const choices = await screen.findByRole('list', { name: 'Choose who to talk to' });
    expect(
      within(choices)
        .getAllByRole('button')
        .map((button) => button.textContent),
    ).toEqual(['Workshop', 'Reception']);
    expect(screen.queryByRole('navigation')).toBeNull();
    await user.click(within(choices).getByRole('button', { name: 'Workshop' }));
    await waitFor(() => expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: workshop.id }]));
    // The administrator's name, not the card's.
    await screen.findByRole('heading', { level: 1, name: 'Workshop' });
    await screen.findByRole('textbox', { name: 'Message' });
    expect(screen.queryByRole('navigation')).toBeNull();
    expect(screen.queryByText('AgentDesk demo agent')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Start over' }));
    await screen.findByRole('list', { name: 'Choose who to talk to' });
    expect(backend.callsOf('kiosk.reset')).toHaveLength(2);
  });

  for (const language of ['en', 'cs'] as const) {
    it(`shows nothing technical on the start screen and in a conversation, and no notice to a visitor (${language})`, async () => {
      const { backend, user } = kioskApp({ language });
      await started(backend);
      const start = await screen.findByRole<HTMLButtonElement>('button', { name: language === 'en' ? 'Start' : 'Začít' });
      await waitFor(() => expect(start.disabled).toBe(false));
      expectNothingTechnical('start screen');
      await user.click(start);
      await screen.findByRole('heading', { level: 1, name: 'Workshop' });
      await screen.findByRole('textbox', { name: language === 'en' ? 'Message' : 'Zpráva' });
      await screen.findByRole('button', { name: language === 'en' ? /Take a photo/ : /Vyfotit/ });
      expect(screen.queryByRole('status', { name: /notice|upozorn/i })).toBeNull();
      expectNothingTechnical('conversation');
    });
  }

  it('the start-up notice is in Settings behind the PIN, for the administrator', async () => {
    const { backend, user } = kioskApp();
    backend.handle('policy.unlockAdmin', () => ok({ unlocked: true as const, until: new Date(Date.now() + 300_000).toISOString() }));
    await started(backend);
    await user.click(await screen.findByRole('button', { name: 'Administrator' }));
    const dialog = await screen.findByRole('dialog', { name: 'Administrator PIN' });
    await user.type(within(dialog).getByLabelText('PIN'), '2468{Enter}');
    await screen.findByRole('heading', { level: 1, name: 'Settings' });
    const notices = screen.getByRole('region', { name: 'Notices' });
    within(notices).getByText('No keychain is reachable: sign-ins last until AgentDesk closes.');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await screen.findByRole('button', { name: 'Start' });
  });

  it('offers no voice where the policy turns voice off (no Talk by voice, nothing about speech models)', async () => {
    const { backend, user } = kioskApp({ policy: { ...kioskPolicy, voice: false } });
    await started(backend);
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    await user.click(start);
    await screen.findByRole('button', { name: /Take a photo/ });
    await screen.findByRole('button', { name: /Scan/ });
    expect(screen.queryByRole('button', { name: /Talk by voice|Call/ })).toBeNull();
    expect(document.body.textContent).not.toMatch(/speech|voice|microphone/i);
  });

  it('with voice allowed and a recognizer, Talk by voice is a large tool with its words beside Scan and Take a photo', async () => {
    const { backend, user } = kioskApp();
    backend.handle('speech.status', () =>
      ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: true, engine: 'pocketsphinx', basic: true } }),
    );
    await started(backend);
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    await user.click(start);
    const talk = await screen.findByRole('button', { name: 'Talk by voice' });
    expect(talk.closest('.app--kiosk')).not.toBeNull();
    for (const name of [/Scan/, /Take a photo/, /Talk by voice/]) expect(screen.getByRole('button', { name }).textContent).toMatch(name);
  });

  it('with voice allowed but nothing to recognise speech, Talk by voice is not offered (it would only say to import a speech model)', async () => {
    const { backend, user } = kioskApp();
    await started(backend);
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    await user.click(start);
    const photo = await screen.findByRole<HTMLButtonElement>('button', { name: /Take a photo/ });
    await waitFor(() => expect(photo.disabled).toBe(false));
    await waitFor(() => expect(backend.callsOf('speech.status').length).toBeGreaterThan(0));
    expect(screen.queryByRole('button', { name: 'Talk by voice' })).toBeNull();
    expectNothingTechnical('conversation without a recognizer');
  });

  it('the photo dialog offers the camera only: no file chooser, its title says Take a photo', async () => {
    const { backend, user } = kioskApp();
    await started(backend);
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    await user.click(start);
    const photo = await screen.findByRole<HTMLButtonElement>('button', { name: /Take a photo/ });
    await waitFor(() => expect(photo.disabled).toBe(false));
    await user.click(photo);
    const dialog = await screen.findByRole('dialog', { name: 'Take a photo' });
    expect(within(dialog).queryByRole('button', { name: /Choose/ })).toBeNull();
    expect(dialog.querySelector('input[type=file]')).toBeNull();
    expect(dialog.textContent).not.toMatch(/choose|drop|file/i);
  });
});
