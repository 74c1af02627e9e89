import { describeDevicePolicy } from '../../shared/device-policy/device-policy';
import { AdminPinError, hashAdminPin } from '../policy/admin-pin';
import { loadDevicePolicy, type LoadDevicePolicyOptions } from '../policy/device-policy-file';
import { exitCodes, type Io } from './output';

/**
 * `agentdesk policy check [FILE] [--json]`: reads a device policy as the app would (FILE, or the
 * system location) and prints what it would do, or why the app would refuse it. Exit 0 valid (or
 * no policy at the system location), 1 refused.
 */
export async function policyCheck(file: string | undefined, options: { json: boolean; systemPath?: string }, io: Io): Promise<number> {
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
  if (options.json) io.out(JSON.stringify({ ok: true, file: load.file, policy: load.policy, effects }));
  else {
    io.out(`valid: ${load.file}`);
    for (const line of effects) io.out(line);
  }
  return exitCodes.ok;
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
