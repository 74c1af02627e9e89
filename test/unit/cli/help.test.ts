import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commands, main, usageOf } from '../../../src/main/cli/commands';
import { UsageError, type Io } from '../../../src/main/cli/output';

/**
 * `agentdesk <command> --help` for every command main knows: its own usage, exit 0, and nothing
 * run (a command that ran would start the demo, read stdin, write a kiosk unit …).
 */

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

const names = Object.keys(commands);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('agentdesk <command> --help', () => {
  it('knows the commands docs/cli.md documents', () => {
    expect(names).toEqual(['demo', 'probe', 'chat', 'conformance', 'photo', 'policy', 'diagnostics', 'kiosk', 'readers', 'scan']);
    const page = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    for (const name of names) expect(page, name).toContain(`\n## agentdesk ${name}`);
  });

  it.each(
    names.flatMap((name) => [
      [name, '--help'],
      [name, '-h'],
    ]),
  )('%s %s prints its own usage and runs nothing', async (name, flag) => {
    const runs = names.map((entry) => vi.spyOn(commands[entry]!, 'run'));
    const io = capture();
    expect(await main([name, flag], io)).toBe(0);
    const text = io.lines.join('\n');
    expect(text).toContain('Usage:');
    expect(text).toContain(commands[name]!.usage);
    // Only this command's lines: no other command is described.
    for (const other of names.filter((entry) => entry !== name)) expect(text, other).not.toContain(`  agentdesk ${other} `);
    expect(text).toContain('Exit codes: 0 ok, 1 rejected or a check failed, 2 usage or network error.');
    for (const run of runs) expect(run).not.toHaveBeenCalled();
  });

  it('answers --help after the action or among other options, and for `agentdesk help <command>`', async () => {
    const run = vi.spyOn(commands.kiosk!, 'run');
    for (const argv of [
      ['kiosk', 'install', '--dry-run', '--help'],
      ['policy', 'hash-pin', '-h'],
      ['chat', '--agui', 'http://127.0.0.1:1/agui', '--help'],
      ['help', 'scan'],
    ]) {
      const io = capture();
      expect(await main(argv, io), argv.join(' ')).toBe(0);
      expect(io.lines.join('\n')).toContain(commands[argv[0] === 'help' ? argv[1]! : argv[0]!]!.usage);
    }
    expect(run).not.toHaveBeenCalled();
  });

  it('answers --help for the fleet actions (#28) with their own lines, writing and reading nothing', async () => {
    const runs = [vi.spyOn(commands.policy!, 'run'), vi.spyOn(commands.diagnostics!, 'run')];
    const cases: [string[], string[]][] = [
      [
        ['policy', 'effective', '--help'],
        ['agentdesk policy effective [--json] [--policy FILE]', 'each key with its source, and the conflicts'],
      ],
      [['policy', 'effective', '--json', '--policy', 'policy.json', '-h'], ['agentdesk policy effective [--json] [--policy FILE]']],
      [
        ['policy', 'export', '--admx', 'templates', '--help'],
        ['agentdesk policy export --admx DIR | --mobileconfig FILE [--from POLICY.json]', 'write the Windows ADMX/ADML templates'],
      ],
      [
        ['policy', 'export', '--mobileconfig', 'kiosk.mobileconfig', '--from', 'policy.json', '-h'],
        ['agentdesk policy export --admx DIR | --mobileconfig FILE [--from POLICY.json]'],
      ],
      [['diagnostics', '--json', '--help'], ['agentdesk diagnostics --json [--policy FILE]     the same bundle on stdout (for fleet scripts)']],
    ];
    for (const [argv, lines] of cases) {
      const io = capture();
      expect(await main(argv, io), argv.join(' ')).toBe(0);
      const text = io.lines.join('\n');
      expect(text, argv.join(' ')).toContain('Usage:');
      for (const line of lines) expect(text, argv.join(' ')).toContain(line);
    }
    for (const run of runs) expect(run).not.toHaveBeenCalled();
  });

  it('names the options a command takes and not the others', () => {
    expect(usageOf('probe')).toContain('--dev   the development setting');
    expect(usageOf('probe')).not.toContain('--key-file  ');
    expect(usageOf('scan')).toContain('--key-file  a policy-provisioned NFC device key');
    expect(usageOf('policy')).not.toContain('--dev   ');
  });

  it('the whole usage lists every command; a value or what follows -- is not a request for help', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    for (const name of names) expect(io.lines.join('\n')).toContain(commands[name]!.usage);
    const run = vi.spyOn(commands.probe!, 'run').mockResolvedValue(0);
    await main(['probe', '--', '-h'], capture());
    expect(run).toHaveBeenCalledTimes(1);
    await expect(main(['help', 'fly'], capture())).rejects.toThrow(UsageError);
    await expect(main(['probe', '--bogus'], capture())).rejects.toThrow(/^Unknown option '--bogus'\..* Run agentdesk probe --help\.$/);
  });
});
