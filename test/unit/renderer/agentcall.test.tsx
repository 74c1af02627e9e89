import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/base/errors';
import { nfcScanResultSchema, type NfcScanResult, type NfcStatus } from '../../../src/shared/nfc/ipc-schemas';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentScreen } from '../../../src/renderer/screens/AgentScreen';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend, type FakeBackend } from './fake-api';

/**
 * An AgentCall agent on the one conversation screen, against main's real conversation service and
 * AgentCall source (agentcall-main.ts): the session's updates, what the transcript shows of them, the
 * composer's tools, what waits at the end of the conversation to be sent, the agent's requests and
 * proposals where they were asked, the end of a session and a new one.
 */

const reader = 'ACS ACR122U PICC Interface 00 00';
const readyNfc: NfcStatus = { state: 'ready', readers: [{ name: reader, connected: true }], service: 'running', scan: { armed: false, kiosk: false } };
const routerRef = `urn:agentcall:local-tag:${'ab'.repeat(32)}`;
/** SHA-256 of the fake backend's staged JPEG (`/9j/2Q==`: FF D8 FF D9). */
const fakePhotoSha256 = '32461d5bd1773012acef0ba15636752949bd7c2ce50f9172159d9f56cf0dd9af';

function scanResult(scanId: string, objectRef = routerRef): NfcScanResult {
  // Checked against the real schema, so the fixture is what main could send.
  return nfcScanResultSchema.parse({
    scanId,
    outcome: 'observation',
    object: { objectRef, carrier: 'localTag', assurance: 'unverifiedTag', payloadSha256: 'cd'.repeat(32) },
    reader,
  });
}

beforeEach(() => {
  // The conversation renders its updates once per animation frame; here frames run at once.
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
  URL.createObjectURL = vi.fn(() => 'blob:photo-preview');
  URL.revokeObjectURL = vi.fn();
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
  document.documentElement.lang = '';
});

/** A fake main whose sessions have known keys (session-1, session-2, …) and usable modalities. */
function backendFor(options: { usable?: ('nfc' | 'photo')[]; hardware?: NfcStatus } = {}): FakeBackend {
  const backend = createFakeBackend({ hardware: { nfc: options.hardware ?? readyNfc } });
  agentCallMain(backend);
  let opened = 0;
  backend.handle('agentcall.open', () => {
    opened += 1;
    return ok({
      sessionKey: `session-${opened}`,
      agent: backend.state.agentCall,
      updates: [
        {
          type: 'session.starting',
          sessionId: `agentdesk-${opened}`,
          usableModalities: options.usable ?? ['nfc', 'photo'],
          agentRequests: ['nfc', 'photo'],
          focusContext: true,
        },
      ],
    });
  });
  return backend;
}

async function renderScreen(backend: FakeBackend = backendFor(), options: { establish?: boolean } = {}) {
  const headingRef = createRef<HTMLHeadingElement>();
  const onBack = vi.fn();
  const user = userEvent.setup();
  const view = render(
    <I18nProvider setting="en">
      <AgentScreen api={backend.api} headingRef={headingRef} agentId={builtInAgentCallDemoId} label="Demo objects" protocol="agentcall" onBack={onBack} />
    </I18nProvider>,
  );
  if (options.establish !== false) {
    await screen.findByRole('heading', { level: 1, name: backend.state.agentCall.name });
    await screen.findByRole('log', { name: 'Conversation' });
    push(backend, 'session-1', { type: 'session.established' });
  }
  return { backend, user, onBack, headingRef, ...view };
}

function push(backend: FakeBackend, sessionKey: string, ...updates: SessionUpdate[]) {
  act(() => backend.emit('agentcall.update', { sessionKey, updates }));
}

const transcript = () => within(screen.getByRole('log', { name: 'Conversation' }));
const statusLine = () => screen.getByText((_, element) => element?.classList.contains('run-status__text') ?? false);
const description = (element: HTMLElement) =>
  (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');

async function openDetails(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: /Details/ }));
  return within(await screen.findByRole('dialog', { name: /^About / }));
}

async function scanWith(user: ReturnType<typeof userEvent.setup>, backend: FakeBackend, button: HTMLElement, scanId: string, objectRef = routerRef) {
  await waitFor(() => expect((button as HTMLButtonElement).disabled).toBe(false));
  await user.click(button);
  await waitFor(() => expect(backend.callsOf('nfc.arm').length).toBeGreaterThan(0));
  await screen.findByRole('button', { name: 'Cancel scan' });
  act(() => backend.emit('nfc.scanResult', scanResult(scanId, objectRef)));
}

