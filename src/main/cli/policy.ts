import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeDevicePolicy, developmentForcedOff, normalizedUrl, type DevicePolicy } from '../../shared/device-policy/device-policy';
import { valueAt } from '../../shared/device-policy/policy-leaves';
import { DeviceKeyError, readKeyFile, userDeviceKeyFileName } from '../nfc/device-key';
import { openSecretStore } from '../secrets/secret-store';
import { AdminPinError, hashAdminPin } from '../policy/admin-pin';
import { dropInFolderOf, loadDevicePolicy, type LoadDevicePolicyOptions } from '../policy/device-policy-file';
import { admlFileName, admlLocales, admxFileName, admxTemplates, mobileconfig, profileIdentifiers } from '../policy/policy-templates';
import { exitCodes, terminalText, UsageError, type Io } from './output';

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
 * `agentdesk policy check [FILE] [--json] [--strict]`: reads a device policy as the app would (FILE alone,
 * or this machine's from every place it comes from) and prints what it would do, or why the app would
 * refuse it, then its warnings (`policyWarnings`). Exit 0 valid (or no policy anywhere), 1 refused, or
 * with `strict` any warning.
 */
export async function policyCheck(
  file: string | undefined,
  options: { json: boolean; strict?: boolean; systemPath?: string; secrets?: KeychainProbe },
  io: Io,
): Promise<number> {
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

/**
 * `agentdesk policy effective [--json] [--policy FILE]`: the device policy this machine would run
 * under, merged from every place that sets it (the OS channel, the drop-ins, the main file, or
 * `--policy` where none of them sets anything), and for each key the place it came from; keys set
 * differently in two places are listed as conflicts (the higher place is in force). Exit 0 (a policy
 * or none), 1 when the app would refuse it.
 */
export async function policyEffective(options: { json: boolean; policyFile?: string | undefined; load?: LoadDevicePolicyOptions }, io: Io): Promise<number> {
  const load = await loadDevicePolicy({ ...options.load, file: options.policyFile });
  if (load.state === 'none') {
    if (options.json) io.out(JSON.stringify({ ok: true, state: 'none', file: load.file, policy: null, layers: [], sources: {}, conflicts: [] }));
    else io.out(`no device policy: nothing is set through the OS, ${dropInFolderOf(load.file)} or ${load.file}; AgentDesk runs unmanaged here`);
    return exitCodes.ok;
  }
  if (load.state === 'failed') {
    if (options.json) io.out(JSON.stringify({ ok: false, state: 'failed', file: load.file, kind: load.kind, problem: load.problem, kiosk: load.kiosk }));
    else {
      io.out(`refused: ${terminalText(load.file)}`);
      io.out(`  ${terminalText(load.problem)}`);
      io.out(load.kiosk ? 'AgentDesk would show only an error screen saying so (kiosk mode).' : 'AgentDesk would refuse to start, saying so.');
    }
    return exitCodes.rejected;
  }
  const effects = describeDevicePolicy(load.policy);
  if (options.json) {
    io.out(
      JSON.stringify({
        ok: true,
        state: 'active',
        file: load.file,
        layers: load.layers,
        policy: load.policy,
        sources: load.sources,
        conflicts: load.conflicts,
        effects,
      }),
    );
    return exitCodes.ok;
  }
  io.out(`effective device policy, from ${load.layers.length === 1 ? 'one place' : `${load.layers.length} places (the first wins a conflict)`}:`);
  for (const layer of load.layers) io.out(`  ${layer.kind.padEnd(10)} ${terminalText(layer.name)}`);
  io.out('');
  for (const [key, source] of Object.entries(load.sources))
    io.out(`${key} = ${terminalText(JSON.stringify(valueAt(load.policy, key.split('.'))))}    ← ${terminalText(source)}`);
  if (load.conflicts.length > 0) {
    io.out('');
    io.out(`conflicts (${load.conflicts.length}): set differently in several places; the first place is in force`);
    for (const conflict of load.conflicts) {
      const others = conflict.overridden.map((other) => `${terminalText(JSON.stringify(other.value))} in ${terminalText(other.source)}`).join(', ');
      io.out(`  ${conflict.key}: ${terminalText(JSON.stringify(conflict.value))} from ${terminalText(conflict.source)}, over ${others}`);
    }
  }
  io.out('');
  io.out('what it does:');
  for (const line of effects) io.out(`  ${terminalText(line)}`);
  return exitCodes.ok;
}

/**
 * `agentdesk policy export --admx DIR | --mobileconfig FILE [--from POLICY.json]`: the Windows
 * templates (DIR/AgentDesk.admx, DIR/en-US/ and DIR/cs-CZ/AgentDesk.adml, for the PolicyDefinitions
 * folder, the central store or Intune), or a macOS configuration profile carrying a policy (`--from`
 * a policy file; default: this machine's effective policy). Files are replaced.
 */
export async function policyExport(
  options: { admx?: string | undefined; mobileconfig?: string | undefined; from?: string | undefined; load?: LoadDevicePolicyOptions },
  io: Io,
): Promise<number> {
  if (options.admx === undefined && options.mobileconfig === undefined)
    throw new UsageError('agentdesk policy export needs --admx DIR or --mobileconfig FILE.');
  if (options.from !== undefined && options.mobileconfig === undefined)
    throw new UsageError('--from names the policy a --mobileconfig profile carries (the ADMX templates carry no values).');
  if (options.admx !== undefined) {
    const templates = admxTemplates();
    const files: [string, string][] = [
      [join(options.admx, admxFileName), templates.admx],
      [join(options.admx, admlLocales.en, admlFileName), templates.adml.en],
      [join(options.admx, admlLocales.cs, admlFileName), templates.adml.cs],
    ];
    for (const [file, text] of files) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
      io.out(`wrote ${file}`);
    }
  }
  if (options.mobileconfig !== undefined) {
    const load = await loadDevicePolicy(options.from === undefined ? { ...options.load } : { ...options.load, file: options.from, systemPolicyWins: false });
    if (load.state !== 'active') {
      io.err(
        load.state === 'none'
          ? 'There is no device policy on this machine to put in a profile: name one with --from POLICY.json.'
          : `The policy cannot go in a profile: ${load.message}`,
      );
      return exitCodes.rejected;
    }
    await writeFile(options.mobileconfig, mobileconfig(load.policy));
    io.out(`wrote ${options.mobileconfig} (payload type ${profileIdentifiers.payloadType}, the policy of ${load.file})`);
  }
  return exitCodes.ok;
}
