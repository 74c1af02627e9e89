import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { intentSchema, type Intent, type Modality } from '../../shared/agentcall/protocol';
import type { SessionUpdate, SessionView } from '../../shared/agentcall/session-view';
import { ServiceError } from '../../shared/base/errors';
import type { NfcObject, NfcScanResult } from '../../shared/nfc/ipc-schemas';
import { openAgentCallOverChannel, openAgentCallSession, type AgentCallDriver } from '../agentcall/session-driver';
import { DeviceKeyError, deviceKeyFileEnv, loadDeviceKey, type DeviceKey } from '../nfc/device-key';
import { NfcService } from '../nfc/nfc-service';
import { linuxDistroIds } from '../nfc/os-release';
import { ReaderSupervisor } from '../nfc/reader-supervisor';
import { PhotoError } from '../photo/photo-errors';
import { photoLimits, processImage } from '../photo/photo-pipeline';
import { createLogger, type Logger } from '../platform/logger';
import { openSecretStore } from '../secrets/secret-store';
import type { CliAgent } from './agentcall-connect';
import { settledStatus, type NfcCliDeps } from './nfc';
import { exitCodes, processIo, unsafeForTerminal, type Io } from './output';
import { markWebRtcLoaded } from './webrtc-loaded';

/**
 * `agentdesk chat <address>` for an AgentCall agent: a terminal text session over the agent's
 * AG-UI WebSocket, or for an agentcall-webrtc-0.1 card on the agentcall.events data channel of a real
 * call without audio (src/main/agentcall/session-driver.ts; voice needs the app). Agent text streams as it arrives; a
 * `failure` prints with its code; a scan or photo request prints as a prompt line; a teaching
 * proposal prints what will be remembered with the two commands that answer it.
 *
 * Commands: /scan [intent] (one NFC tap, when a reader is present), /photo <file> [intent] (an image
 * file through the photo pipeline), /decline (refuse the pending request), /cancel (stop the
 * agent's answer), /confirm and /cancel-teaching (send the shown proposal's texts), /quit (or end
 * of input) sends session.end. Each turn waits for the agent's answer (bounded) before the next
 * line is read; Ctrl+C stops an answer, or leaves when there is none.
 *
 * Modalities offered in session.start: photo always (files); nfc only when the smart-card service
 * runs with a reader connected and the device key loads (checked for a few seconds at most).
 */

export type AgentCallCliAgent = Extract<CliAgent, { protocol: 'agentcall' }>;

export interface AgentCallChatOptions {
  token?: string | undefined;
  keyFile?: string | undefined;
}

export interface AgentCallChatDeps {
  /** The NFC reader stack (launcher, keychain, env), or false to offer no NFC (tests, or no readers). */
  nfc?: NfcCliDeps | false;
  /** How long to look for a reader at startup (default 3 s). */
  nfcProbeMs?: number;
  /** How long `/scan` waits for a tap (default 30 s). */
  scanTimeoutMs?: number;
  /** How long a WebRTC call's channel may take to open once the agent answered (default 10 s). */
  callTimeoutMs?: number;
  /** How long a turn waits for the agent's answer before the next line is read (default 60 s). */
  turnTimeoutMs?: number;
  log?: Logger;
  /** Ctrl+C stops the answer or leaves (default true; tests turn it off). */
  handleSigint?: boolean;
}

type ChatIo = Io & { write?: (text: string) => void };

const help = [
  'Type a message and press Enter. Commands:',
  '  /scan [intent]          tap an NFC tag (answers a pending scan request)',
  '  /photo <file> [intent]  send an image file as a photo (answers a pending photo request)',
  '  /confirm                confirm the shown teaching proposal',
  '  /cancel-teaching        cancel the shown teaching proposal',
  '  /decline                decline the pending scan or photo request',
  '  /cancel                 stop the agent’s current answer',
  '  /quit                   end the session',
  '  //text                  send text that begins with /',
  '  intent: identify (default), remember, inspect or act',
].join('\n');

