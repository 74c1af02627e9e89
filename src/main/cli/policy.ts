import { describeDevicePolicy, developmentForcedOff, normalizedUrl, type DevicePolicy } from '../../shared/device-policy/device-policy';
import { DeviceKeyError, readKeyFile, userDeviceKeyFileName } from '../nfc/device-key';
import { openSecretStore } from '../secrets/secret-store';
import { AdminPinError, hashAdminPin } from '../policy/admin-pin';
import { loadDevicePolicy, type LoadDevicePolicyOptions } from '../policy/device-policy-file';
import { exitCodes, type Io } from './output';

/** Whether a keychain is reachable here (openSecretStore's answer, narrowed; tests give their own). */
export type KeychainProbe = () => Promise<{ kind: 'keychain' | 'memory'; reason?: string | undefined; problem?: string | undefined }>;

/**
 * What a valid policy would still give its first screen (issue #27): every way the app would refuse or
 * degrade a listed agent or the kiosk on this machine, each with its fix. An http:// agent without
 * allowInsecureHttp (it opens only where the user turned the development setting on), a device key file
 * the app cannot use (checked as the user running this command), no keychain (sign-ins and, without a
 * key file, the NFC key fall back). Not checked: what an agent itself offers (a call-only agent with
 * voice off needs the agent: `agentdesk probe`).
 */
export async function policyWarnings(policy: DevicePolicy, secrets: KeychainProbe): Promise<string[]> {
  const warnings: string[] = [];
  if (!developmentForcedOff(policy)) {
    for (const agent of policy.agents?.list ?? []) {
      const url = normalizedUrl(agent.address);
      if (!('url' in url) || !url.http || agent.allowInsecureHttp === true) continue;
      warnings.push(
        `${agent.name === undefined ? '' : `"${agent.name}" `}(${url.url}) is http:// without allowInsecureHttp: the app opens it only where the user turned the development setting on, and otherwise shows "Unencrypted http:// … only allowed for development" instead of the conversation. Fix: add "allowInsecureHttp": true to it (an address on this computer or a private network), or give it an https:// address.`,
      );
    }
  }
  if (policy.deviceKeyFile !== undefined) {
    try {
      (await readKeyFile(policy.deviceKeyFile)).fill(0);
    } catch (error) {
      if (!(error instanceof DeviceKeyError)) throw error;
      const file = policy.deviceKeyFile;
      warnings.push(
        `${error.message.charAt(0).toLowerCase()}${error.message.slice(1)} Every NFC scan would fail until it is fixed (checked as the user running this command: check it as the user running AgentDesk). Fix: as that user, \`head -c 32 /dev/urandom > ${file} && chmod 600 ${file}\` (a new key: tags taught with another key are new objects to the agents).`,
      );
    }
  }
  const store = await secrets();
  if (store.kind === 'memory') {
    const why = store.problem ?? store.reason;
    warnings.push(
      `no keychain is reachable here${why ? ` (${why})` : ''}: sign-ins last until AgentDesk closes.${policy.deviceKeyFile === undefined ? ` The NFC device key goes to ${userDeviceKeyFileName} in the app's folder, readable by its user alone, and the administrator sees a notice saying so. Fix: set deviceKeyFile to a key file you provision, or run a Secret Service (GNOME Keyring, KWallet).` : ' Fix: run a Secret Service (GNOME Keyring, KWallet) for the user running AgentDesk.'}`,
    );
  }
  return warnings;
}

/**
 * `agentdesk policy check [FILE] [--json] [--strict]`: reads a device policy as the app would (FILE, or
 * the system location) and prints what it would do, or why the app would refuse it, then its warnings
 * (`policyWarnings`). Exit 0 valid (or no policy at the system location), 1 refused, or with `strict`
 * any warning.
 */
export async function policyCheck(file: string | undefined, options: { json: boolean; strict?: boolean; systemPath?: string; secrets?: KeychainProbe }, io: Io): Promise<number> {
  // Any file may be checked, also on a machine with a policy installed (the app would not take it by --policy there).
  const loadOptions: LoadDevicePolicyOptions = { file, systemPolicyWins: false, ...(options.systemPath ? { systemPath: options.systemPath } : {}) };
  const load = await loadDevicePolicy(loadOptions);
  if (load.state === 'none') {
    if (options.json) io.out(JSON.stringify({ ok: true, file: load.file, policy: null, effects: [] }));
    else io.out(`no device policy at ${load.file}: AgentDesk runs unmanaged here`);
    return exitCodes.ok;
  }
  if (load.state === 'failed') {
    if (options.json) io.out(JSON.stringify({ ok: false, file: load.file, kind: load.kind, problem: load.problem, kiosk: load.kiosk }));
    else {
      io.out(`refused: ${load.file}`);
      io.out(`  ${load.problem}`);
      io.out(load.kiosk ? 'AgentDesk would show only an error screen saying so (kiosk mode).' : 'AgentDesk would refuse to start, saying so.');
    }
    return exitCodes.rejected;
  }
  const effects = describeDevicePolicy(load.policy);
  const warnings = await policyWarnings(load.policy, options.secrets ?? (() => openSecretStore()));
  const strict = options.strict === true;
  if (options.json) io.out(JSON.stringify({ ok: true, file: load.file, policy: load.policy, effects, warnings, ...(strict ? { strict } : {}) }));
  else {
    io.out(`valid: ${load.file}`);
    for (const line of effects) io.out(line);
    for (const warning of warnings) io.out(`warning: ${warning}`);
    if (strict && warnings.length > 0) io.out(`--strict: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}, so this check fails`);
  }
  return strict && warnings.length > 0 ? exitCodes.rejected : exitCodes.ok;
}

/**
 * `agentdesk policy hash-pin`: the admin PIN from stdin (its first line, without the line break;
 * `echo -n 1234 |` and `echo 1234 |` give the same) → the salted scrypt string for the policy's
 * `admin.pinHash`, on stdout. Exit 1 for a PIN that cannot be used.
 */
export async function policyHashPin(input: AsyncIterable<string | Buffer>, io: Io): Promise<number> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (text.includes('\n') || text.length > 4096) break;
  }
  const pin = text.split('\n')[0]!.replace(/\r$/, '');
  try {
    io.out(await hashAdminPin(pin));
    return exitCodes.ok;
  } catch (error) {
    if (!(error instanceof AdminPinError)) throw error;
    io.err(error.message);
    return exitCodes.rejected;
  }
}