async function choosePhoto(user: ReturnType<typeof userEvent.setup>) {
  const dialog = await screen.findByRole('dialog', { name: 'Take or choose a photo' });
  await user.upload(within(dialog).getByTestId('photo-file-input'), new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], 'router.jpg', { type: 'image/jpeg' }));
  // Processed in main, the photo closes the dialog and waits in the conversation.
  await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Take or choose a photo' })).toBeNull());
  return within(transcript().getByRole('region', { name: 'Photo taken, not sent yet' }));
}

describe('an AgentCall agent on the conversation screen', () => {
  it('says "Connecting to …" while opening; then the agent’s name is the title and everything else about it is behind Details', async () => {
    const backend = backendFor();
    backend.state.agentCall = { ...backend.state.agentCall, notes: ['The card lists a skill without a description.'] };
    const release = backend.holdNext('agentcall.open');
    const { user } = await renderScreen(backend, { establish: false });
    expect(await screen.findByText(/Connecting to Demo objects…/)).toBeTruthy();
    release();
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk demo agent' });
    await screen.findByRole('log', { name: 'Conversation' });
    expect(screen.queryByText(/Connecting to/)).toBeNull();
    // Nothing about the agent above the conversation.
    expect(screen.queryByText('Accepts NFC scans and photos')).toBeNull();
    expect(screen.queryByText('Scans, photos and teaching.')).toBeNull();
    expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: builtInAgentCallDemoId }]);
    // Before session.established nothing can be sent.
    const photo = screen.getByRole<HTMLButtonElement>('button', { name: /Take a photo…/ });
    expect(photo.disabled).toBe(true);
    expect(description(photo)).toBe('Available once the session has started.');
    push(backend, 'session-1', { type: 'session.established' });
    expect(screen.getByRole<HTMLButtonElement>('button', { name: /Take a photo…/ }).disabled).toBe(false);

    const details = await openDetails(user);
    expect(details.getByText('Version 0.1.0')).toBeTruthy();
    expect(details.getByText('Scans, photos and teaching.')).toBeTruthy();
    expect(details.getByText('Accepts NFC scans and photos')).toBeTruthy();
    expect(details.getByText('May ask you to scan an object or take a photo')).toBeTruthy();
    expect(details.getByText('AgentDesk can read its answers aloud and listen to you.')).toBeTruthy();
    expect(details.getByText('Address: 127.0.0.1:9')).toBeTruthy();
    expect(details.getByText('Notes from this agent’s card (1)')).toBeTruthy();
    expect(details.getByText('The card lists a skill without a description.')).toBeTruthy();
  });

  it('sends text through the session, streams the answer from agentcall.update events (not other sessions’), and Cancel stops it', async () => {
    const { backend, user } = await renderScreen();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What is this?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(backend.callsOf('agentcall.sendText')).toEqual([{ sessionKey: 'session-1', text: 'What is this?' }]));
    await waitFor(() => expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' }).value).toBe(''));
    push(
      backend,
      'session-1',
      { type: 'user.text', id: 'u1', turn: 1, text: 'What is this?' },
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'It is a ' },
    );
    push(backend, 'other-session', { type: 'text.delta', runKey: 'r1', text: 'HIJACKED' });
    push(backend, 'session-1', { type: 'text.delta', runKey: 'r1', text: 'workshop router.' });
    expect(transcript().getByText('What is this?')).toBeTruthy();
    expect(transcript().getByText('It is a workshop router.')).toBeTruthy();
    expect(screen.queryByText(/HIJACKED/)).toBeNull();
    expect(statusLine().textContent).toBe('Agent is answering…');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(backend.callsOf('agentcall.cancel')).toEqual([{ sessionKey: 'session-1' }]));
    push(backend, 'session-1', { type: 'run.cancelling', runKey: 'r1' });
    expect(statusLine().textContent).toBe('Stopping the answer…');
    push(backend, 'session-1', { type: 'run.completed', runKey: 'r1' });
    expect(statusLine().textContent).toBe('Cancelled');
    expect(transcript().getByText('Stopped.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('an agent answering far over the conversation budget: the oldest answers go and the transcript says so', { timeout: 60_000 }, async () => {
    const { backend } = await renderScreen();
    const half = 'x'.repeat(100_000);
    expect(screen.queryByText('Earlier messages were removed to keep this chat small.')).toBeNull();
    for (let index = 0; index < 24; index++) {
      push(
        backend,
        'session-1',
        { type: 'run.started', runKey: `r${index}` },
        { type: 'text.delta', runKey: `r${index}`, text: `answer ${index} ` },
        { type: 'text.delta', runKey: `r${index}`, text: half },
        { type: 'text.delta', runKey: `r${index}`, text: half },
        { type: 'run.completed', runKey: `r${index}` },
      );
    }
    expect(transcript().getByText('Earlier messages were removed to keep this chat small.')).toBeTruthy();
    expect(transcript().getByText(/^answer 23 x/)).toBeTruthy();
    expect(transcript().queryByText(/^answer 0 x/)).toBeNull();
  });

  it('shows agent text as Markdown without HTML: a <script> stays text', async () => {
    const { backend, container } = await renderScreen();
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'Hello <script>window.pwned = 1</script> and <b onclick="x()">this</b> is **bold**' },
      { type: 'run.completed', runKey: 'r1' },
    );
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('b[onclick]')).toBeNull();
    expect(transcript().getByText(/<script>window\.pwned = 1<\/script>/)).toBeTruthy();
    expect(transcript().getByText('bold').tagName).toBe('STRONG');
    expect(statusLine().textContent).toBe('Answered');
  });

  it('keeps text that the session refused in the field and says why; counts near the 8000-character limit', async () => {
    const { backend, user } = await renderScreen();
    backend.failNext('agentcall.sendText', { code: 'rejected', message: 'The agent is still answering.' });
    const field = screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
    await user.type(field, 'Hello');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Not sent. The agent is still answering.');
    expect(field.value).toBe('Hello');
    expect(screen.queryByText(/\/ 8000/)).toBeNull();
    fireEvent.change(field, { target: { value: 'x'.repeat(7_500) } });
    expect(screen.getByText('7500 / 8000')).toBeTruthy();
    fireEvent.change(field, { target: { value: 'x'.repeat(8_001) } });
    expect(screen.getByText('The message is too long: at most 8000 characters.')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Send' }).disabled).toBe(true);
  });

  it('a tag read waits at the end of the conversation as "Tag read" and goes, with the intent, only on Send scan; the object is named as the agent named it, never by its reference', async () => {
    const { backend, user } = await renderScreen();
    const intent = screen.getByRole('combobox', { name: /Intent/ });
    await user.selectOptions(intent, 'Remember');
    // The intent's question and what it does not grant describe the choice.
    expect(description(intent)).toBe('What should the agent do with it? This only tells the agent what you want; it gives the agent no permission.');
    await scanWith(user, backend, screen.getByRole('button', { name: 'Scan object' }), 'scan-1');
    const staged = transcript().getByRole('region', { name: 'Tag read, not sent yet' });
    expect(within(staged).getByText('Unknown object').getAttribute('title')).toBe(routerRef);
    expect(within(staged).getByText(/unverified tag: anyone can write a tag/)).toBeTruthy();
    expect(within(staged).getByText('Intent: Remember')).toBeTruthy();
    // The tag arrived from the reader, not from a click: nothing is sent yet.
    expect(backend.callsOf('agentcall.sendObservation')).toEqual([]);
    const send = within(staged).getByRole('button', { name: 'Send scan' });
    await waitFor(() => expect(document.activeElement).toBe(send));
    await user.click(send);
    await waitFor(() =>
      expect(backend.callsOf('agentcall.sendObservation')).toEqual([
        { sessionKey: 'session-1', intent: 'remember', scan: { scanId: 'scan-1', objectRef: routerRef } },
      ]),
    );
    await waitFor(() => expect(transcript().queryByRole('region', { name: 'Tag read, not sent yet' })).toBeNull());
    push(
      backend,
      'session-1',
      {
        type: 'user.observation',
        id: 'o1',
        turn: 1,
        observationId: 'obs-1',
        intent: 'remember',
        object: { objectRef: routerRef, carrier: 'localTag', assurance: 'unverifiedTag' },
      },
      { type: 'focus', focus: { objectRef: routerRef, carrier: 'localTag', assurance: 'unverifiedTag' } },
    );
    expect(transcript().getByText('Unknown object')).toBeTruthy();
    expect(transcript().getByText('Intent: Remember')).toBeTruthy();
    // Once the agent gave it a name, it is called so (the next tag read too).
    push(backend, 'session-1', {
      type: 'teaching.proposed',
      proposal: { proposalId: 'p-1', objectRef: routerRef, label: 'Workshop router', confirmText: 'confirm', cancelText: 'cancel' },
    });
    expect(transcript().getByText('Workshop router').getAttribute('title')).toBe(routerRef);
    await scanWith(user, backend, screen.getByRole('button', { name: 'Scan object' }), 'scan-1');
    expect(within(transcript().getByRole('region', { name: 'Tag read, not sent yet' })).getByText('Workshop router')).toBeTruthy();
    // Never a reference, nor a 64-hex wall, in the conversation; no "Talking about" line.
    expect(screen.getByRole('log', { name: 'Conversation' }).textContent).not.toMatch(/urn:|ababab|object object/);
    expect(document.body.textContent).not.toContain('ab'.repeat(32));
    expect(screen.queryByText(/Talking about/)).toBeNull();
  });

  it('offers only what the agent accepts; what this session cannot carry is disabled and says why', async () => {
    const backend = backendFor({ usable: ['photo'] });
    backend.state.agentCall = { ...backend.state.agentCall, accepted: ['photo'], agentRequests: [] };
    await renderScreen(backend);
    expect(screen.queryByRole('button', { name: 'Scan object' })).toBeNull();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: /Take a photo…/ }).disabled).toBe(false);
    cleanup();

    const noReader = backendFor({ usable: ['photo'] });
    await renderScreen(noReader);
    const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
    expect(scan.disabled).toBe(true);
    expect(description(scan)).toMatch(/NFC could not be offered in this session: the reader service is off/);
    expect(scan.title).toMatch(/NFC could not be offered/);
    cleanup();

    const textOnly = backendFor({ usable: [] });
    textOnly.state.agentCall = { ...textOnly.state.agentCall, accepted: [], agentRequests: [] };
    await renderScreen(textOnly);
    expect(screen.queryByRole('button', { name: /Take a photo…/ })).toBeNull();
    expect(screen.queryByRole('combobox', { name: /Intent/ })).toBeNull();
  });

  it('a photo from the dialog waits in the conversation with Send photo and Discard; sent, the transcript shows its thumbnail until the session ends', async () => {
    const { backend, user } = await renderScreen();
    await user.click(screen.getByRole('button', { name: /Take a photo…/ }));
    const staged = await choosePhoto(user);
    expect(staged.getByRole<HTMLImageElement>('img', { name: 'The photo as it will be sent, 800 × 600 pixels' }).src).toBe('data:image/jpeg;base64,/9j/2Q==');
    expect(staged.getByText('800 × 600 pixels, 0 KB')).toBeTruthy();
    expect(backend.callsOf('agentcall.sendObservation')).toEqual([]);
    await user.click(staged.getByRole('button', { name: 'Send photo' }));
    await waitFor(() => expect(backend.callsOf('agentcall.sendObservation')).toHaveLength(1));
    expect(backend.callsOf('agentcall.sendObservation')[0]).toEqual({
      sessionKey: 'session-1',
      intent: 'identify',
      photoId: expect.stringMatching(/^photo\d{17}$/),
    });
    await waitFor(() => expect(transcript().queryByRole('region', { name: 'Photo taken, not sent yet' })).toBeNull());
    push(backend, 'session-1', {
      type: 'user.observation',
      id: 'o1',
      turn: 1,
      observationId: 'obs-1',
      intent: 'identify',
      image: { byteCount: 12_288, pixelWidth: 640, pixelHeight: 480, sha256: fakePhotoSha256 },
    });
    expect(transcript().getByText('640×480, 12 KB')).toBeTruthy();
    const thumbnail = await transcript().findByRole<HTMLImageElement>('img', { name: 'The photo you sent, 640 × 480 pixels' });
    expect(thumbnail.src).toBe('data:image/jpeg;base64,/9j/2Q==');
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'transport_closed', closeCode: 1001, closeReason: '', message: 'The agent went away.' } });
    await waitFor(() => expect(transcript().queryByRole('img')).toBeNull());
    expect(transcript().getByText('640×480, 12 KB')).toBeTruthy();
  });

  it('Discard drops a waiting photo in main', async () => {
    const { backend, user } = await renderScreen();
    await user.click(screen.getByRole('button', { name: /Take a photo…/ }));
    const staged = await choosePhoto(user);
    await user.click(staged.getByRole('button', { name: 'Discard' }));
    expect(transcript().queryByRole('region', { name: 'Photo taken, not sent yet' })).toBeNull();
    await waitFor(() => expect(backend.callsOf('photo.discard')).toEqual([{ photoId: expect.stringMatching(/^photo/) }]));
    expect(backend.callsOf('agentcall.sendObservation')).toEqual([]);
  });

  it('a picture dropped anywhere on the screen is processed and waits in the conversation; Send to the agent answers a waiting photo request', async () => {
    const { backend, user } = await renderScreen();
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], 'label.jpg', { type: 'image/jpeg' });
    const dataTransfer = { types: ['Files'], files: [file], dropEffect: 'none' };
    push(backend, 'session-1', {
      type: 'interaction.requested',
      interaction: { interactionId: 'ask-9', kind: 'physical.photo.capture', modality: 'photo', prompt: 'Show me the label' },
    });
    // While the picture is over the window, the screen says where it goes; text being dragged is left alone.
    fireEvent.dragEnter(document.body, { dataTransfer: { types: ['text/plain'], files: [] } });
    expect(screen.queryByText(/^Drop the picture/)).toBeNull();
    fireEvent.dragEnter(document.body, { dataTransfer });
    expect(screen.getByText('Drop the picture to review it as a photo for AgentDesk demo agent')).toBeTruthy();
    const over = fireEvent.dragOver(screen.getByRole('log', { name: 'Conversation' }), { dataTransfer });
    expect(over).toBe(false);
    expect(dataTransfer.dropEffect).toBe('copy');
    fireEvent.drop(screen.getByRole('log', { name: 'Conversation' }), { dataTransfer });
    expect(screen.queryByText(/^Drop the picture/)).toBeNull();
    await waitFor(() => expect(backend.callsOf('photo.stage')).toEqual([{ kind: 'file', bytes: Uint8Array.of(0xff, 0xd8, 0xff, 0xd9) }]));
    const staged = within(await transcript().findByRole('region', { name: 'Photo taken, not sent yet' }));
    expect(staged.getByText('In answer to the agent’s request')).toBeTruthy();
    await user.click(staged.getByRole('button', { name: 'Send to the agent' }));
    await waitFor(() =>
      expect(backend.callsOf('agentcall.sendObservation')).toEqual([
        { sessionKey: 'session-1', intent: 'identify', interactionId: 'ask-9', photoId: expect.stringMatching(/^photo/) },
      ]),
    );
  });

  it('a dropped picture is not taken when this agent cannot take photos now (nothing opens, the page stays)', async () => {
    await renderScreen(backendFor({ usable: ['nfc'] }));
    const file = new File([new Uint8Array([1, 2, 3])], 'a.png', { type: 'image/png' });
    fireEvent.dragEnter(document.body, { dataTransfer: { types: ['Files'], files: [file] } });
    expect(screen.queryByText(/^Drop the picture/)).toBeNull();
    fireEvent.drop(document.body, { dataTransfer: { types: ['Files'], files: [file] } });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('the agent’s request to scan is in the conversation with its controls; the tag read for it goes with its interactionId on "Send to the agent"', async () => {
    const { backend, user } = await renderScreen();
    // The card's voice is the client's: the spoken prompt goes to main's synthesis (and plays in the page).
    const speakCalls = () => backend.callsOf('speech.synthesize').map((request) => request.text);
    push(backend, 'session-1', {
      type: 'interaction.requested',
      interaction: {
        interactionId: 'ask-1',
        kind: 'physical.nfc.scan',
        modality: 'nfc',
        prompt: 'Scan the <b>router</b> tag',
        spokenPrompt: 'Scan the router',
      },
    });
    const request = transcript().getByRole('region', { name: 'The agent asks you to scan an object' });
    expect(within(request).getByText('Scan the <b>router</b> tag')).toBeTruthy();
    expect(statusLine().textContent).toBe('The agent asks you to scan an object.');
    expect(screen.getAllByText('Scan the <b>router</b> tag')).toHaveLength(1);
    // An answer that only repeats the prompt (as the demo agent's does) is not shown a second time.
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r-ask' },
      { type: 'text.delta', runKey: 'r-ask', text: 'Scan the <b>router</b> tag' },
      { type: 'run.completed', runKey: 'r-ask' },
    );
    expect(screen.getAllByText('Scan the <b>router</b> tag')).toHaveLength(1);
    push(backend, 'session-1', { type: 'notice', id: 'n1', code: 'ignored', message: 'An unrelated notice.' });
    await waitFor(() => expect(speakCalls()).toEqual(['Scan the router']));

    await scanWith(user, backend, within(request).getByRole('button', { name: 'Scan for the agent' }), 'scan-1');
    const staged = within(transcript().getByRole('region', { name: 'Tag read, not sent yet' }));
    expect(staged.getByText('In answer to the agent’s request')).toBeTruthy();
    await user.click(staged.getByRole('button', { name: 'Send to the agent' }));
    await waitFor(() =>
      expect(backend.callsOf('agentcall.sendObservation')).toEqual([
        { sessionKey: 'session-1', intent: 'identify', interactionId: 'ask-1', scan: { scanId: 'scan-1', objectRef: routerRef } },
      ]),
    );
    push(backend, 'session-1', { type: 'interaction.state', interactionId: 'ask-1', state: 'answered' });
    expect(screen.queryByRole('region', { name: 'The agent asks you to scan an object' })).toBeNull();
    expect(transcript().getByText('Answered.')).toBeTruthy();
    expect(transcript().getByText('Scan the <b>router</b> tag')).toBeTruthy();
    // Read out once, however often the session changes.
    expect(speakCalls()).toEqual(['Scan the router']);
  });

  it('Decline sends agentcall.decline; a photo request is answered from the photo dialog with its interactionId', async () => {
    const { backend, user } = await renderScreen();
    push(backend, 'session-1', {
      type: 'interaction.requested',
      interaction: { interactionId: 'ask-1', kind: 'physical.nfc.scan', modality: 'nfc', prompt: 'Scan it', spokenPrompt: 'Scan it' },
    });
    await user.click(within(transcript().getByRole('region', { name: 'The agent asks you to scan an object' })).getByRole('button', { name: 'Decline' }));
    await waitFor(() => expect(backend.callsOf('agentcall.decline')).toEqual([{ sessionKey: 'session-1' }]));
    push(backend, 'session-1', { type: 'interaction.state', interactionId: 'ask-1', state: 'declined' });
    expect(transcript().getByText('You declined.')).toBeTruthy();
    expect(screen.queryByRole('region', { name: /The agent asks/ })).toBeNull();

    push(backend, 'session-1', {
      type: 'interaction.requested',
      interaction: { interactionId: 'ask-2', kind: 'physical.photo.capture', modality: 'photo', prompt: 'Show me the label' },
    });
    const request = transcript().getByRole('region', { name: 'The agent asks you to take a photo' });
    await user.click(within(request).getByRole('button', { name: 'Take the photo' }));
    const staged = await choosePhoto(user);
    await user.click(staged.getByRole('button', { name: 'Send to the agent' }));
    await waitFor(() => expect(backend.callsOf('agentcall.sendObservation')).toHaveLength(1));
    expect(backend.callsOf('agentcall.sendObservation')[0]).toEqual({
      sessionKey: 'session-1',
      intent: 'identify',
      interactionId: 'ask-2',
      photoId: expect.stringMatching(/^photo/),
    });
  });

  it('teaching: what will be remembered, Confirm and Cancel send answerProposal, then the state (confirmed, cancelled, invalidated by another object or by the end)', async () => {
    const { backend, user } = await renderScreen();
    const proposal = (id: string, label: string) => ({
      proposalId: id,
      objectRef: routerRef,
      label,
      confirmText: 'confirm object',
      cancelText: 'cancel teaching',
    });
    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-1', 'Workshop router') });
    const statement = transcript().getByText(/will be remembered for this object/);
    expect(statement.textContent).toBe('“Workshop router” will be remembered for this object.');
    expect(statement.getAttribute('title')).toBe(routerRef);
    await user.click(transcript().getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(backend.callsOf('agentcall.answerProposal')).toEqual([{ sessionKey: 'session-1', proposalId: 'p-1', answer: 'confirm' }]));
    // While the answer goes, focus is on what will be remembered (the buttons are disabled) …
    expect(document.activeElement).toBe(statement);
    push(backend, 'session-1', { type: 'teaching.state', proposalId: 'p-1', state: 'confirmed' });
    expect(transcript().getByText('Confirmed.')).toBeTruthy();
    expect(transcript().queryByRole('button', { name: 'Confirm' })).toBeNull();
    // … and on the state line once the agent answered, never on <body> (#15).
    await waitFor(() => expect(document.activeElement).toBe(transcript().getByText('Confirmed.')));

    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-2', 'Spare router') });
    await user.click(transcript().getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(backend.callsOf('agentcall.answerProposal').at(-1)).toEqual({ sessionKey: 'session-1', proposalId: 'p-2', answer: 'cancel' }));
    push(backend, 'session-1', { type: 'teaching.state', proposalId: 'p-2', state: 'cancelled' });
    expect(transcript().getByText('Teaching cancelled.')).toBeTruthy();

    push(
      backend,
      'session-1',
      { type: 'teaching.proposed', proposal: proposal('p-3', 'Old router') },
      { type: 'teaching.state', proposalId: 'p-3', state: 'invalidated' },
    );
    expect(transcript().getByText('No longer valid: a different object was scanned.')).toBeTruthy();
    expect(transcript().queryByRole('button', { name: 'Confirm' })).toBeNull();

    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-4', 'Last router') });
    expect(transcript().getByRole('button', { name: 'Confirm' })).toBeTruthy();
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'client_end', message: 'You ended the session.' } });
    expect(transcript().getByText('No longer valid: the session ended.')).toBeTruthy();
    expect(transcript().getAllByText('No longer valid: a different object was scanned.')).toHaveLength(1);
    expect(transcript().queryByRole('button', { name: 'Confirm' })).toBeNull();
  });

  it('shows an agent failure in its words (a 10 KiB message as the engine bounds it, 500 characters) and says the answer stopped with an error', async () => {
    const { backend } = await renderScreen();
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r1' },
      { type: 'failure', id: 'f1', runKey: 'r1', code: 'model_unavailable', message: 'A'.repeat(10 * 1024) },
    );
    const message = transcript().getByText(/^A+$/);
    expect(message.textContent).toHaveLength(500);
    expect(statusLine().textContent).toBe('The answer stopped with an error.');
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('when the session ends, says so once and why; "Start a new session" opens a fresh one (the old view and its events are gone)', async () => {
    const { backend, user } = await renderScreen();
    push(backend, 'session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'Remember me?' });
    push(backend, 'session-1', {
      type: 'ended',
      reason: { kind: 'protocol_error', code: 'sequence_regression', message: 'The agent repeated an old sequence number.' },
    });
    expect(transcript().getByText('The agent repeated an old sequence number.')).toBeTruthy();
    expect(transcript().getByText('sequence_regression')).toBeTruthy();
    // Said once on screen (the status line only announces it), and nothing offers what cannot be done now.
    expect(screen.getAllByText('The session has ended.').filter((element) => !element.closest('.visually-hidden'))).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'End session' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Scan object' })).toBeNull();
    expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' })).toBeTruthy();
    await user.click(transcript().getByRole('button', { name: 'Start a new session' }));
    await waitFor(() => expect(backend.callsOf('agentcall.open')).toHaveLength(2));
    await waitFor(() => expect(screen.getByRole('button', { name: 'End session' })).toBeTruthy());
    expect(screen.queryByText('Remember me?')).toBeNull();
    push(backend, 'session-1', { type: 'user.text', id: 'u2', turn: 2, text: 'From the old session' });
    expect(screen.queryByText('From the old session')).toBeNull();
    push(backend, 'session-2', { type: 'session.established' }, { type: 'user.text', id: 'u1', turn: 1, text: 'New session text' });
    expect(transcript().getByText('New session text')).toBeTruthy();
  });

  it('Back (leaving the screen) keeps the session: coming back shows the same live conversation, and End still ends it', async () => {
    const backend = backendFor();
    const first = await renderScreen(backend);
    push(backend, 'session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'Before Back' });
    first.unmount();
    expect(backend.callsOf('agentcall.end')).toEqual([]);
    // The agent goes on while the screen is away.
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'Answered while away' },
      { type: 'run.completed', runKey: 'r1' },
    );

    const { user } = await renderScreen(backend, { establish: false });
    await screen.findByRole('log', { name: 'Conversation' });
    expect(transcript().getByText('Before Back')).toBeTruthy();
    expect(transcript().getByText('Answered while away')).toBeTruthy();
    expect(backend.callsOf('agentcall.open')).toHaveLength(1);
    await user.click(await screen.findByRole('button', { name: 'End session' }));
    await waitFor(() => expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]));
  });

  it('End session calls agentcall.end; the end takes the focus to Start a new session, which starts a new conversation', async () => {
    const { backend, user, unmount } = await renderScreen();
    await user.click(screen.getByRole('button', { name: 'End session' }));
    await waitFor(() => expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]));
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'client_end', message: 'You ended the session.' } });
    expect(transcript().getByText('The session has ended.')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(transcript().getByRole('button', { name: 'Start a new session' })));
    await user.click(transcript().getByRole('button', { name: 'Start a new session' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'End session' })).toBeTruthy());
    // Leaving does not end the new one either.
    unmount();
    expect(backend.callsOf('agentcall.open')).toHaveLength(2);
    expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]);
  });

  it('sign_in_required: a password field saves the token with agentcall.useToken and connects again', async () => {
    const backend = backendFor();
    backend.failNext('agentcall.open', {
      code: 'sign_in_required',
      message: 'AgentDesk demo agent asks for an access token. Paste the token its publisher gave you.',
    });
    const { user } = await renderScreen(backend, { establish: false });
    const field = await screen.findByLabelText('Access token');
    expect(field.getAttribute('type')).toBe('password');
    expect(screen.getByText(/asks for an access token\. Paste the token/)).toBeTruthy();
    await user.type(field, 'secret-token');
    await user.click(screen.getByRole('button', { name: 'Use token and connect' }));
    await waitFor(() => expect(backend.callsOf('agentcall.useToken')).toEqual([{ agentId: builtInAgentCallDemoId, token: 'secret-token' }]));
    await screen.findByRole('log', { name: 'Conversation' });
    expect(backend.callsOf('agentcall.open')).toHaveLength(2);
    expect(screen.queryByLabelText('Access token')).toBeNull();
  });

  it('a card AgentDesk cannot use, or an agent that does not answer: the reason, and Retry opens again', async () => {
    const backend = backendFor();
    backend.failNext('agentcall.open', { code: 'incompatible', message: 'The card declares schemaVersion "0.2"; AgentDesk speaks 0.1.' });
    await renderScreen(backend, { establish: false });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Could not connect to AgentDesk demo agent. The card declares schemaVersion "0.2"; AgentDesk speaks 0.1.');
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull();
    cleanup();

    const offline = backendFor();
    offline.failNext('agentcall.open', { code: 'network_error', message: 'The agent did not answer in time.', retryable: true });
    const second = await renderScreen(offline, { establish: false });
    expect((await screen.findByRole('alert')).textContent).toBe('Could not connect to AgentDesk demo agent. The agent did not answer in time.');
    await second.user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByRole('log', { name: 'Conversation' });
    expect(offline.callsOf('agentcall.open')).toHaveLength(2);
  });

  it('the kiosk’s start tag is the session’s first observation, sent once it is established, to that session', async () => {
    const backend = backendFor();
    const objectRef = 'urn:agentcall:object:workshop-router';
    render(
      <I18nProvider setting="en">
        <AgentScreen
          api={backend.api}
          headingRef={createRef()}
          agentId={builtInAgentCallDemoId}
          label="Demo objects"
          protocol="agentcall"
          onBack={() => undefined}
          startTag={{ scanId: 'k-1', objectRef }}
        />
      </I18nProvider>,
    );
    await screen.findByRole('log', { name: 'Conversation' });
    expect(backend.callsOf('kiosk.startTag')).toEqual([]);
    push(backend, 'session-1', { type: 'session.established' });
    await waitFor(() => expect(backend.callsOf('kiosk.startTag')).toEqual([{ sessionKey: 'session-1', scanId: 'k-1', objectRef }]));
    push(backend, 'session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'later' });
    expect(backend.callsOf('kiosk.startTag')).toHaveLength(1);
  });
});

