import type { HardwareStatus } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import type { HandlerTable } from '../ipc/handler-table';
import type { NfcService } from './nfc-service';

/**
 * `nfc.*` and `hardware.status` (today the NFC reader is the only hardware with a status). Without
 * an NFC service (a run started with `nfc: 'off'`) every `nfc.*` call is `not_allowed` and the
 * status says NFC is unavailable.
 */
export function nfcHandlers({ nfc }: { nfc: NfcService | undefined }): HandlerTable<'nfc' | 'hardware'> {
  const nfcOff = () => new ServiceError('not_allowed', 'NFC is turned off in this run of AgentDesk.');
  const hardwareStatus = (): HardwareStatus => ({
    nfc: nfc ? nfc.status() : { state: 'unavailable', readers: [], detail: 'NFC is turned off in this run of AgentDesk.' },
  });
  return {
    'hardware.status': () => hardwareStatus(),
    'nfc.arm': async ({ timeoutMs }) => {
      if (!nfc) throw nfcOff();
      return nfc.arm(timeoutMs === undefined ? {} : { timeoutMs });
    },
    'nfc.cancel': ({ scanId }) => {
      if (!nfc) throw nfcOff();
      return nfc.cancel(scanId);
    },
    'nfc.kiosk': ({ active }) => {
      if (!nfc) throw nfcOff();
      nfc.setKioskActive(active);
      return { armed: nfc.status().scan?.armed ?? false };
    },
  };
}
