import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok } from '../../../src/shared/base/errors';
import { defaultNfcSettings, nfcScanResultSchema, type NfcScanResult, type NfcStatus } from '../../../src/shared/nfc/ipc-schemas';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { resetTonesForTests, toneNotes } from '../../../src/renderer/screens/nfc/feedback-tones';
import { ScanControl, type ScanControlProps } from '../../../src/renderer/screens/nfc/ScanControl';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

const reader = 'ACS ACR122U PICC Interface 00 00';
const readyStatus: NfcStatus = { state: 'ready', readers: [{ name: reader, connected: true }], service: 'running', scan: { armed: false, kiosk: false } };

function observation(scanId: string, objectRef = `urn:agentcall:local-tag:${'ab'.repeat(32)}`): Extract<NfcScanResult, { outcome: 'observation' }> {
  // Checked against the real schema, so the fixture is what main could send.
  return nfcScanResultSchema.parse({
    scanId,
    outcome: 'observation',
    object: { objectRef, carrier: 'localTag', assurance: 'unverifiedTag', payloadSha256: 'cd'.repeat(32) },
    reader,
  }) as Extract<NfcScanResult, { outcome: 'observation' }>;
}

/** A WebAudio stand-in that records the frequency of every note played. */
let played: number[];
class FakeAudioContext {
  state = 'running';
  currentTime = 0;
  destination = {};
  resume() {
    return Promise.resolve();
  }
  createOscillator() {
    return {
      type: 'sine',
      frequency: { setValueAtTime: (frequency: number) => void played.push(frequency) },
      connect: () => undefined,
      start: () => undefined,
      stop: () => undefined,
    };
  }
  createGain() {
    return { gain: { setValueAtTime: () => undefined, linearRampToValueAtTime: () => undefined }, connect: () => undefined };
  }
}
const frequencies = (kind: 'success' | 'failure') => toneNotes[kind].map((note) => note.frequency);

beforeEach(() => {
  played = [];
  resetTonesForTests();
  vi.stubGlobal('AudioContext', FakeAudioContext);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  resetTonesForTests();
  document.documentElement.lang = '';
});

function renderControl(options: { backend?: FakeBackend; props?: Partial<ScanControlProps> } = {}) {
  const backend = options.backend ?? createFakeBackend({ hardware: { nfc: readyStatus } });
  const onObservation = vi.fn();
  const user = userEvent.setup();
  const view = render(
    <I18nProvider setting="en">
      <ScanControl api={backend.api} onObservation={onObservation} {...options.props} />
    </I18nProvider>,
  );
  return { backend, onObservation, user, ...view };
}

const statusText = () => screen.getByRole('status').textContent ?? '';

async function armScan(user: ReturnType<typeof userEvent.setup>) {
  const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
  await waitFor(() => expect(scan.disabled).toBe(false));
  await user.click(scan);
  return screen.findByRole('button', { name: 'Cancel scan' });
}