export async function agentCallChat(
  agent: AgentCallCliAgent,
  options: AgentCallChatOptions,
  io: ChatIo,
  input: NodeJS.ReadableStream = process.stdin,
  deps: AgentCallChatDeps = {},
): Promise<number> {
  const { card } = agent;
  const log = deps.log ?? createLogger({ level: 'warn' });
  if (card.bearerRequired && options.token === undefined) {
    io.err(`${card.name} requires a bearer token: pass --token T (or set AGENTDESK_TOKEN).`);
    return exitCodes.usage;
  }
  const write = io.write ?? (io === processIo ? (text: string) => void process.stdout.write(text) : undefined);

  const nfc = card.accepted.includes('nfc') && deps.nfc !== false ? await startNfc(deps.nfc ?? {}, options.keyFile, deps.nfcProbeMs ?? 3_000, log) : undefined;
  const nfcUnavailable = !card.accepted.includes('nfc')
    ? `${card.name} does not accept NFC scans.`
    : nfc === undefined
      ? 'NFC is turned off for this chat.'
      : nfc.ready
        ? undefined
        : `NFC is not available here: ${nfc.why}`;
  const clientModalities: Modality[] = ['photo', ...(nfcUnavailable === undefined ? (['nfc'] as const) : [])];

  let session: { driver: AgentCallDriver; hangUp?: () => void };
  try {
    session =
      card.transport === 'webrtc'
        ? await openCall(card, agent.policy, options.token, clientModalities, deps.callTimeoutMs ?? 10_000, log)
        : {
            driver: await openAgentCallSession({
              card,
              policy: agent.policy,
              clientModalities,
              log,
              ...(options.token === undefined ? {} : { bearerToken: options.token }),
            }),
          };
  } catch (error) {
    await nfc?.service?.dispose();
    if (error instanceof ServiceError) {
      io.err(`[${error.code}] ${error.message}`);
      return error.code === 'network_error' || error.code === 'insecure_scheme' ? exitCodes.usage : exitCodes.rejected;
    }
    throw error;
  }
  const { driver } = session;

  const printer = new Printer(io, write);
  driver.onUpdate((update, view) => printer.print(update, view));
  const usable = driver.usableModalities.length > 0 ? driver.usableModalities.join(' and ') : 'text only';
  if (card.transport === 'webrtc') {
    io.out(
      `Connected to ${card.name} (AgentCall call over WebRTC, ${new URL(card.aguiUrl).host}); this session can send ${usable}. Type a message; /help lists commands; /quit leaves.`,
    );
    io.out(
      '(Voice needs the AgentDesk app: here the call carries text on its agentcall.events channel; no microphone is sent and the agent’s speech is not played.)',
    );
  } else {
    io.out(
      `Connected to ${card.name} (AgentCall, ${new URL(card.wsUrl).host}); this session can send ${usable}. Type a message; /help lists commands; /quit leaves.`,
    );
  }
  if (nfcUnavailable && card.accepted.includes('nfc')) io.out(`(${nfcUnavailable})`);

  const turnTimeoutMs = deps.turnTimeoutMs ?? 60_000;
  let onSigint: (() => void) | undefined;
  if (deps.handleSigint ?? true) {
    onSigint = () => {
      if (driver.view.runActive) tryCommand(io, () => driver.cancelRun());
      else void driver.end();
    };
    process.on('SIGINT', onSigint);
  }

  const lines = createInterface({ input, terminal: false });
  const ended = driver.ended().then(() => 'ended' as const);
  try {
    const iterator = lines[Symbol.asyncIterator]();
    for (;;) {
      const next = await Promise.race([iterator.next(), ended]);
      if (next === 'ended' || next.done) break;
      const line = next.value.trim();
      if (line === '') continue;
      if (line === '/quit') break;
      const turn = await handleLine(line, { driver, io, nfc, nfcUnavailable, scanTimeoutMs: deps.scanTimeoutMs ?? 30_000 });
      if (turn) await answered(driver, turnTimeoutMs, io);
      printer.flush();
    }
  } finally {
    lines.close();
    if (onSigint) process.removeListener('SIGINT', onSigint);
    await driver.end();
    session.hangUp?.();
    await nfc?.service?.dispose();
  }
  const reason = driver.view.endReason;
  return reason === undefined || reason.kind === 'client_end' ? exitCodes.ok : exitCodes.rejected;
}

/**
 * An agentcall-webrtc-0.1 card: a real call from a node-datachannel peer in this process (voice-peer.ts,
 * loaded only now), offering the one sendrecv Opus track the profile requires (nothing is sent on it)
 * and the agentcall.events channel; the same session then runs on that channel. The caller ends the
 * session, then hangs up. Failures are ServiceErrors, as openAgentCallSession's.
 */
