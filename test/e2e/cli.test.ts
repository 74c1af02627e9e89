import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/** The built `agentdesk` command (bin/agentdesk.mjs → out/main/cli.js), run as users run it. */
const bin = fileURLToPath(new URL('../../bin/agentdesk.mjs', import.meta.url));
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

function agentdesk(args: string[], input?: string) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input, timeout: 30_000 });
}

async function startDemo(): Promise<{ url: string; token: string; agui: string; agentCallWebrtc: string }> {
  const child = spawn(process.execPath, [bin, 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  const first: string[] = [];
  await new Promise<void>((resolve) => lines.on('line', (line) => first.push(line) === 5 && resolve()));
  return {
    url: first[0]!,
    token: first[1]!.replace(/^token /, ''),
    agui: first[3]!.replace(/^agui /, ''),
    agentCallWebrtc: first[4]!.replace(/^agentcall-webrtc /, ''),
  };
}

describe('the agentdesk command', () => {
  it('prints usage and exits 2 without a command, 0 with --help, and each command its own usage with <command> --help', () => {
    expect(agentdesk([]).status).toBe(2);
    const help = agentdesk(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['demo', 'probe', 'chat', 'conformance', 'policy check', 'policy hash-pin', 'diagnostics', 'kiosk install', 'kiosk uninstall'])
      expect(help.stdout).toContain(`agentdesk ${command}`);
    // Each command's own usage, exit 0, nothing run (kiosk install would write a unit, hash-pin would read stdin).
    for (const argv of [
      ['probe', '--help'],
      ['kiosk', 'install', '-h'],
      ['policy', 'hash-pin', '--help'],
    ]) {
      const own = agentdesk(argv);
      expect(own.status, argv.join(' ')).toBe(0);
      expect(own.stdout).toContain(`agentdesk ${argv[0]!} `);
      expect(own.stdout).not.toContain('agentdesk demo');
    }
    const unknown = agentdesk(['fly']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "fly"');
    const short = agentdesk(['demo', '--voice-seconds', '5']);
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('--voice-seconds must be a whole number of seconds from 10 to 3600, not "5".');
  });

  it('kiosk install --dry-run and diagnostics --out, built, in a temporary HOME', () => {
    const home = mkdtempSync(join(tmpdir(), 'agentdesk-e2e-kiosk-'));
    try {
      const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', AGENTDESK_USER_DATA: join(home, 'user-data') };
      const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000, env });
      // --web finds the built web shell beside the built command.
      const web = run(['kiosk', 'install', '--web', '--dry-run']);
      expect(web.status, web.stderr).toBe(0);
      expect(web.stdout).toContain(`would write ${join(home, '.config', 'systemd', 'user', 'agentdesk-kiosk.service')}:`);
      expect(web.stdout).toContain(`ExecStart=${process.execPath} ${fileURLToPath(new URL('../../out/main/webshell.js', import.meta.url))} --open --kiosk`);
      const missing = run(['kiosk', 'install', '--exec', join(home, 'nope')]);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain(`No AgentDesk app at ${join(home, 'nope')}`);
      const out = join(home, 'diagnostics.json');
      const diagnostics = run([
        'diagnostics',
        '--out',
        out,
        '--policy',
        fileURLToPath(new URL('../../resources/policy/example-kiosk-policy.json', import.meta.url)),
      ]);
      expect(diagnostics.status, diagnostics.stderr).toBe(0);
      expect(diagnostics.stdout).toMatch(/^wrote .*diagnostics\.json \(\d+ bytes\)\n$/);
      expect(run(['diagnostics', '--out', out]).status).toBe(2);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('demo prints its base URL first; probe --json and chat work against it', async () => {
    const demo = await startDemo();
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const probe = agentdesk(['probe', demo.url, '--json', '--dev']);
    expect(probe.status).toBe(0);
    expect(JSON.parse(probe.stdout)).toMatchObject({ ok: true, kind: 'talkie', problems: [] });
    expect(agentdesk(['probe', demo.url, '--json']).status).toBe(2);

    const chat = agentdesk(['chat', demo.url, '--dev', '--token', demo.token], 'talkie-test:echo from the terminal\n/quit\n');
    expect(chat.status).toBe(0);
    expect(chat.stdout).toContain('from the terminal');
    const refused = agentdesk(['chat', demo.url, '--dev', '--token', 'wrong'], 'hello\n');
    expect(refused.stdout).toContain('refused the access token');

    // The plain AG-UI side: a tool approval answered from piped input (approve, keep the path).
    const agui = agentdesk(['chat', '--agui', demo.agui, '--dev'], 'please delete the old plan\ny\n\n');
    expect(agui.status).toBe(0);
    expect(agui.stdout).toContain('[tool] delete_file {"path":"notes/old-plan.md"}');
    expect(agui.stdout).toContain('  → {"approved":true}');
    expect(agui.stdout).toContain('Deleted notes/old-plan.md.');
    expect(agentdesk(['chat', '--agui', demo.agui], 'hello\n').status).toBe(2);
    expect(agentdesk(['chat', '--agui', demo.agui, demo.url]).status).toBe(2);
  });
  it("chat with the demo's AgentCall WebRTC card: text on the call's channel, voice left to the app, and the process exits", async () => {
    const demo = await startDemo();
    const chat = agentdesk(['chat', demo.agentCallWebrtc, '--dev'], 'hello\n/quit\n');
    expect(chat.status, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('(AgentCall call over WebRTC, 127.0.0.1:');
    expect(chat.stdout).toContain('Voice needs the AgentDesk app');
    expect(chat.stdout).toMatch(/agent: I'm the AgentDesk demo agent\./);
  });
  it('policy check validates a device policy (exit 0, what it does; exit 1, why not) and hash-pin hashes a PIN from stdin', () => {
    const example = fileURLToPath(new URL('../../resources/policy/example-kiosk-policy.json', import.meta.url));
    const valid = agentdesk(['policy', 'check', example]);
    expect(valid.status).toBe(0);
    expect(valid.stdout).toContain(`valid: ${example}\n`);
    expect(valid.stdout).toContain('kiosk mode: on\n');

    const dir = mkdtempSync(join(tmpdir(), 'agentdesk-cli-policy-'));
    try {
      const broken = join(dir, 'policy.json');
      writeFileSync(broken, '{\n  "policyVersion": 1,\n  "kiosk": true\n  "language": "cs"\n}\n');
      const refused = agentdesk(['policy', 'check', broken, '--json']);
      expect(refused.status).toBe(1);
      expect(JSON.parse(refused.stdout)).toEqual({
        ok: false,
        file: broken,
        kind: 'malformed',
        kiosk: true,
        problem: 'it is not valid JSON: line 4, column 3: expected "," or "}", found """',
      });

      const hashed = agentdesk(['policy', 'hash-pin'], '2468\n');
      expect(hashed.status).toBe(0);
      const pinHash = hashed.stdout.trim();
      expect(pinHash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
      // The hash goes into a policy that then checks out.
      writeFileSync(broken, JSON.stringify({ policyVersion: 1, admin: { pinHash } }));
      expect(agentdesk(['policy', 'check', broken]).stdout).toContain('admin PIN: set');
      expect(agentdesk(['policy', 'hash-pin'], '12\n')).toMatchObject({ status: 1, stdout: '' });
      expect(agentdesk(['policy', 'hash-pin', '2468']).status).toBe(2);
      expect(agentdesk(['policy', 'lint', broken]).status).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