describe('the NFC scan control', () => {
  it('arms on click, shows the prompt and the time left, and reports an observation with a tone and an announcement', async () => {
    const { backend, user, onObservation } = renderControl({ props: { prompt: 'Scan the parcel you are returning.' } });
    expect(screen.getByText('Scan the parcel you are returning.')).toBeTruthy();
    const cancel = await armScan(user);

    expect(backend.callsOf('nfc.arm')).toEqual([{}]);
    expect(statusText()).toBe('Hold the tag to the reader.');
    // A countdown from the scan's 30 s (how much of it is left depends on how busy the machine is).
    const left = /^Time left: 00:(\d\d)$/.exec(screen.getByRole('timer').textContent ?? '');
    expect(Number(left?.[1])).toBeGreaterThan(0);
    expect(Number(left?.[1])).toBeLessThanOrEqual(30);
    // The Scan button was replaced: the focus moved to Cancel.
    expect(document.activeElement).toBe(cancel);

    const result = observation('scan-1');
    act(() => backend.emit('nfc.scanResult', result));

    expect(onObservation).toHaveBeenCalledTimes(1);
    expect(onObservation).toHaveBeenCalledWith(result);
    expect(statusText()).toContain('Tag read.');
    expect(played).toEqual(frequencies('success'));
    const scan = screen.getByRole('button', { name: 'Scan object' });
    expect(document.activeElement).toBe(scan);
    expect(screen.queryByRole('timer')).toBeNull();
  });

  it('the countdown never shows more than the scan’s time, however long the control sat idle before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const shown: string[] = [];
    const observer = new MutationObserver(() => {
      const text = document.querySelector('[role="timer"]')?.textContent;
      if (text) shown.push(text);
    });
    try {
      const { user } = renderControl();
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      vi.setSystemTime(Date.now() + 90_000);
      await armScan(user);
      await waitFor(() => expect(shown.length).toBeGreaterThan(0));
      expect(
        shown.every((text) => /^Time left: 00:(30|[0-2]\d)$/.test(text)),
        shown.join(' | '),
      ).toBe(true);
    } finally {
      observer.disconnect();
      vi.useRealTimers();
    }
  });

  it('stays armed after a failed read that can be retried, with a distinct failure tone and the reason', async () => {
    const { backend, user, onObservation } = renderControl();
    await armScan(user);
    act(() => backend.emit('nfc.scanResult', { scanId: 'scan-1', outcome: 'failed', reason: 'removed', message: 'The card was removed.', retry: true }));

    expect(statusText()).toContain('The tag was lifted too soon. Hold the tag to the reader again.');
    expect(screen.getByRole('button', { name: 'Cancel scan' })).toBeTruthy();
    expect(screen.getByRole('timer')).toBeTruthy();
    expect(played).toEqual(frequencies('failure'));
    expect(frequencies('failure')).not.toEqual(frequencies('success'));

    // The next tap still counts.
    act(() => backend.emit('nfc.scanResult', observation('scan-1')));
    expect(onObservation).toHaveBeenCalledTimes(1);
    expect(statusText()).toContain('Tag read.');
  });

  it('returns to idle after a failure that ends the scan, showing main’s detail', async () => {
    const { backend, user } = renderControl();
    await armScan(user);
    act(() => backend.emit('nfc.scanResult', { scanId: 'scan-1', outcome: 'failed', reason: 'noDeviceKey', message: 'The keychain is locked.', retry: false }));
    expect(statusText()).toContain('AgentDesk’s NFC device key is not available. The keychain is locked.');
    expect(screen.getByRole('button', { name: 'Scan object' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel scan' })).toBeNull();
  });

  it('returns to idle on timeout and says so', async () => {
    const { backend, user, onObservation } = renderControl();
    await armScan(user);
    act(() => backend.emit('nfc.scanResult', { scanId: 'scan-1', outcome: 'timeout' }));
    expect(statusText()).toBe('No tag was read in time.');
    expect(screen.getByRole('button', { name: 'Scan object' })).toBeTruthy();
    expect(onObservation).not.toHaveBeenCalled();
  });

  it('ignores results of other scans', async () => {
    const { backend, user, onObservation } = renderControl();
    await armScan(user);
    act(() => backend.emit('nfc.scanResult', observation('someone-else')));
    act(() => backend.emit('nfc.scanResult', { scanId: 'someone-else', outcome: 'timeout' }));
    expect(onObservation).not.toHaveBeenCalled();
    expect(statusText()).toBe('Hold the tag to the reader.');
    expect(played).toEqual([]);
  });

  it('cancels through nfc.cancel with Cancel and with Escape, and cancels an armed scan when it goes away', async () => {
    const { backend, user, unmount } = renderControl();
    await armScan(user);
    await user.click(screen.getByRole('button', { name: 'Cancel scan' }));
    expect(backend.callsOf('nfc.cancel')).toEqual([{ scanId: 'scan-1' }]);
    expect(statusText()).toBe('Scan cancelled.');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Scan object' }));

    backend.handle('nfc.arm', () => ok({ scanId: 'scan-2', expiresAt: new Date(Date.now() + 30_000).toISOString() }));
    await armScan(user);
    await user.keyboard('{Escape}');
    expect(backend.callsOf('nfc.cancel')).toEqual([{ scanId: 'scan-1' }, { scanId: 'scan-2' }]);

    backend.handle('nfc.arm', () => ok({ scanId: 'scan-3', expiresAt: new Date(Date.now() + 30_000).toISOString() }));
    await armScan(user);
    unmount();
    await waitFor(() => expect(backend.callsOf('nfc.cancel')).toEqual([{ scanId: 'scan-1' }, { scanId: 'scan-2' }, { scanId: 'scan-3' }]));
  });

  it('shows why a scan could not be armed', async () => {
    const backend = createFakeBackend({ hardware: { nfc: readyStatus } });
    backend.failNext('nfc.arm', { code: 'not_allowed', message: 'The NFC device key could not be loaded (the keychain is locked).' });
    const { user } = renderControl({ backend });
    const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
    await waitFor(() => expect(scan.disabled).toBe(false));
    await user.click(scan);
    await waitFor(() => expect(statusText()).toContain('The NFC device key could not be loaded (the keychain is locked).'));
    expect(screen.queryByRole('button', { name: 'Cancel scan' })).toBeNull();
  });

  it('is disabled with the reason while no reader is connected or the smart-card service is missing', async () => {
    const backend = createFakeBackend({ hardware: { nfc: { state: 'ready', readers: [{ name: reader, connected: false }], service: 'running' } } });
    const { user } = renderControl({ backend });
    const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
    await waitFor(() => expect(screen.getByText('Connect an NFC reader to scan.')).toBeTruthy());
    expect(scan.disabled).toBe(true);
    expect(scan.getAttribute('aria-describedby')).toBe(screen.getByText('Connect an NFC reader to scan.').id);
    await user.click(scan);
    expect(backend.callsOf('nfc.arm')).toEqual([]);

    act(() => backend.emit('hardware.changed', { nfc: { state: 'unavailable', readers: [], service: 'missing', fix: 'Start pcscd.' } }));
    expect(screen.getByText('Scanning needs the smart-card service, which is not running.')).toBeTruthy();
    expect(scan.disabled).toBe(true);

    act(() => backend.emit('hardware.changed', { nfc: readyStatus }));
    expect(scan.disabled).toBe(false);
    expect(screen.queryByText('Connect an NFC reader to scan.')).toBeNull();
  });

  it('is disabled when the host says so', async () => {
    renderControl({ props: { disabled: true } });
    const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
    await waitFor(() => expect(screen.queryByText('Checking the NFC reader…')).toBeNull());
    expect(scan.disabled).toBe(true);
  });

  it('arms by itself with autoArm, and stays quietly idle when main wants a click first', async () => {
    const { backend } = renderControl({ props: { autoArm: true } });
    await screen.findByRole('button', { name: 'Cancel scan' });
    expect(backend.callsOf('nfc.arm')).toEqual([{}]);
    expect(statusText()).toBe('Hold the tag to the reader.');
    cleanup();

    const refusing = createFakeBackend({ hardware: { nfc: readyStatus } });
    refusing.handle('nfc.arm', () => fail('no_user_gesture', 'A scan starts only when you click Scan.'));
    renderControl({ backend: refusing, props: { autoArm: true, label: 'Scan the parcel' } });
    await waitFor(() => expect(refusing.callsOf('nfc.arm')).toEqual([{}]));
    const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan the parcel' });
    expect(scan.disabled).toBe(false);
    expect(statusText()).toBe('');
  });

  describe('kiosk scanning', () => {
    function kioskBackend(kioskScan: boolean) {
      return createFakeBackend({
        hardware: { nfc: readyStatus },
        settings: { ...createFakeBackend().state.settings, nfc: { ...defaultNfcSettings, kioskScan } },
      });
    }

    it('reports active while the window has the focus and the indicator is shown, inactive on blur and when it goes away', async () => {
      vi.spyOn(document, 'hasFocus').mockReturnValue(true);
      const backend = kioskBackend(true);
      const { onObservation, unmount } = renderControl({ backend });
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }]));
      expect(screen.getByText('Scanning… Hold a tag to the reader at any time.')).toBeTruthy();
      expect(screen.queryByRole('button', { name: 'Scan object' })).toBeNull();

      // Main armed the kiosk scan: its taps are this control's.
      act(() => backend.emit('hardware.changed', { nfc: { ...readyStatus, scan: { armed: true, scanId: 'kiosk-1', kiosk: true } } }));
      act(() => backend.emit('nfc.scanResult', observation('kiosk-1')));
      act(() => backend.emit('nfc.scanResult', observation('kiosk-1', 'urn:agentcall:object:parcel-42')));
      expect(onObservation).toHaveBeenCalledTimes(2);
      expect(statusText()).toContain('Tag read.');

      act(() => void window.dispatchEvent(new Event('blur')));
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }]));
      expect(screen.getByText('Scanning is paused while AgentDesk is not in front.')).toBeTruthy();

      act(() => void window.dispatchEvent(new Event('focus')));
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }, { active: true }]));

      unmount();
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }, { active: true }, { active: false }]));
    });

    it('reports inactive while the indicator is scrolled out of view or the page is hidden', async () => {
      vi.spyOn(document, 'hasFocus').mockReturnValue(true);
      const observers: { callback: IntersectionObserverCallback; target?: Element }[] = [];
      vi.stubGlobal(
        'IntersectionObserver',
        class {
          private readonly entry: { callback: IntersectionObserverCallback; target?: Element };
          constructor(callback: IntersectionObserverCallback) {
            this.entry = { callback };
            observers.push(this.entry);
          }
          observe(target: Element) {
            this.entry.target = target;
          }
          disconnect() {}
        },
      );
      const backend = kioskBackend(true);
      renderControl({ backend });
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }]));
      const observed = observers.at(-1)!;
      expect(observed.target?.textContent).toContain('Scanning…');

      const intersect = (isIntersecting: boolean) =>
        act(() => observed.callback([{ isIntersecting, target: observed.target! } as IntersectionObserverEntry], {} as IntersectionObserver));
      intersect(false);
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }]));
      intersect(true);
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toHaveLength(3));

      vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
      act(() => void document.dispatchEvent(new Event('visibilitychange')));
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }, { active: true }, { active: false }]));
    });

    it('reports inactive while no reader is connected, and active again when one is', async () => {
      vi.spyOn(document, 'hasFocus').mockReturnValue(true);
      const backend = kioskBackend(true);
      renderControl({ backend });
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }]));
      act(() => backend.emit('hardware.changed', { nfc: { ...readyStatus, readers: [{ name: reader, connected: false }] } }));
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }]));
      expect(screen.getByText('Kiosk scanning is paused.')).toBeTruthy();
      expect(screen.getByText('Connect an NFC reader to scan.')).toBeTruthy();
      act(() => backend.emit('hardware.changed', { nfc: readyStatus }));
      await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toEqual([{ active: true }, { active: false }, { active: true }]));
    });

    it('reports nothing while the kiosk setting is off', async () => {
      vi.spyOn(document, 'hasFocus').mockReturnValue(true);
      const backend = kioskBackend(false);
      renderControl({ backend });
      const scan = await screen.findByRole<HTMLButtonElement>('button', { name: 'Scan object' });
      await waitFor(() => expect(scan.disabled).toBe(false));
      act(() => void window.dispatchEvent(new Event('blur')));
      act(() => void window.dispatchEvent(new Event('focus')));
      await waitFor(() => expect(backend.callsOf('settings.get').length).toBeGreaterThanOrEqual(2));
      expect(backend.callsOf('nfc.kiosk')).toEqual([]);
      expect(screen.queryByText(/Scanning/)).toBeNull();
    });
  });
});

