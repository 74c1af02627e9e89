/**
 * Presents a virtual NFC Forum Type 2 tag to the virtual reader (pcscd must run: scripts/nfc/pcscd.ts).
 *
 *   node --import tsx scripts/nfc/tap.ts [--uid HEX14] [--urn urn:agentcall:object:NAME | --uri URI | --text TEXT]
 *                                        [--reader 0|1] [--hold SECONDS] [--iso14443-4]
 *
 * Without --hold the tag stays until Ctrl+C. Then, in another terminal: `npx agentdesk scan`.
 * The tag's ID is printed here because this is the test tag's own tool; AgentDesk never prints it.
 */
import { parseArgs } from 'node:util';
import { iso14443_4Atr, VirtualCard, vpcdPorts } from '../../test/support/nfc/virtual-card';
import { ndefMessage, randomUid, textRecord, type2Memory, uriRecord } from '../../test/support/nfc/type2-tag';

const { values } = parseArgs({
  options: {
    uid: { type: 'string' },
    urn: { type: 'string' },
    uri: { type: 'string' },
    text: { type: 'string' },
    reader: { type: 'string', default: '0' },
    hold: { type: 'string' },
    'iso14443-4': { type: 'boolean', default: false },
  },
});
const say = (line: string) => process.stdout.write(`${line}\n`);

const uid = values.uid ? Uint8Array.from(Buffer.from(values.uid, 'hex')) : randomUid();
if (uid.length !== 7) {
  say('--uid needs 7 bytes as 14 hex digits');
  process.exit(2);
}
const reference = values.urn ?? values.uri;
const records = reference ? [uriRecord(reference)] : values.text !== undefined ? [textRecord(values.text)] : [];
const port = values.reader === '1' ? vpcdPorts.reader1 : vpcdPorts.reader0;
const card = await VirtualCard.insert(
  values['iso14443-4']
    ? { uid: uid.slice(0, 4), atr: iso14443_4Atr, port }
    : { uid, memory: type2Memory({ uid, ...(records.length ? { ndef: ndefMessage(records) } : {}) }), port },
);
say(
  `tag ${Buffer.from(uid).toString('hex')} on 127.0.0.1:${port}${reference ? ` holding ${reference}` : values.text !== undefined ? ' holding a text record' : ''}`,
);
const hold = values.hold === undefined ? undefined : Number(values.hold) * 1000;
await new Promise<void>((resolve) => {
  if (hold !== undefined) setTimeout(resolve, hold);
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
  void card.closed.then(resolve);
});
await card.remove();
say(`tag removed after ${card.apdus.length} APDUs`);
process.exit(0);
