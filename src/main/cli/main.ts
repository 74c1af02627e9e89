import { parseArgs } from 'node:util';
import packageJson from '../../../package.json';
import { aguiChat } from './agui-chat';
import { chat } from './chat';
import { parseScanTimeout, readers, scan } from './nfc';
import { conformance } from './conformance';
import { diagnostics } from './diagnostics';
import { kioskInstall } from './kiosk-install';
import { resolveUserDataDir } from '../platform/paths';
import { exitCodes, processIo, UsageError } from './output';
import { photo } from './photo';
import { policyCheck, policyHashPin } from './policy';
import { probe } from './probe';
import { releaseWebRtcIfLoaded } from './webrtc-loaded';

/**
 * `agentdesk`: the command line for server authors and admins. Plain Node, the same services as
 * the app. Exit codes: 0 ok, 1 rejected or a failed check, 2 usage or network error.
 */
const usage = `agentdesk ${packageJson.version}

Usage:
  agentdesk demo [--port N] [--voice-seconds N]    start the built-in demo agent (and its sign-in
                                                    server) on 127.0.0.1; prints its base URL
                                                    (first line) and development token;
                                                    --voice-seconds: how long its voice calls may
                                                    last (10–3600, default 300; warned 30 s before)
  agentdesk probe <address> [--json] [--dev]       discover and validate an agent
  agentdesk chat <address> [--token T] [--dev] [--key-file PATH]
                                                    chat in the terminal (Talkie or AgentCall;
                                                    AgentCall: /help lists /scan, /photo …;
                                                    a WebRTC card: text on the call, no voice)
  agentdesk chat --agui <endpoint> [--token T] [--dev] [--forwarded-props JSON]
                                                    chat with a plain AG-UI server (POST + SSE);
                                                    interrupts are answered field by field
  agentdesk conformance <address> [--token T] [--json] [--dev] [--wait-expiry] [--no-voice]
                                                    run the Talkie test-mode suite (§11) and, when
                                                    the server offers voice, its §10 checks (a real
                                                    WebRTC call to its signalling host; --no-voice
                                                    skips them), or the AgentCall reference-proof
                                                    wire sequence
  agentdesk photo <file> [--json] [--out PATH]     the photo observation the app would send for an
                                                    image file (≤ 61,440-byte JPEG, no metadata):
                                                    {byteCount, sha256, pixelWidth, pixelHeight,
                                                    quality, encodes}; --out writes the JPEG

  agentdesk policy check [FILE] [--json]           validate a device policy (default: this OS's
                                                    system location) and print what it would do;
                                                    exit 1 when the app would refuse it
  agentdesk policy hash-pin                        the admin PIN from stdin → the salted hash for
                                                    the policy's admin.pinHash

  agentdesk diagnostics --out FILE [--policy FILE] write the diagnostics bundle (one JSON file:
                                                    versions, platform, the policy without secrets,
                                                    settings, keychain, NFC readers, redacted log)

  agentdesk kiosk install [--autostart] [--web | --exec PATH] [--dry-run]
                                                    Linux: start AgentDesk in kiosk mode at login
                                                    and again after a crash (a systemd user unit,
                                                    or an XDG autostart entry with --autostart)
  agentdesk kiosk uninstall [--dry-run]            remove them

  agentdesk readers [--json]                       the smart-card service and the NFC readers
  agentdesk scan [--json] [--key-file PATH] [--timeout S]
                                                    wait for one NFC tap (default 30 s); prints
                                                    {objectRef, carrier, assurance, payloadSha256, reader}

  --dev   the development setting: allow http:// to localhost, 127.0.0.1 and private LAN addresses
  --json  one JSON object on stdout instead of text
  --key-file  a policy-provisioned NFC device key (32 bytes, mode 0600), for machines without a keychain

Exit codes: 0 ok, 1 rejected or a check failed, 2 usage or network error.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    processIo.out(usage);
    return command === undefined ? exitCodes.usage : exitCodes.ok;
  }
  if (command === '--version') {
    processIo.out(packageJson.version);
    return exitCodes.ok;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
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
      web: { type: 'boolean', default: false },
      exec: { type: 'string' },
    },
  });
  const address = () => {
    if (positionals.length !== 1) throw new UsageError(`agentdesk ${command} needs exactly one address.`);
    return positionals[0]!;
  };
  const token = values.token ?? process.env.AGENTDESK_TOKEN;
  switch (command) {
    case 'demo':
      return demo(values.port, values['voice-seconds']);
    case 'probe':
      return probe(address(), { json: values.json, dev: values.dev }, processIo);
    case 'chat':
      if (values.agui !== undefined) {
        if (positionals.length > 0) throw new UsageError('agentdesk chat --agui <endpoint> takes no other address.');
        return aguiChat(values.agui, { dev: values.dev, token, forwardedProps: values['forwarded-props'] }, processIo);
      }
      if (values['forwarded-props'] !== undefined) throw new UsageError('--forwarded-props goes with --agui <endpoint>.');
      try {
        return await chat(address(), { dev: values.dev, token, keyFile: values['key-file'] }, processIo);
      } finally {
        await releaseWebRtcIfLoaded();
      }
    case 'photo':
      if (positionals.length !== 1) throw new UsageError('agentdesk photo needs exactly one image file.');
      return photo(positionals[0]!, { json: values.json, out: values.out }, processIo);
    case 'conformance':
      try {
        return await conformance(address(), { dev: values.dev, token, json: values.json, waitExpiry: values['wait-expiry'], voice: !values['no-voice'] }, processIo);
      } finally {
        await releaseWebRtcIfLoaded();
      }
    case 'policy': {
      const [action, ...files] = positionals;
      if (action === 'check') {
        if (files.length > 1) throw new UsageError('agentdesk policy check takes at most one file.');
        return policyCheck(files[0], { json: values.json }, processIo);
      }
      if (action === 'hash-pin') {
        if (files.length > 0) throw new UsageError('agentdesk policy hash-pin reads the PIN from stdin, not from its arguments (they show in `ps`).');
        if (process.stdin.isTTY) processIo.err('Type the admin PIN and press Enter (it shows as you type; pipe it in to avoid that):');
        return policyHashPin(process.stdin, processIo);
      }
      throw new UsageError('agentdesk policy check [FILE] [--json] | agentdesk policy hash-pin');
    }
    case 'diagnostics':
      if (positionals.length > 0) throw new UsageError('agentdesk diagnostics takes no arguments but --out FILE [--policy FILE].');
      return diagnostics({ out: values.out, policyFile: values.policy, userDataDir: resolveUserDataDir(), version: packageJson.version }, processIo);
    case 'kiosk': {
      const [action, ...extra] = positionals;
      if ((action !== 'install' && action !== 'uninstall') || extra.length > 0) throw new UsageError('agentdesk kiosk install [--autostart] [--web | --exec PATH] [--dry-run] | agentdesk kiosk uninstall [--dry-run]');
      if (process.platform !== 'linux') throw new UsageError('agentdesk kiosk install is for Linux; on Windows and macOS a kiosk device policy makes AgentDesk a login item itself.');
      if (values.web && values.exec !== undefined) throw new UsageError('--web starts the web shell; --exec names the installed app: one or the other.');
      return kioskInstall(
        { action, way: values.autostart ? 'autostart' : 'systemd', target: values.web ? { kind: 'web' } : { kind: 'app', exec: values.exec }, dryRun: values['dry-run'] },
        processIo,
      );
    }
    case 'readers':
      return readers({ json: values.json }, processIo);
    case 'scan':
      return scan({ json: values.json, keyFile: values['key-file'], timeoutS: parseScanTimeout(values.timeout) }, processIo);
    default:
      throw new UsageError(`Unknown command "${command}". Run agentdesk --help.`);
  }
}

async function demo(portText: string | undefined, voiceSecondsText: string | undefined): Promise<number> {
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
  processIo.out(server.baseUrl);
  processIo.out(`token ${server.token}`);
  processIo.out(`agentcall ${server.agentCallCardUrl}`);
  processIo.out(`agui ${server.aguiUrl}`);
  processIo.out(`agentcall-webrtc ${server.agentCallWebrtcCardUrl}`);
  processIo.err(
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    processIo.err(error instanceof UsageError ? error.message : `agentdesk failed: ${(error as Error).message}`);
    process.exit(exitCodes.usage);
  },
);