describe('NFC on the hardware strip', () => {
  const strip = () => within(screen.getByRole('region', { name: 'Hardware' }));
  /** The details are in the sidebar's hardware popover: its button opens it. */
  const openStrip = async () => fireEvent.click(await screen.findByRole('button', { name: /^Hardware/ }));

  it('shows the missing smart-card service with its exact fix, the service state and the last error', async () => {
    const fix =
      'Install and start the smart-card service: `sudo apt-get install -y pcscd`, then `sudo systemctl enable --now pcscd.socket` (without systemd: `sudo pcscd`).';
    const backend = createFakeBackend({
      hardware: {
        nfc: {
          state: 'unavailable',
          readers: [{ name: reader, connected: false }],
          service: 'missing',
          detail: 'The smart-card service (pcscd) is not installed.',
          fix,
          lastError: { message: 'The smart-card service stopped.', at: '2025-03-04T10:20:00.000Z' },
        },
      },
    });
    await renderApp({ backend });
    await openStrip();
    await waitFor(() => expect(strip().getByText('The smart-card service is not running.')).toBeTruthy());
    const code = strip().getByText(fix);
    expect(code.tagName).toBe('CODE');
    expect(strip().getByText('The smart-card service (pcscd) is not installed.')).toBeTruthy();
    expect(strip().getByText(`${reader} – not connected`)).toBeTruthy();
    expect(strip().getByText('The smart-card service stopped.').parentElement?.textContent).toMatch(
      /^Last error \(.*2025.*\): The smart-card service stopped\.$/,
    );
    expect(strip().getByRole<HTMLButtonElement>('button', { name: 'Scan object' }).disabled).toBe(true);

    // A detail that only repeats the service line is not shown twice.
    act(() =>
      backend.emit('hardware.changed', {
        nfc: { state: 'unavailable', readers: [], service: 'missing', detail: 'The smart-card service is not running.', fix },
      }),
    );
    expect(strip().getAllByText('The smart-card service is not running.')).toHaveLength(1);

    act(() =>
      backend.emit('hardware.changed', {
        nfc: {
          state: 'unavailable',
          readers: [],
          service: 'restarting',
          detail: 'The NFC reader service stopped unexpectedly (it exited with code 1); restarting.',
        },
      }),
    );
    expect(strip().getByText('The reader service stopped and is being restarted.')).toBeTruthy();
    expect(strip().queryByText(fix)).toBeNull();
  });

  it('tests a reader: Scan object shows the resulting reference and carrier', async () => {
    const backend = createFakeBackend({ hardware: { nfc: readyStatus } });
    const { user } = await renderApp({ backend });
    await openStrip();
    await waitFor(() => expect(strip().getByText(`${reader} – connected`)).toBeTruthy());
    const scan = strip().getByRole<HTMLButtonElement>('button', { name: 'Scan object' });
    await user.click(scan);
    await strip().findByText('Hold the tag to the reader.');
    act(() => backend.emit('nfc.scanResult', observation('scan-1', 'urn:agentcall:object:parcel-42')));

    // Shown with a label, the whole reference as the tooltip (#15).
    const code = await strip().findByText('object parcel-42');
    expect(code.tagName).toBe('CODE');
    expect(code.getAttribute('title')).toBe('urn:agentcall:object:parcel-42');
    expect(strip().getByText('Alias of this tag, known only to this computer (localTag)')).toBeTruthy();
    expect(strip().getAllByText(reader).length).toBeGreaterThan(0);
    // One subscription to the reader status on the home screen: the control uses the strip's.
    expect(backend.listenerCount('hardware.changed')).toBe(1);
  });
});

