import { parseArgs } from 'node:util';
import packageJson from '../../../package.json';
import { resolveUserDataDir } from '../platform/paths';
import { aguiChat } from './agui-chat';
import { chat } from './chat';
import { conformance } from './conformance';
import { diagnostics } from './diagnostics';
import { kioskInstall } from './kiosk-install';
import { parseScanTimeout, readers, scan } from './nfc';
import { exitCodes, processIo, UsageError, type Io } from './output';
import { photo } from './photo';
import { policyCheck, policyEffective, policyExport, policyHashPin } from './policy';
import { probe } from './probe';
import { releaseWebRtcIfLoaded } from './webrtc-loaded';

/**
 * `agentdesk`: the command line for server authors and admins. Plain Node, the same services as
 * the app. Exit codes: 0 ok, 1 rejected or a failed check, 2 usage or network error.
 *
 * Every command is one entry of `commands`, with its usage beside what it runs: `agentdesk
 * <command> --help` (or `-h`, anywhere among its options, or `agentdesk help <command>`) prints that
 * usage and exits 0 without running anything; `agentdesk --help` prints them all.
 */

const options = {
  json: { type: 'boolean', default: false },
  dev: { type: 'boolean', default: false },
  token: { type: 'string' },
  port: { type: 'string' },
  'voice-seconds': { type: 'string' },
  'wait-expiry': { type: 'boolean', default: false },
  'no-voice': { type: 'boolean', default: false },
  out: { type: 'string' },
  'key-file': { type: 'string' },
  timeout: { type: 'string' },
  agui: { type: 'string' },
  'forwarded-props': { type: 'string' },
  policy: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  autostart: { type: 'boolean', default: false },
  strict: { type: 'boolean', default: false },
  web: { type: 'boolean', default: false },
  exec: { type: 'string' },
  admx: { type: 'string' },
  mobileconfig: { type: 'string' },
  from: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>['values'];

interface Args {
  values: Values;
  positionals: string[];
  io: Io;
}

interface Command {
  /** Its lines of the usage: the synopsis, then what it does, indented to the column. */
  usage: string;
  run(args: Args): Promise<number>;
}

/** Notes on options shared by several commands; a command's help shows those its usage names. */
const optionNotes: [option: string, note: string][] = [
  ['--dev', '  --dev   the development setting: allow http:// to localhost, 127.0.0.1 and private LAN addresses'],
  ['--json', '  --json  one JSON object on stdout instead of text'],
  ['--token', '  --token  a development bearer token (or the AGENTDESK_TOKEN environment variable)'],
  ['--key-file', '  --key-file  a policy-provisioned NFC device key (32 bytes, mode 0600), for machines without a keychain'],
];

const exitCodesLine = 'Exit codes: 0 ok, 1 rejected or a check failed, 2 usage or network error.';

const token = (values: Values) => values.token ?? process.env.AGENTDESK_TOKEN;

function oneAddress(command: string, positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`agentdesk ${command} needs exactly one address.`);
  return positionals[0]!;
}

/** Runs a command that may load node-datachannel, then frees it so the process can exit. */
async function releasingWebRtc(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } finally {
    await releaseWebRtcIfLoaded();
  }
}

