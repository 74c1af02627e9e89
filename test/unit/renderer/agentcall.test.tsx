import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionUpdate } from '../../../src/shared/agentcall/session-view';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/ipc/errors';
import { nfcScanResultSchema, type NfcScanResult, type NfcStatus } from '../../../src/shared/nfc/ipc-schemas';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentCallScreen } from '../../../src/renderer/screens/agentcall/AgentCallScreen';
import { createFakeBackend, type FakeBackend } from './fake-api';

const reader = 'ACS ACR122U PICC Interface 00 00';
const readyNfc: NfcStatus = { state: 'ready', readers: [{ name: reader, connected: true }], service: 'running', scan: { armed: false, kiosk: false } };
const routerRef = `urn:agentcall:local-tag:${'ab'.repeat(32)}`;
/** How the screen shows routerRef (#15): shortened with a label, the whole reference as the tooltip. */
const routerShort = 'tag ababab…';
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
  // The session renders its updates once per animation frame; here frames run at once.
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
  document.documentElement.lang = '';
});

/** A fake main whose sessions have known keys (session-1, session-2, …) and usable modalities. */
function backendFor(options: { usable?: ('nfc' | 'photo')[]; hardware?: NfcStatus } = {}): FakeBackend {
  const backend = createFakeBackend({ hardware: { nfc: options.hardware ?? readyNfc } });
  let opened = 0;
  backend.handle('agentcall.open', () => {
    opened += 1;
    return ok({
      sessionKey: `session-${opened}`,
      agent: backend.state.agentCall,
      updates: [{ type: 'session.starting', sessionId: `agentdesk-${opened}`, usableModalities: options.usable ?? ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true }],
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
      <AgentCallScreen api={backend.api} headingRef={headingRef} agentId={builtInAgentCallDemoId} label="Demo objects" onBack={onBack} />
    </I18nProvider>,
  );
  if (options.establish !== false) {
    await screen.findByRole('heading', { level: 1, name: backend.state.agentCall.name });
    push(backend, 'session-1', { type: 'session.established' });
  }
  return { backend, user, onBack, headingRef, ...view };
}

function push(backend: FakeBackend, sessionKey: string, ...updates: SessionUpdate[]) {
  act(() => backend.emit('agentcall.update', { sessionKey, updates }));
}

const transcript = () => within(screen.getByRole('region', { name: 'Messages' }));
const statusLine = () => screen.getByText((_, element) => element?.classList.contains('run-status__text') ?? false);

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
  await within(dialog).findByRole('img');
  await user.click(within(dialog).getByRole('button', { name: 'Send' }));
}

describe('AgentCall session screen', () => {
  it('shows "Connecting to …" while opening, then the agent header: name, version, description, what it accepts and asks for, host and notes', async () => {
    const backend = backendFor();
    backend.state.agentCall = { ...backend.state.agentCall, notes: ['The card lists a skill without a description.'] };
    const release = backend.holdNext('agentcall.open');
    await renderScreen(backend, { establish: false });
    expect(screen.getByText(/Connecting to Demo objects…/)).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Demo objects' })).toBeTruthy();
    release();
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk demo agent' });
    expect(screen.queryByText(/Connecting to/)).toBeNull();
    expect(screen.getByText('Version 0.1.0')).toBeTruthy();
    expect(screen.getByText('Scans, photos and teaching.')).toBeTruthy();
    expect(screen.getByText('Accepts NFC scans and photos')).toBeTruthy();
    expect(screen.getByText('May ask you to scan an object or take a photo')).toBeTruthy();
    expect(screen.getByText('Address: 127.0.0.1:9')).toBeTruthy();
    expect(screen.getByText('Notes from this agent’s card (1)')).toBeTruthy();
    expect(screen.getByText('The card lists a skill without a description.')).toBeTruthy();
    expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: builtInAgentCallDemoId }]);
    // Before session.established nothing can be sent.
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Take a photo…' }).disabled).toBe(true);
    expect(statusLine().textContent).toBe('Starting the session…');
    push(backend, 'session-1', { type: 'session.established' });
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Take a photo…' }).disabled).toBe(false);
  });

  it('sends text, streams the answer from agentcall.update events (and ignores other sessions), and offers Cancel while the run is active', async () => {
    const { backend, user } = await renderScreen();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What is this?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(backend.callsOf('agentcall.sendText')).toEqual([{ sessionKey: 'session-1', text: 'What is this?' }]));
    await waitFor(() => expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' }).value).toBe(''));
    push(backend, 'session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'What is this?' }, { type: 'run.started', runKey: 'r1' }, { type: 'text.delta', runKey: 'r1', text: 'It is a ' });
    push(backend, 'other-session', { type: 'text.delta', runKey: 'r1', text: 'HIJACKED' });
    push(backend, 'session-1', { type: 'text.delta', runKey: 'r1', text: 'workshop router.' });
    expect(transcript().getByText('What is this?')).toBeTruthy();
    expect(transcript().getByText('It is a workshop router.')).toBeTruthy();
    expect(screen.queryByText(/HIJACKED/)).toBeNull();
    expect(statusLine().textContent).toBe('Agent is answering…');
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull();
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
      push(backend, 'session-1', { type: 'run.started', runKey: `r${index}` }, { type: 'text.delta', runKey: `r${index}`, text: `answer ${index} ` }, { type: 'text.delta', runKey: `r${index}`, text: half }, { type: 'text.delta', runKey: `r${index}`, text: half }, { type: 'run.completed', runKey: `r${index}` });
    }
    expect(transcript().getByText('Earlier messages were removed to keep this chat small.')).toBeTruthy();
    expect(transcript().getByText(/^answer 23 x/)).toBeTruthy();
    expect(transcript().queryByText(/^answer 0 x/)).toBeNull();
  });

  it('shows agent text as Markdown without HTML: a <script> stays text', async () => {
    const { backend, container } = await renderScreen();
    push(backend, 'session-1', { type: 'run.started', runKey: 'r1' }, { type: 'text.delta', runKey: 'r1', text: 'Hello <script>window.pwned = 1</script> and <b onclick="x()">this</b> is **bold**' }, { type: 'run.completed', runKey: 'r1' });
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('b[onclick]')).toBeNull();
    expect(transcript().getByText(/<script>window\.pwned = 1<\/script>/)).toBeTruthy();
    expect(transcript().getByText('bold').tagName).toBe('STRONG');
    expect(statusLine().textContent).toBe('Answered');
  });

  it('keeps text that main refused in the field and shows why; counts near the 8000-character limit', async () => {
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
    expect(screen.getByText('A message can have at most 8000 characters.')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Send' }).disabled).toBe(true);
  });

  it('a scan waits as a chip and is sent with the chosen intent only when the user presses Send scan', async () => {
    const { backend, user } = await renderScreen();
    const intent = screen.getByRole('combobox', { name: 'Intent' });
    await user.selectOptions(intent, 'Remember');
    // The intent's question and what it does not grant describe the choice.
    expect(document.getElementById(intent.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'What should the agent do with it? This only tells the agent what you want; it gives the agent no permission.',
    );
    await scanWith(user, backend, screen.getByRole('button', { name: 'Scan object' }), 'scan-1');
    const chip = (await screen.findByText('Scanned, not sent yet:')).parentElement as HTMLElement;
    expect(within(chip).getByText(routerShort).tagName).toBe('CODE');
    expect(within(chip).getByText(routerShort).getAttribute('title')).toBe(routerRef);
    expect(within(chip).getByText(/unverified tag: anyone can write a tag/)).toBeTruthy();
    // The tag arrived from the reader, not from a click: nothing is sent yet.
    expect(backend.callsOf('agentcall.sendObservation')).toEqual([]);
    const send = within(chip).getByRole('button', { name: 'Send scan' });
    expect(document.activeElement).toBe(send);
    await user.click(send);
    await waitFor(() =>
      expect(backend.callsOf('agentcall.sendObservation')).toEqual([{ sessionKey: 'session-1', intent: 'remember', scan: { scanId: 'scan-1', objectRef: routerRef } }]),
    );
    await waitFor(() => expect(screen.queryByText('Scanned, not sent yet:')).toBeNull());
    push(
      backend,
      'session-1',
      { type: 'user.observation', id: 'o1', turn: 1, observationId: 'obs-1', intent: 'remember', object: { objectRef: routerRef, carrier: 'localTag', assurance: 'unverifiedTag' } },
      { type: 'focus', focus: { objectRef: routerRef, carrier: 'localTag', assurance: 'unverifiedTag' } },
    );
    expect(transcript().getByText(routerShort).tagName).toBe('CODE');
    expect(transcript().getByText(routerShort).getAttribute('title')).toBe(routerRef);
    expect(transcript().getByText('Intent: Remember')).toBeTruthy();
    expect(screen.getByText('Talking about:').textContent).toBe(`Talking about: ${routerShort}`);
    // Never a 64-hex wall on screen.
    expect(document.body.textContent).not.toContain('ab'.repeat(32));
  });

  it('explains why scanning or photos are off: the agent does not accept them, or NFC could not be offered in this session', async () => {
    const backend = backendFor({ usable: ['photo'] });
    backend.state.agentCall = { ...backend.state.agentCall, accepted: ['photo'], agentRequests: [] };
    await renderScreen(backend);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Scan object' }).disabled).toBe(true);
    expect(screen.getByText('This agent does not accept NFC scans.')).toBeTruthy();
    expect(screen.getByText('Accepts photos')).toBeTruthy();
    cleanup();

    const noReader = backendFor({ usable: ['photo'] });
    await renderScreen(noReader);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Scan object' }).disabled).toBe(true);
    expect(screen.getByText(/NFC could not be offered in this session: the reader service is off/)).toBeTruthy();
    cleanup();

    const textOnly = backendFor({ usable: [] });
    textOnly.state.agentCall = { ...textOnly.state.agentCall, accepted: [], agentRequests: [] };
    await renderScreen(textOnly);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Take a photo…' }).disabled).toBe(true);
    expect(screen.getByText('This agent does not accept photos.')).toBeTruthy();
    expect(screen.getByText('Accepts text only')).toBeTruthy();
  });

  it('a photo from PhotoDialog is sent on its Send click; the transcript shows its thumbnail and size until the session ends', async () => {
    const { backend, user } = await renderScreen();
    await user.click(screen.getByRole('button', { name: 'Take a photo…' }));
    await choosePhoto(user);
    await waitFor(() => expect(backend.callsOf('agentcall.sendObservation')).toHaveLength(1));
    const [request] = backend.callsOf('agentcall.sendObservation');
    expect(request).toEqual({ sessionKey: 'session-1', intent: 'identify', photoId: expect.stringMatching(/^photo\d{17}$/) });
    expect(screen.queryByRole('dialog')).toBeNull();
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
    expect(transcript().queryByRole('img')).toBeNull();
    expect(transcript().getByText('640×480, 12 KB')).toBeTruthy();
  });

  it('a picture dropped anywhere on the screen opens the photo review with it; Send answers a waiting photo request', async () => {
    const { backend, user } = await renderScreen();
    const file = new File([new Uint8Array([0xff, 0xd8, 0xff, 0xd9])], 'label.jpg', { type: 'image/jpeg' });
    const dataTransfer = { types: ['Files'], files: [file], dropEffect: 'none' };
    push(backend, 'session-1', { type: 'interaction.requested', interaction: { interactionId: 'ask-9', kind: 'physical.photo.capture', modality: 'photo', prompt: 'Show me the label' } });
    // While the picture is over the window, the screen says where it goes; text being dragged is left alone.
    fireEvent.dragEnter(document.body, { dataTransfer: { types: ['text/plain'], files: [] } });
    expect(screen.queryByText(/^Drop the picture/)).toBeNull();
    fireEvent.dragEnter(document.body, { dataTransfer });
    expect(screen.getByText('Drop the picture to review it as a photo for AgentDesk demo agent')).toBeTruthy();
    const over = fireEvent.dragOver(screen.getByRole('region', { name: 'Messages' }), { dataTransfer });
    expect(over).toBe(false);
    expect(dataTransfer.dropEffect).toBe('copy');
    fireEvent.drop(screen.getByRole('region', { name: 'Messages' }), { dataTransfer });
    expect(screen.queryByText(/^Drop the picture/)).toBeNull();
    const dialog = await screen.findByRole('dialog', { name: 'Take or choose a photo' });
    await waitFor(() => expect(backend.callsOf('photo.stage')).toEqual([{ kind: 'file', bytes: Uint8Array.of(0xff, 0xd8, 0xff, 0xd9) }]));
    await user.click(await within(dialog).findByRole('button', { name: 'Send' }));
    await waitFor(() =>
      expect(backend.callsOf('agentcall.sendObservation')).toEqual([{ sessionKey: 'session-1', intent: 'identify', interactionId: 'ask-9', photoId: expect.stringMatching(/^photo/) }]),
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

  it('an agent request to scan shows a prompt panel; the scan is sent with its interactionId on "Send to the agent", and the panel goes when it is answered', async () => {
    const { backend, user } = await renderScreen();
    // The card's voice is the client's: the spoken prompt goes to main's synthesis (and plays in the page).
    const speakCalls = () => backend.callsOf('speech.synthesize').map((request) => request.text);
    push(backend, 'session-1', {
      type: 'interaction.requested',
      interaction: { interactionId: 'ask-1', kind: 'physical.nfc.scan', modality: 'nfc', prompt: 'Scan the <b>router</b> tag', spokenPrompt: 'Scan the router' },
    });
    const panel = screen.getByRole('region', { name: 'The agent asks you to scan an object' });
    expect(within(panel).getByText('Scan the <b>router</b> tag')).toBeTruthy();
    // Announced by the status line, but shown once: in the panel, not again in the transcript or the line.
    expect(statusLine().textContent).toBe('The agent asks you to scan an object.');
    expect(statusLine().querySelector('.visually-hidden')?.textContent).toBe('The agent asks you to scan an object.');
    expect(screen.getAllByText('Scan the <b>router</b> tag')).toHaveLength(1);
    expect(transcript().queryByText('Waiting for you.')).toBeNull();
    // An answer that only repeats the prompt (as the demo agent's does) is not shown a second time.
    push(
      backend,
      'session-1',
      { type: 'run.started', runKey: 'r-ask' },
      { type: 'text.delta', runKey: 'r-ask', text: 'Scan the <b>router</b> tag' },
      { type: 'run.completed', runKey: 'r-ask' },
    );
    expect(screen.getAllByText('Scan the <b>router</b> tag')).toHaveLength(1);
    expect(statusLine().querySelector('.visually-hidden')?.textContent).toBe('The agent asks you to scan an object.');
    push(backend, 'session-1', { type: 'notice', id: 'n1', code: 'ignored', message: 'An unrelated notice.' });
    await waitFor(() => expect(speakCalls()).toEqual(['Scan the router']));

    await scanWith(user, backend, within(panel).getByRole('button', { name: 'Scan for the agent' }), 'scan-1');
    await user.click(await within(panel).findByRole('button', { name: 'Send to the agent' }));
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

  it('Decline sends agentcall.decline; a photo request is answered from PhotoDialog with its interactionId (no speech synthesis here: nothing breaks)', async () => {
    const { backend, user } = await renderScreen();
    push(backend, 'session-1', { type: 'interaction.requested', interaction: { interactionId: 'ask-1', kind: 'physical.nfc.scan', modality: 'nfc', prompt: 'Scan it', spokenPrompt: 'Scan it' } });
    await user.click(within(screen.getByRole('region', { name: 'The agent asks you to scan an object' })).getByRole('button', { name: 'Decline' }));
    await waitFor(() => expect(backend.callsOf('agentcall.decline')).toEqual([{ sessionKey: 'session-1' }]));
    push(backend, 'session-1', { type: 'interaction.state', interactionId: 'ask-1', state: 'declined' });
    expect(transcript().getByText('You declined.')).toBeTruthy();
    expect(screen.queryByRole('region', { name: /The agent asks/ })).toBeNull();

    push(backend, 'session-1', { type: 'interaction.requested', interaction: { interactionId: 'ask-2', kind: 'physical.photo.capture', modality: 'photo', prompt: 'Show me the label' } });
    const panel = screen.getByRole('region', { name: 'The agent asks you to take a photo' });
    await user.click(within(panel).getByRole('button', { name: 'Take the photo' }));
    await choosePhoto(user);
    await waitFor(() => expect(backend.callsOf('agentcall.sendObservation')).toHaveLength(1));
    expect(backend.callsOf('agentcall.sendObservation')[0]).toEqual({ sessionKey: 'session-1', intent: 'identify', interactionId: 'ask-2', photoId: expect.stringMatching(/^photo/) });
  });

  it('teaching: what will be remembered for which object, Confirm and Cancel send answerProposal, then the state (confirmed, cancelled, invalidated by another object or by the end)', async () => {
    const { backend, user } = await renderScreen();
    const proposal = (id: string, label: string) => ({ proposalId: id, objectRef: routerRef, label, confirmText: 'confirm object', cancelText: 'cancel teaching' });
    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-1', 'Workshop router') });
    const statement = transcript().getByText(/will be remembered for object/);
    expect(statement.textContent).toBe(`“Workshop router” will be remembered for object ${routerShort}`);
    expect(statement.querySelector('code')?.getAttribute('title')).toBe(routerRef);
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

    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-3', 'Old router') }, { type: 'teaching.state', proposalId: 'p-3', state: 'invalidated' });
    expect(transcript().getByText('No longer valid: a different object was scanned.')).toBeTruthy();
    expect(transcript().queryByRole('button', { name: 'Confirm' })).toBeNull();

    push(backend, 'session-1', { type: 'teaching.proposed', proposal: proposal('p-4', 'Last router') });
    expect(transcript().getByRole('button', { name: 'Confirm' })).toBeTruthy();
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'client_end', message: 'You ended the session.' } });
    expect(transcript().getByText('No longer valid: the session ended.')).toBeTruthy();
    expect(transcript().queryByRole('button', { name: 'Confirm' })).toBeNull();
  });

  it('shows an agent failure with its code; a 10 KiB message is shown as the engine bounds it (500 characters)', async () => {
    const { backend } = await renderScreen();
    push(backend, 'session-1', { type: 'run.started', runKey: 'r1' }, { type: 'failure', id: 'f1', runKey: 'r1', code: 'model_unavailable', message: 'A'.repeat(10 * 1024) });
    expect(transcript().getByText('model_unavailable').tagName).toBe('CODE');
    const message = transcript().getByText(/^A+$/);
    expect(message.textContent).toHaveLength(500);
    expect(statusLine().textContent).toBe('The answer stopped with an error.');
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('when the session ends, says why and "Start a new session" opens a fresh one (the old view is gone)', async () => {
    const { backend, user } = await renderScreen();
    push(backend, 'session-1', { type: 'user.text', id: 'u1', turn: 1, text: 'Remember me?' });
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'protocol_error', code: 'sequence_regression', message: 'The agent repeated an old sequence number.' } });
    expect(transcript().getByText('The agent repeated an old sequence number.')).toBeTruthy();
    expect(transcript().getByText('sequence_regression')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'End session' })).toBeNull();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Scan object' }).disabled).toBe(true);
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
    push(backend, 'session-1', { type: 'run.started', runKey: 'r1' }, { type: 'text.delta', runKey: 'r1', text: 'Answered while away' }, { type: 'run.completed', runKey: 'r1' });

    const { user } = await renderScreen(backend, { establish: false });
    expect(transcript().getByText('Before Back')).toBeTruthy();
    expect(transcript().getByText('Answered while away')).toBeTruthy();
    expect(backend.callsOf('agentcall.open')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'End session' }));
    await waitFor(() => expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]));
  });

  it('End session calls agentcall.end; a new session after it ends is a new conversation', async () => {
    const { backend, user, unmount } = await renderScreen();
    await user.click(screen.getByRole('button', { name: 'End session' }));
    await waitFor(() => expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]));
    push(backend, 'session-1', { type: 'ended', reason: { kind: 'client_end', message: 'You ended the session.' } });
    expect(transcript().getByText('The session has ended.')).toBeTruthy();
    expect(document.activeElement).toBe(transcript().getByRole('button', { name: 'Start a new session' }));
    await user.click(transcript().getByRole('button', { name: 'Start a new session' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'End session' })).toBeTruthy());
    // Leaving does not end the new one either.
    unmount();
    expect(backend.callsOf('agentcall.open')).toHaveLength(2);
    expect(backend.callsOf('agentcall.end')).toEqual([{ sessionKey: 'session-1' }]);
  });

  it('sign_in_required: a password field saves the token with agentcall.useToken and connects again', async () => {
    const backend = backendFor();
    backend.failNext('agentcall.open', { code: 'sign_in_required', message: 'AgentDesk demo agent asks for an access token. Paste the token its publisher gave you.' });
    const { user } = await renderScreen(backend, { establish: false });
    const field = await screen.findByLabelText('Access token');
    expect(field.getAttribute('type')).toBe('password');
    expect(screen.getByText(/asks for an access token\. Paste the token/)).toBeTruthy();
    await user.type(field, 'secret-token');
    await user.click(screen.getByRole('button', { name: 'Use token and connect' }));
    await waitFor(() => expect(backend.callsOf('agentcall.useToken')).toEqual([{ agentId: builtInAgentCallDemoId, token: 'secret-token' }]));
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk demo agent' });
    expect(backend.callsOf('agentcall.open')).toHaveLength(2);
    expect(screen.queryByLabelText('Access token')).toBeNull();
  });

  it('incompatible: the message lists why; network_error: Retry opens again', async () => {
    const backend = backendFor();
    backend.failNext('agentcall.open', { code: 'incompatible', message: 'The card declares schemaVersion "0.2"; AgentDesk speaks 0.1.' });
    const { user, onBack } = await renderScreen(backend, { establish: false });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('AgentDesk cannot talk to Demo objects. The card declares schemaVersion "0.2"; AgentDesk speaks 0.1.');
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull();
    await user.click(within(alert.parentElement as HTMLElement).getByRole('button', { name: 'Back' }));
    expect(onBack).toHaveBeenCalled();
    cleanup();

    const offline = backendFor();
    offline.failNext('agentcall.open', { code: 'network_error', message: 'The agent did not answer in time.', retryable: true });
    const second = await renderScreen(offline, { establish: false });
    expect((await screen.findByRole('alert')).textContent).toBe('Could not connect to Demo objects. The agent did not answer in time.');
    await second.user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk demo agent' });
    expect(offline.callsOf('agentcall.open')).toHaveLength(2);
  });
});

describe('client-owned voice on the AgentCall screen (voice.owner "client")', () => {
  it('speaks each stable speech.segment once, in order, through main’s synthesis; segments of a run being cancelled are not said; Read answers aloud turns it off', async () => {
    const { backend, user } = await renderScreen();
    const spoken = () => backend.callsOf('speech.synthesize').map((request) => request.text);
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
    push(backend, 'session-1', { type: 'run.started', runKey: 'r2' }, { type: 'run.cancelling', runKey: 'r2' }, { type: 'speech.segment', runKey: 'r2', segmentId: 'c', text: 'Never said.' });
    push(backend, 'session-1', { type: 'run.completed', runKey: 'r2' });
    expect(spoken()).toEqual(['One.', 'Two.']);
    const toggle = screen.getByRole('button', { name: 'Read answers aloud' });
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    await user.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    push(backend, 'session-1', { type: 'run.started', runKey: 'r3' }, { type: 'speech.segment', runKey: 'r3', segmentId: 'd', text: 'Not read.' }, { type: 'run.completed', runKey: 'r3' });
    expect(spoken()).toEqual(['One.', 'Two.']);
    localStorage.clear();
  });
});