async function openCall(
  card: AgentCallCliAgent['card'],
  policy: AgentCallCliAgent['policy'],
  token: string | undefined,
  clientModalities: Modality[],
  timeoutMs: number,
  log: Logger,
) {
  if (card.transport !== 'webrtc') throw new Error('not a WebRTC card');
  const peer = await import('./voice-peer').catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  if (peer instanceof Error)
    throw new ServiceError('incompatible', `${card.name} takes WebRTC calls, and WebRTC (node-datachannel) cannot be loaded on this machine: ${peer.message}`);
  markWebRtcLoaded();
  const sessionId = `s-${randomUUID()}`;
  let call: Awaited<ReturnType<typeof peer.callAgentCallAgent>>;
  try {
    call = await peer.callAgentCallAgent({ card, policy, token, sessionId, timeoutMs, log, name: 'agentdesk-chat' });
  } catch (error) {
    if (!(error instanceof peer.CallFailed)) throw error;
    const network = error.code === 'network' || error.code === 'insecure_scheme';
    const code = network
      ? error.code === 'insecure_scheme'
        ? 'insecure_scheme'
        : 'network_error'
      : error.code === 'sign_in_required' || error.code === 'not_allowed'
        ? error.code
        : 'protocol_error';
    throw new ServiceError(
      code,
      `The call to ${card.name} failed ${error.step === 'offer' ? 'at the SDP offer' : 'before its agentcall.events channel opened'}: ${error.message}`,
    );
  }
  try {
    // Text only: no explicit audio turns are asked for (the terminal never takes one).
    const driver = await openAgentCallOverChannel({ card, connection: call.connection, sessionId, clientModalities, log, explicitAudioTurns: false });
    return { driver, hangUp: call.close };
  } catch (error) {
    call.close();
    throw error;
  }
}

interface LineContext {
  driver: AgentCallDriver;
  io: ChatIo;
  nfc: NfcReader | undefined;
  nfcUnavailable: string | undefined;
  scanTimeoutMs: number;
}

/** Runs one input line; true when something was sent that the agent answers with a run or a failure. */
async function handleLine(line: string, context: LineContext): Promise<boolean> {
  const { driver, io } = context;
  const [command, ...args] = line.split(/\s+/);
  const view = driver.view;
  switch (command) {
    case '/help':
      io.out(help);
      return false;
    case '/cancel':
      return tryCommand(io, () => driver.cancelRun()) && false;
    case '/decline':
      return tryCommand(io, () => driver.declineInteraction()) && false;
    case '/confirm':
    case '/cancel-teaching': {
      if (view.shownProposalId === undefined) {
        io.out('No teaching proposal is shown. Type the agent’s confirmation text yourself if it asked for one.');
        return false;
      }
      const proposalId = view.shownProposalId;
      return tryCommand(io, () => driver.answerProposal(proposalId, command === '/confirm' ? 'confirm' : 'cancel'));
    }
    case '/scan': {
      const intent = parseIntent(args[0], io);
      if (intent === null) return false;
      if (args.length > 1) return usage(io, 'Usage: /scan [intent]');
      if (context.nfcUnavailable !== undefined || !context.nfc?.ready) {
        io.out(`Cannot scan: ${context.nfcUnavailable ?? 'NFC is not available.'}`);
        return false;
      }
      const object = await tapOnce(context.nfc, context.scanTimeoutMs, io);
      if (!object) return false;
      return sendObservation(driver, io, { object, intent }, 'nfc');
    }
    case '/photo': {
      if (args.length < 1 || args.length > 2) return usage(io, 'Usage: /photo <file> [intent]');
      const intent = parseIntent(args[1], io);
      if (intent === null) return false;
      const image = await photoFromFile(args[0]!, io);
      if (!image) return false;
      return sendObservation(driver, io, { image, intent }, 'photo');
    }
    default:
      if (line.startsWith('//')) return tryCommand(io, () => driver.sendText(line.slice(1)));
      if (line.startsWith('/'))
        return usage(io, `Unknown command ${command!.slice(0, 40)}. /help lists commands; start a message with // to send text that begins with /.`);
      return tryCommand(io, () => driver.sendText(line));
  }
}

function usage(io: Io, text: string): false {
  io.out(text);
  return false;
}

function parseIntent(word: string | undefined, io: Io): Intent | undefined | null {
  if (word === undefined) return undefined;
  const parsed = intentSchema.safeParse(word);
  if (parsed.success) return parsed.data;
  io.out(`"${word}" is not an intent: use identify, remember, inspect or act.`);
  return null;
}