describe('client-owned voice on an AgentCall agent (voice.owner "client")', () => {
  it('speaks each stable speech.segment once, in order, through main’s synthesis; segments of a run being cancelled are not said; Read answers aloud turns it off', async () => {
    const { backend, user } = await renderScreen();
    const spoken = () => backend.callsOf('speech.synthesize').map((request) => request.text);
    const toggle = await screen.findByRole('button', { name: 'Read answers aloud' });
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r1' },
      { type: 'text.delta', runKey: 'r1', text: 'One. Two.' },
      { type: 'speech.segment', runKey: 'r1', segmentId: 'a', text: 'One.' },
      { type: 'speech.segment', runKey: 'r1', segmentId: 'b', text: 'Two.' },
    );
    push(backend, 'session-1', { type: 'speech.segment', runKey: 'r1', segmentId: 'a', text: 'One.' }, { type: 'run.completed', runKey: 'r1' });
    await waitFor(() => expect(spoken()).toEqual(['One.', 'Two.']));
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r2' },
      { type: 'run.cancelling', runKey: 'r2' },
      { type: 'speech.segment', runKey: 'r2', segmentId: 'c', text: 'Never said.' },
    );
    push(backend, 'session-1', { type: 'run.completed', runKey: 'r2' });
    expect(spoken()).toEqual(['One.', 'Two.']);
    // The speech segments repeat the answer's text: the conversation shows it once.
    expect(transcript().getAllByText('One. Two.')).toHaveLength(1);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    await user.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r3' },
      { type: 'speech.segment', runKey: 'r3', segmentId: 'd', text: 'Not read.' },
      { type: 'run.completed', runKey: 'r3' },
    );
    expect(spoken()).toEqual(['One.', 'Two.']);
  });
});
