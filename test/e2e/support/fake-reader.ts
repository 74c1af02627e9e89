import type { Page, WebSocketRoute } from 'playwright-core';
import type { NfcStatus } from '../../../src/shared/nfc/ipc-schemas';
import { eventChannel, methodChannel } from '../../../src/shared/ipc/contract';

/**
 * An NFC reader the page believes in, for screens that only need "a tag was read" (layout checks):
 * the page's IPC socket to the web shell is routed through the test, which answers the page's
 * `hardware.status`, `nfc.arm` and `nfc.cancel` itself (a connected reader, an armed scan), drops the
 * shell's own reader status, and on `tap` sends the page the scan result of its armed scan. Everything
 * else goes to the shell and back unchanged. Main never hears of the tag: sending it is refused there
 * (that path is proven with pcscd and the virtual reader in agentcall.test.ts).
 */
export interface FakeReader {
  /** A tag with this reference is read on the armed scan. */
  tap(objectRef: string): void;
}

const reader = 'Test reader';
const readyNfc: NfcStatus = { state: 'ready', readers: [{ name: reader, connected: true }], service: 'running', scan: { armed: false, kiosk: false } };

/** Call it before the page loads (openApp's `beforeLoad`). */
export async function installFakeReader(page: Page): Promise<FakeReader> {
  let route: WebSocketRoute | undefined;
  let scans = 0;
  let armed: string | undefined;
  const toPage = (frame: unknown) => route?.send(JSON.stringify(frame));
  await page.routeWebSocket(/\/ipc$/, (ws) => {
    route = ws;
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const frame = typeof message === 'string' ? (JSON.parse(message) as { t?: string; id?: number; channel?: string }) : undefined;
      if (frame?.t === 'call') {
        if (frame.channel === methodChannel('hardware.status')) return toPage({ t: 'result', id: frame.id, result: { ok: true, value: { nfc: readyNfc } } });
        if (frame.channel === methodChannel('nfc.arm')) {
          scans += 1;
          armed = `fake-scan-${scans}`;
          return toPage({ t: 'result', id: frame.id, result: { ok: true, value: { scanId: armed, expiresAt: new Date(Date.now() + 60_000).toISOString() } } });
        }
        if (frame.channel === methodChannel('nfc.cancel')) return toPage({ t: 'result', id: frame.id, result: { ok: true, value: { cancelled: true } } });
      }
      server.send(message);
    });
    server.onMessage((message) => {
      if (typeof message === 'string' && message.includes(eventChannel('hardware.changed'))) return;
      ws.send(message);
    });
  });
  return {
    tap: (objectRef) =>
      toPage({
        t: 'event',
        channel: eventChannel('nfc.scanResult'),
        payload: {
          scanId: armed,
          outcome: 'observation',
          reader,
          object: { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: '0'.repeat(64) },
        },
      }),
  };
}