export const commands: Record<string, Command> = {
  demo: {
    usage: `  agentdesk demo [--port N] [--voice-seconds N]    start the built-in demo agent (and its sign-in
                                                    server) on 127.0.0.1; prints its base URL
                                                    (first line) and development token;
                                                    --voice-seconds: how long its voice calls may
                                                    last (10–3600, default 300; warned 30 s before)`,
    run: ({ values, io }) => demo(values.port, values['voice-seconds'], io),
  },
  probe: {
    usage: `  agentdesk probe <address> [--json] [--dev]       discover and validate an agent`,
    run: ({ values, positionals, io }) => probe(oneAddress('probe', positionals), { json: values.json, dev: values.dev }, io),
  },
  chat: {
    usage: `  agentdesk chat <address> [--token T] [--dev] [--key-file PATH]
                                                    chat in the terminal (Talkie or AgentCall;
                                                    AgentCall: /help lists /scan, /photo …;
                                                    a WebRTC card: text on the call, no voice)
  agentdesk chat --agui <endpoint> [--token T] [--dev] [--forwarded-props JSON]
                                                    chat with a plain AG-UI server (POST + SSE);
                                                    interrupts are answered field by field`,
    run: ({ values, positionals, io }) => {
      if (values.agui !== undefined) {
        if (positionals.length > 0) throw new UsageError('agentdesk chat --agui <endpoint> takes no other address.');
        return aguiChat(values.agui, { dev: values.dev, token: token(values), forwardedProps: values['forwarded-props'] }, io);
      }
      if (values['forwarded-props'] !== undefined) throw new UsageError('--forwarded-props goes with --agui <endpoint>.');
      const address = oneAddress('chat', positionals);
      return releasingWebRtc(() => chat(address, { dev: values.dev, token: token(values), keyFile: values['key-file'] }, io));
    },
  },
  conformance: {
    usage: `  agentdesk conformance <address> [--token T] [--json] [--dev] [--wait-expiry] [--no-voice]
                                                    run the Talkie test-mode suite (§11) and, when
                                                    the server offers voice, its §10 checks (a real
                                                    WebRTC call to its signalling host; --no-voice
                                                    skips them), or the AgentCall reference-proof
                                                    wire sequence`,
    run: ({ values, positionals, io }) => {
      const address = oneAddress('conformance', positionals);
      return releasingWebRtc(() =>
        conformance(address, { dev: values.dev, token: token(values), json: values.json, waitExpiry: values['wait-expiry'], voice: !values['no-voice'] }, io),
      );
    },
  },
  photo: {
    usage: `  agentdesk photo <file> [--json] [--out PATH]     the photo observation the app would send for an
                                                    image file (≤ 61,440-byte JPEG, no metadata):
                                                    {byteCount, sha256, pixelWidth, pixelHeight,
                                                    quality, encodes}; --out writes the JPEG`,
    run: ({ values, positionals, io }) => {
      if (positionals.length !== 1) throw new UsageError('agentdesk photo needs exactly one image file.');
      return photo(positionals[0]!, { json: values.json, out: values.out }, io);
    },
  },
  policy: {
    usage: `  agentdesk policy check [FILE] [--json] [--strict] validate a device policy (FILE alone, or this
                                                    machine's, as policy effective merges it), print
                                                    what it would do and warnings with their fixes
                                                    (an http:// agent, the key file, no keychain);
                                                    exit 1 when the app would refuse it, or with
                                                    --strict on any warning
  agentdesk policy effective [--json] [--policy FILE]
                                                    the policy this machine runs under, merged from
                                                    the OS (registry, macOS profile), policy.d/*.json
                                                    and policy.json (or --policy where none is set),
                                                    each key with its source, and the conflicts
  agentdesk policy export --admx DIR | --mobileconfig FILE [--from POLICY.json]
                                                    write the Windows ADMX/ADML templates (en-US,
                                                    cs-CZ), or a macOS profile carrying a policy
                                                    (default: the effective one); files are replaced
  agentdesk policy hash-pin                        the admin PIN from stdin → the salted hash for
                                                    the policy's admin.pinHash`,
    run: ({ values, positionals, io }) => {
      const [action, ...files] = positionals;
      if (action === 'check') {
        if (files.length > 1) throw new UsageError('agentdesk policy check takes at most one file.');
        return policyCheck(files[0], { json: values.json, strict: values.strict }, io);
      }
      if (action === 'effective') {
        if (files.length > 0) throw new UsageError('agentdesk policy effective takes no file: name one with --policy FILE.');
        return policyEffective({ json: values.json, policyFile: values.policy }, io);
      }
      if (action === 'export') {
        if (files.length > 0) throw new UsageError('agentdesk policy export takes --admx DIR or --mobileconfig FILE [--from POLICY.json].');
        return policyExport({ admx: values.admx, mobileconfig: values.mobileconfig, from: values.from }, io);
      }
      if (action === 'hash-pin') {
        if (files.length > 0) throw new UsageError('agentdesk policy hash-pin reads the PIN from stdin, not from its arguments (they show in `ps`).');
        if (process.stdin.isTTY) io.err('Type the admin PIN and press Enter (it shows as you type; pipe it in to avoid that):');
        return policyHashPin(process.stdin, io);
      }
      throw new UsageError(
        'agentdesk policy check [FILE] [--json] [--strict] | agentdesk policy effective [--json] [--policy FILE] | agentdesk policy export --admx DIR | --mobileconfig FILE [--from POLICY.json] | agentdesk policy hash-pin',
      );
    },
  },
  diagnostics: {
    usage: `  agentdesk diagnostics --out FILE [--policy FILE] write the diagnostics bundle (one JSON file:
                                                    versions, platform, the policy without secrets,
                                                    settings, keychain, NFC readers, redacted log)
  agentdesk diagnostics --json [--policy FILE]     the same bundle on stdout (for fleet scripts)`,
    run: ({ values, positionals, io }) => {
      if (positionals.length > 0) throw new UsageError('agentdesk diagnostics takes no arguments but --out FILE or --json [--policy FILE].');
      if (values.json && values.out !== undefined) throw new UsageError('agentdesk diagnostics writes --out FILE or prints --json: one or the other.');
      return diagnostics(
        { out: values.out, json: values.json, policyFile: values.policy, userDataDir: resolveUserDataDir(), version: packageJson.version },
        io,
      );
    },
  },
  kiosk: {
    usage: `  agentdesk kiosk install [--autostart] [--web | --exec PATH] [--dry-run]
                                                    Linux: start AgentDesk in kiosk mode at login
                                                    and again after a crash (a systemd user unit,
                                                    or an XDG autostart entry with --autostart)
  agentdesk kiosk uninstall [--dry-run]            remove them`,
    run: ({ values, positionals, io }) => {
      const [action, ...extra] = positionals;
      if ((action !== 'install' && action !== 'uninstall') || extra.length > 0)
        throw new UsageError('agentdesk kiosk install [--autostart] [--web | --exec PATH] [--dry-run] | agentdesk kiosk uninstall [--dry-run]');
      if (process.platform !== 'linux')
        throw new UsageError('agentdesk kiosk install is for Linux; on Windows and macOS a kiosk device policy makes AgentDesk a login item itself.');
      if (values.web && values.exec !== undefined) throw new UsageError('--web starts the web shell; --exec names the installed app: one or the other.');
      return kioskInstall(
        {
          action,
          way: values.autostart ? 'autostart' : 'systemd',
          target: values.web ? { kind: 'web' } : { kind: 'app', exec: values.exec },
          dryRun: values['dry-run'],
        },
        io,
      );
    },
  },
  readers: {
    usage: `  agentdesk readers [--json]                       the smart-card service and the NFC readers`,
    run: ({ values, io }) => readers({ json: values.json }, io),
  },
  scan: {
    usage: `  agentdesk scan [--json] [--key-file PATH] [--timeout S]
                                                    wait for one NFC tap (default 30 s); prints
                                                    {objectRef, carrier, assurance, payloadSha256, reader}`,
    run: ({ values, io }) => scan({ json: values.json, keyFile: values['key-file'], timeoutS: parseScanTimeout(values.timeout) }, io),
  },
};

