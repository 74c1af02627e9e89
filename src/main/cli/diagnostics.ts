import { settingsUnderPolicy } from '../../shared/device-policy/device-policy';
import { diagnosticsFileName, buildDiagnostics, readSettingsForDiagnostics, writeDiagnostics } from '../app/diagnostics';
import { createLogger } from '../platform/logger';
import { LogRing, ringLogger } from '../platform/log-ring';
import { loadDevicePolicy, type LoadDevicePolicyOptions } from '../policy/device-policy-file';
import { openSecretStore } from '../secrets/secret-store';
import { readRecentLog } from '../store/recent-log-file';
import { readerStatus, type NfcCliDeps } from './nfc';
import { exitCodes, UsageError, type Io } from './output';

/**
 * `agentdesk diagnostics --out FILE | --json [--policy FILE]`: the diagnostics bundle (src/main/app/diagnostics.ts)
 * of this machine as the app would start on it: the device policy it would load, the user's settings
 * under it, the keychain, the NFC readers, and the app's recent log as it saved it (recent-log.json,
 * redacted as it was kept) followed by this command's own. Never over an existing file. `--json`
 * prints the same bundle on stdout instead, as one line (issue #28: a fleet's scripts collect it from
 * every machine; its shape is `diagnosticsBundleSchema`).
 */
export async function diagnostics(
  options: {
    out: string | undefined;
    json?: boolean;
    policyFile?: string | undefined;
    systemPath?: string;
    load?: LoadDevicePolicyOptions;
    userDataDir: string;
    version: string;
    nfcTimeoutMs?: number;
  },
  io: Io,
  deps: NfcCliDeps = {},
): Promise<number> {
  if (options.out === undefined && options.json !== true)
    throw new UsageError(`agentdesk diagnostics needs --out FILE (for example --out ${diagnosticsFileName()}) or --json.`);
  const ring = new LogRing();
  const log = ringLogger(deps.log ?? createLogger({ level: 'warn' }), ring);
  io.err('Collecting: the device policy, settings, the keychain, the NFC readers (up to 10 s)…');
  const policy = await loadDevicePolicy({ ...options.load, file: options.policyFile, ...(options.systemPath ? { systemPath: options.systemPath } : {}) });
  if (policy.state === 'failed') log.error('policy', policy.message);
  const settings = await readSettingsForDiagnostics(options.userDataDir);
  const secrets = await (deps.secrets ?? (() => openSecretStore()))();
  const nfc = await readerStatus({ ...deps, log }, options.nfcTimeoutMs);
  const active = policy.state === 'active' ? policy.policy : undefined;
  // The app's own recent log, as it saved it (already redacted), then this command's.
  const recent = await readRecentLog(options.userDataDir);
  const bundle = await buildDiagnostics({
    app: { name: 'AgentDesk', version: options.version, shell: 'cli' },
    policy,
    settings: 'problem' in settings ? settings : settingsUnderPolicy(settings, active),
    tokenStorage: { kind: secrets.kind, problem: secrets.kind === 'memory' ? (secrets.problem ?? secrets.reason) : undefined },
    nfc,
    media: {
      camera: { allowedByPolicy: active?.camera?.allowed !== false, armed: false },
      microphone: { allowedByPolicy: active?.voice?.allowed !== false, armed: false },
    },
    notices: [],
    logs: ['log' in recent ? recent.log.entries : [], ring.list()].flat(),
    recentLog: 'log' in recent ? { file: recent.file, savedAt: recent.log.savedAt } : { file: recent.file, problem: recent.problem },
  });
  if (options.out === undefined) {
    io.out(JSON.stringify(bundle));
    return exitCodes.ok;
  }
  try {
    const written = await writeDiagnostics(options.out, bundle);
    io.out(`wrote ${written.file} (${written.bytes} bytes)`);
    return exitCodes.ok;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${options.out} exists already; name a new file.`);
    io.err(`The diagnostics could not be written to ${options.out}: ${(error as Error).message}`);
    return exitCodes.rejected;
  }
}