/** Sends an observation; it answers the pending request when that asks for this modality. */
function sendObservation(
  driver: AgentCallDriver,
  io: Io,
  input: { object?: NfcObject; image?: Parameters<AgentCallDriver['sendObservation']>[0]['image']; intent: Intent | undefined },
  modality: Modality,
): boolean {
  const pending = driver.view.pendingInteraction;
  const interactionId = pending?.modality === modality ? pending.interactionId : undefined;
  return tryCommand(io, () =>
    driver.sendObservation({
      ...(input.object ? { object: input.object } : {}),
      ...(input.image ? { image: input.image } : {}),
      ...(input.intent ? { intent: input.intent } : {}),
      ...(interactionId ? { interactionId } : {}),
    }),
  );
}

function tryCommand(io: Io, command: () => void): boolean {
  try {
    command();
    return true;
  } catch (error) {
    if (error instanceof ServiceError) {
      io.out(`[not sent: ${'reason' in error ? String(error.reason) : error.code}] ${error.message}`);
      return false;
    }
    throw error;
  }
}

/** Waits until the agent answered the turn just sent: a run ended, a failure arrived, or the session ended. */
function answered(driver: AgentCallDriver, timeoutMs: number, io: Io): Promise<void> {
  return new Promise((resolve) => {
    let runSeen = driver.view.runActive;
    const done = () => {
      clearTimeout(timer);
      off();
      resolve();
    };
    const timer = setTimeout(() => {
      io.out(`[the agent has not finished answering within ${Math.round(timeoutMs / 1000)} s; /cancel stops it]`);
      done();
    }, timeoutMs);
    const off = driver.onUpdate((update) => {
      if (update.type === 'run.started') runSeen = true;
      if (update.type === 'failure' || update.type === 'ended' || (update.type === 'run.completed' && runSeen)) done();
    });
    if (driver.view.phase === 'ended') done();
  });
}