/** The usage of one command (its lines and the notes on the options it names), or of all of them. */
export function usageOf(command?: string): string {
  const blocks = command === undefined ? Object.values(commands).map((entry) => entry.usage) : [commands[command]!.usage];
  const notes = optionNotes.filter(([option]) => blocks.some((block) => block.includes(`[${option}`) || block.includes(` ${option} `))).map(([, note]) => note);
  return [`agentdesk ${packageJson.version}`, '', 'Usage:', blocks.join('\n\n'), ...(notes.length > 0 ? ['', ...notes] : []), '', exitCodesLine].join('\n');
}

const isCommand = (name: string | undefined): name is string => name !== undefined && Object.hasOwn(commands, name);

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const about = rest[0];
    if (command === 'help' && about !== undefined) {
      if (!isCommand(about)) throw new UsageError(`Unknown command "${about}". Run agentdesk --help.`);
      io.out(usageOf(about));
      return exitCodes.ok;
    }
    io.out(usageOf());
    return command === undefined ? exitCodes.usage : exitCodes.ok;
  }
  if (command === '--version') {
    io.out(packageJson.version);
    return exitCodes.ok;
  }
  if (!isCommand(command)) throw new UsageError(`Unknown command "${command}". Run agentdesk --help.`);
  // --help or -h among the options (not an option's value, not after --) asks for the usage, and nothing else runs.
  const asked = parseArgs({ args: rest, allowPositionals: true, strict: false, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  if (asked.values.help === true) {
    io.out(usageOf(command));
    return exitCodes.ok;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} Run agentdesk ${command} --help.`);
  }
  return commands[command]!.run({ ...parsed, io });
}

async function demo(portText: string | undefined, voiceSecondsText: string | undefined, io: Io): Promise<number> {
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, not "${portText}".`);
  const { startDemo } = await import('../demo/start-demo'); // only `agentdesk demo` loads the demo (and oidc-provider)
  const { parseDemoVoiceSeconds } = await import('../demo/voice/voice-sessions');
  let maxSeconds: number | undefined;
  try {
    maxSeconds = voiceSecondsText === undefined ? undefined : parseDemoVoiceSeconds(voiceSecondsText, '--voice-seconds');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const server = await startDemo({ port, ...(maxSeconds === undefined ? {} : { voice: { maxSeconds } }) });
  io.out(server.baseUrl);
  io.out(`token ${server.token}`);
  io.out(`agentcall ${server.agentCallCardUrl}`);
  io.out(`agui ${server.aguiUrl}`);
  io.out(`agentcall-webrtc ${server.agentCallWebrtcCardUrl}`);
  io.err(
    `AgentDesk demo agent (Talkie, test mode) on ${server.baseUrl}, signing in through ${server.authIssuer}. ` +
      `Its AgentCall side (NFC objects, photos, teaching; no token) has its agent card at ${server.agentCallCardUrl}; the same agent with its own voice over WebRTC (agentcall-webrtc-0.1, push to talk) at ${server.agentCallWebrtcCardUrl}. ` +
      `Its plain AG-UI side (POST + SSE; reasoning, steps, a tool call, activity; say "apply" or "deploy" for a confirmation to resume, "delete" for a tool approval, "slow" for a long run; no token) is at ${server.aguiUrl}. ` +
      `Try: agentdesk chat ${server.baseUrl} --dev --token <token>, agentdesk chat ${server.agentCallBaseUrl} --dev, agentdesk chat --agui ${server.aguiUrl} --dev, or add them in the app with Settings → Developer → Allow http://. Ctrl+C stops it.`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return exitCodes.ok;
}
