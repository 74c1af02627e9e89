/**
 * A private pcscd with the virtual readers, for trying the NFC code by hand and for CI.
 *
 *   node --import tsx scripts/nfc/pcscd.ts run      pcscd in the foreground until Ctrl+C
 *   node --import tsx scripts/nfc/pcscd.ts start    start it in the background, return when ready
 *   node --import tsx scripts/nfc/pcscd.ts stop     stop the running pcscd (SIGTERM, wait)
 *   node --import tsx scripts/nfc/pcscd.ts status
 *
 * Needs root (pcscd creates /run/pcscd) and `apt-get install -y pcscd libpcsclite-dev vsmartcard-vpcd`.
 * On systemd hosts it stops pcscd.socket and pcscd.service first (there is one pcscd per mount
 * namespace); `run` starts pcscd.socket again when it ends. Then present a tag with scripts/nfc/tap.ts.
 */
import { pcscdAnswers, pcscdPid, pcscdUnavailableReason, startPcscd, stopPcscdByPidFile, tcpListening } from '../../test/support/nfc/pcscd';
import { vpcdPorts, vpcdReaderNames } from '../../test/support/nfc/virtual-card';

const command = process.argv[2];
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  switch (command) {
    case 'run':
    case 'start': {
      const reason = pcscdUnavailableReason();
      if (reason) {
        say(`cannot start pcscd: ${reason}`);
        return 1;
      }
      const pcscd = await startPcscd({ detached: command === 'start' });
      say(
        `pcscd ${pcscd.pid} ready in ${pcscd.startMs.toFixed(0)} ms: readers "${vpcdReaderNames.reader0}" (127.0.0.1:${vpcdPorts.reader0}) and "${vpcdReaderNames.reader1}" (127.0.0.1:${vpcdPorts.reader1})`,
      );
      if (command === 'start') return 0;
      say('Ctrl+C stops it.');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        void pcscd.exited.then(resolve);
      });
      await pcscd.stop();
      say('pcscd stopped');
      return 0;
    }
    case 'stop':
      say((await stopPcscdByPidFile()) ? 'pcscd stopped' : 'no pcscd was running');
      return 0;
    case 'status': {
      const pid = pcscdPid();
      const answers = await pcscdAnswers();
      say(
        `pcscd: ${pid ? `pid ${pid}` : 'not running'}, socket ${answers ? 'answers' : 'does not answer'}, vpcd ports ${tcpListening(vpcdPorts.reader0) ? 'listening' : 'closed'}`,
      );
      return pid && answers ? 0 : 1;
    }
    default:
      say('usage: node --import tsx scripts/nfc/pcscd.ts run|start|stop|status');
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`pcscd script failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