async function photoFromFile(file: string, io: Io) {
  try {
    const info = await stat(file);
    if (!info.isFile()) return void io.out(`${file} is not a file.`);
    if (info.size > photoLimits.maxFileBytes)
      return void io.out(`${file} is larger than ${photoLimits.maxFileBytes / (1024 * 1024)} MB. Choose a smaller picture.`);
    const photo = await processImage({ kind: 'file', bytes: await readFile(file) });
    return {
      mediaType: 'image/jpeg' as const,
      data: photo.base64,
      byteCount: photo.byteCount,
      sha256: photo.sha256,
      pixelWidth: photo.pixelWidth,
      pixelHeight: photo.pixelHeight,
    };
  } catch (error) {
    if (error instanceof PhotoError) return void io.out(`Photo not sent: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code) return void io.out(`Cannot read ${file}: ${code}.`);
    throw error;
  }
}

// ---- NFC -------------------------------------------------------------------------------------

interface NfcReader {
  service: NfcService | undefined;
  ready: boolean;
  why?: string;
}

/** Starts the reader stack and waits (at most `probeMs`) for a connected reader; then loads the device key. */
async function startNfc(deps: NfcCliDeps, keyFileOption: string | undefined, probeMs: number, log: Logger): Promise<NfcReader> {
  const keyFile = keyFileOption ?? (deps.env ?? process.env)[deviceKeyFileEnv];
  let key: Promise<DeviceKey> | undefined;
  const deviceKey = () =>
    (key ??= (async () => loadDeviceKey(keyFile !== undefined ? { keyFile } : { secrets: await (deps.secrets ?? (() => openSecretStore()))() }))());
  const service = new NfcService({
    readers: new ReaderSupervisor({ log: deps.log ?? log, ...(deps.launcher ? { launcher: deps.launcher } : {}) }),
    deviceKey,
    log: deps.log ?? log,
    distro: linuxDistroIds(),
  });
  service.start();
  const status = await settledStatus(service, probeMs, { settleMs: 500, untilReader: true });
  const connected = status.state === 'ready' && status.readers.some((reader) => reader.connected);
  if (!connected) {
    await service.dispose();
    const why = status.state !== 'ready' ? (status.detail ?? 'the smart-card service is not running.') : 'no NFC reader is connected.';
    return { service: undefined, ready: false, why: `${why}${status.fix ? ` Fix: ${status.fix}` : ''}` };
  }
  try {
    await deviceKey();
  } catch (error) {
    await service.dispose();
    return {
      service: undefined,
      ready: false,
      why: error instanceof DeviceKeyError ? error.message : `the NFC device key could not be loaded (${(error as Error).message}).`,
    };
  }
  return { service, ready: true };
}

async function tapOnce(nfc: NfcReader, timeoutMs: number, io: Io): Promise<NfcObject | undefined> {
  const service = nfc.service!;
  const result = new Promise<NfcScanResult>((resolve) => {
    const off = service.onResult((outcome) => {
      if (outcome.outcome === 'failed' && outcome.retry) return io.out(`${outcome.message} Try again.`);
      off();
      resolve(outcome);
    });
  });
  try {
    await service.arm({ timeoutMs });
  } catch (error) {
    io.out(`Cannot scan: ${(error as Error).message}`);
    return undefined;
  }
  io.out(`Hold the tag to the reader (${Math.round(timeoutMs / 1000)} s)…`);
  const outcome = await result;
  switch (outcome.outcome) {
    case 'observation':
      if (outcome.note) io.out(outcome.note);
      return outcome.object;
    case 'timeout':
      io.out(`No tag was read within ${Math.round(timeoutMs / 1000)} s; nothing was sent.`);
      return undefined;
    case 'cancelled':
      io.out('Scan cancelled; nothing was sent.');
      return undefined;
    case 'failed':
      io.out(`${outcome.message} Nothing was sent.`);
      return undefined;
  }
}

// ---- output ----------------------------------------------------------------------------------

/** Prints updates as lines; agent text streams through `write` when there is one, else prints at the run's end. */
class Printer {
  private streaming = false;
  private buffered = '';

  constructor(
    private readonly io: Io,
    private readonly write: ((text: string) => void) | undefined,
  ) {}

  print(update: SessionUpdate, view: SessionView): void {
    switch (update.type) {
      case 'text.delta': {
        const text = update.text.replace(unsafeForTerminal, '');
        if (this.write) {
          if (!this.streaming) this.write('agent: ');
          this.write(text);
          this.streaming = true;
        } else {
          this.buffered += text;
        }
        return;
      }
      case 'run.completed':
      case 'run.cancelling':
        if (update.type === 'run.cancelling') this.line('[stopping the answer]');
        else this.flush();
        return;
      case 'failure':
        return this.line(`[failure ${update.code}] ${update.message}`);
      case 'interaction.requested': {
        const { interaction } = update;
        const how = interaction.modality === 'nfc' ? 'type /scan to tap a tag' : 'type /photo <file> to send a picture';
        return this.line(`[request ${interaction.modality === 'nfc' ? 'scan' : 'photo'}] ${interaction.prompt} (${how}, or /decline)`);
      }
      case 'interaction.state':
        return this.line(`[request ${update.state}]`);
      case 'teaching.proposed': {
        const { proposal } = update;
        return this.line(
          `[teaching] The agent proposes to remember ${JSON.stringify(proposal.objectRef)} as ${JSON.stringify(proposal.label)}. Nothing is stored until you confirm: ` +
            `type /confirm (sends ${JSON.stringify(proposal.confirmText)}) or /cancel-teaching (sends ${JSON.stringify(proposal.cancelText)}).`,
        );
      }
      case 'teaching.state': {
        const item = view.items.find((entry) => entry.kind === 'teaching' && entry.id === update.proposalId);
        const label = item?.kind === 'teaching' ? ` ${JSON.stringify(item.proposal.label)}` : '';
        return this.line(`[teaching${label} ${update.state}]`);
      }
      case 'user.observation': {
        const what = [
          update.object ? `object ${update.object.objectRef}` : '',
          update.image ? `photo ${update.image.pixelWidth}×${update.image.pixelHeight}, ${update.image.byteCount} bytes` : '',
        ]
          .filter(Boolean)
          .join(' + ');
        return this.line(`[sent ${what}${update.interactionId ? ', answering the request' : ''}]`);
      }
      case 'notice':
        return this.line(`[notice ${update.code}] ${update.message}`);
      case 'ended':
        if (update.reason.kind !== 'client_end')
          this.line(`[session ended${update.reason.kind === 'protocol_error' ? `: ${update.reason.code}` : ''}] ${update.reason.message}`);
        return;
      default:
        return;
    }
  }

  /** Ends the agent's text line (streamed) or prints the buffered text. */
  flush(): void {
    if (this.streaming && this.write) {
      this.write('\n');
      this.streaming = false;
    }
    if (this.buffered !== '') {
      this.io.out(`agent: ${this.buffered}`);
      this.buffered = '';
    }
  }

  private line(text: string): void {
    this.flush();
    this.io.out(text);
  }
}