describe('NFC settings', () => {
  async function openSettings(user: Awaited<ReturnType<typeof renderApp>>['user']) {
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    return screen.findByRole('group', { name: 'NFC scanning' });
  }

  it('saves the debounce time, kiosk scanning and reader feedback, each as an nfc patch', async () => {
    const { user, backend } = await renderApp();
    const group = within(await openSettings(user));
    const seconds = group.getByRole<HTMLInputElement>('textbox', { name: 'Ignore the same tag again for (seconds)' });
    expect(seconds.value).toBe('2');

    await user.clear(seconds);
    await user.type(seconds, '12{Enter}');
    expect(await group.findByText('Enter a number of seconds from 0 to 10.')).toBeTruthy();
    expect(seconds.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('settings.update')).toEqual([]);

    await user.clear(seconds);
    await user.type(seconds, '0.5');
    await user.tab();
    await waitFor(() => expect(backend.state.settings.nfc?.debounceMs).toBe(500));
    expect(seconds.getAttribute('aria-invalid')).toBeNull();

    const kiosk = group.getByRole<HTMLInputElement>('checkbox', { name: 'Kiosk scanning: keep scanning on while AgentDesk is in front' });
    expect(kiosk.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(kiosk.getAttribute('aria-describedby') ?? '')?.textContent).toContain('window has the focus');
    await user.click(kiosk);
    await waitFor(() => expect(backend.state.settings.nfc?.kioskScan).toBe(true));
    await user.click(group.getByRole('checkbox', { name: 'Reader light and beep (ACR122U and ACR1252U)' }));
    await waitFor(() => expect(backend.state.settings.nfc?.readerFeedback).toBe(true));

    expect(backend.callsOf('settings.update')).toEqual([
      { patch: { nfc: { debounceMs: 500 } } },
      { patch: { nfc: { kioskScan: true } } },
      { patch: { nfc: { readerFeedback: true } } },
    ]);
    expect(backend.state.settings.nfc).toEqual({ debounceMs: 500, kioskScan: true, readerFeedback: true });
    await waitFor(() => expect(group.getByRole('status').textContent).toBe('Saved'));
  });

  it('shows the defaults for a settings file without NFC settings', async () => {
    const backend = createFakeBackend();
    const { nfc: _nfc, ...withoutNfc } = backend.state.settings;
    backend.state.settings = withoutNfc;
    const { user } = await renderApp({ backend });
    const group = within(await openSettings(user));
    expect(group.getByRole<HTMLInputElement>('textbox', { name: 'Ignore the same tag again for (seconds)' }).value).toBe('2');
    expect(group.getByRole<HTMLInputElement>('checkbox', { name: /Kiosk scanning/ }).checked).toBe(false);
    await user.click(group.getByRole('checkbox', { name: /Reader light and beep/ }));
    await waitFor(() => expect(backend.state.settings.nfc).toEqual({ ...defaultNfcSettings, readerFeedback: true }));
  });

  it('accepts a decimal comma in Czech', async () => {
    const backend = createFakeBackend();
    backend.state.settings = { ...backend.state.settings, language: 'cs' };
    const user = userEvent.setup();
    const { App } = await import('../../../src/renderer/App');
    render(<App api={backend.api} />);
    await user.click(await screen.findByRole('button', { name: 'Nastavení' }));
    const group = within(await screen.findByRole('group', { name: 'Načítání NFC' }));
    const seconds = group.getByRole<HTMLInputElement>('textbox', { name: 'Stejný štítek znovu ignorovat po dobu (sekundy)' });
    expect(seconds.value).toBe('2');
    await user.clear(seconds);
    await user.type(seconds, '1,5');
    fireEvent.blur(seconds);
    await waitFor(() => expect(backend.state.settings.nfc?.debounceMs).toBe(1500));
    expect(seconds.value).toBe('1,5');
  });
});
