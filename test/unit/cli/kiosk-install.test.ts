import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartEntry, commandLine, configHome, kioskInstall, kioskPaths, systemdUnit, type KioskInstallOptions } from '../../../src/main/cli/kiosk-install';
import type { Io } from '../../../src/main/cli/output';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

function capture(): Io & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => void lines.push(line), err: (line) => void errors.push(line) };
}

async function machine() {
  const home = await tempDir();
  const app = join(home, 'opt', 'AgentDesk', 'agentdesk');
  await mkdir(join(app, '..'), { recursive: true });
  await writeFile(app, '#!/bin/sh\nexit 0\n');
  await chmod(app, 0o755);
  const reloads: string[] = [];
  const deps = { env: { HOME: home }, reloadSystemd: async () => void reloads.push('daemon-reload') as undefined };
  const run = (options: Partial<KioskInstallOptions>, io = capture()) =>
    kioskInstall({ action: 'install', way: 'systemd', target: { kind: 'app', exec: app }, dryRun: false, ...options }, io, deps).then((code) => ({ code, io }));
  return { home, app, deps, reloads, run, paths: kioskPaths(deps.env) };
}

describe('agentdesk kiosk install / uninstall', () => {
  it('finds the config folder as the XDG spec says', () => {
    expect(configHome({ HOME: '/home/k' })).toBe('/home/k/.config');
    expect(configHome({ HOME: '/home/k', XDG_CONFIG_HOME: '/srv/cfg' })).toBe('/srv/cfg');
    expect(configHome({ HOME: '/home/k', XDG_CONFIG_HOME: 'relative' })).toBe('/home/k/.config');
  });

  it('writes a systemd user unit that restarts a crashed AgentDesk, enabled for the graphical session; uninstall removes it', async () => {
    const { run, paths, app, reloads, deps } = await machine();
    const { code, io } = await run({});
    expect(code).toBe(0);
    const unit = await readFile(paths.unit, 'utf8');
    expect(unit).toContain(`ExecStart=${app} --kiosk`);
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('WantedBy=graphical-session.target');
    expect(await readlink(paths.wants)).toBe(paths.unit);
    expect(io.lines).toContain(`wrote ${paths.unit}`);
    expect(reloads).toEqual(['daemon-reload']);

    // Installing again replaces its own unit.
    expect((await run({})).code).toBe(0);

    const removed = capture();
    expect(await kioskInstall({ action: 'uninstall', way: 'systemd', target: { kind: 'app' }, dryRun: false }, removed, deps)).toBe(0);
    expect(removed.lines).toEqual([`removed ${paths.wants}`, `removed ${paths.unit}`]);
    expect(existsSync(paths.unit) || existsSync(paths.wants)).toBe(false);
    const again = capture();
    await kioskInstall({ action: 'uninstall', way: 'systemd', target: { kind: 'app' }, dryRun: false }, again, deps);
    expect(again.lines[0]).toMatch(/^nothing to remove/);
  });

  it('the unit passes systemd’s own check', async (context) => {
    if (!existsSync('/usr/bin/systemd-analyze')) {
      console.log('skipped: systemd-analyze is not installed (apt-get install systemd)');
      return context.skip();
    }
    const { run, paths } = await machine();
    await run({});
    const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile('systemd-analyze', ['verify', paths.unit], { timeout: 20_000 }, (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr })),
    );
    expect(result.stderr.trim()).toBe('');
    expect(result.code).toBe(0);
  });

  it('--autostart writes an XDG autostart entry instead', async () => {
    const { run, paths, app } = await machine();
    const { io } = await run({ way: 'autostart' });
    const entry = await readFile(paths.desktop, 'utf8');
    expect(entry.split('\n')).toEqual(expect.arrayContaining(['[Desktop Entry]', 'Type=Application', `Exec=${app} --kiosk`, 'Terminal=false']));
    expect(io.lines.at(-1)).toMatch(/not restarted after a crash/);
    expect(existsSync(paths.unit)).toBe(false);
  });

  it('--dry-run prints what it would write and writes nothing', async () => {
    const { run, paths, home } = await machine();
    const { io } = await run({ dryRun: true });
    expect(io.lines[0]).toBe(`would write ${paths.unit}:`);
    expect(io.lines).toContain('  Restart=on-failure');
    expect(io.lines.at(-1)).toMatch(/^would link /);
    expect(existsSync(join(home, '.config'))).toBe(false);
  });

  it('--web starts the built web shell in Chromium with --kiosk', async () => {
    const { deps, paths } = await machine();
    const entry = join(deps.env.HOME, 'checkout', 'out', 'main', 'webshell.js');
    const io = capture();
    await expect(
      kioskInstall({ action: 'install', way: 'systemd', target: { kind: 'web' }, dryRun: false }, io, {
        ...deps,
        webShellEntry: entry,
        nodePath: '/usr/bin/node',
      }),
    ).rejects.toThrow('The web shell is not built');
    await mkdir(join(entry, '..'), { recursive: true });
    await writeFile(entry, '');
    await kioskInstall({ action: 'install', way: 'systemd', target: { kind: 'web' }, dryRun: false }, io, {
      ...deps,
      webShellEntry: entry,
      nodePath: '/usr/bin/node',
    });
    expect(await readFile(paths.unit, 'utf8')).toContain(`ExecStart=/usr/bin/node ${entry} --open --kiosk`);
  });

  it('says what is wrong: no installed app, a relative --exec, a command it cannot quote, a file it did not write', async () => {
    const { deps, run, paths } = await machine();
    await expect(
      kioskInstall({ action: 'install', way: 'systemd', target: { kind: 'app' }, dryRun: false }, capture(), { ...deps, exists: () => false }),
    ).rejects.toThrow('No AgentDesk app at /opt/AgentDesk/agentdesk (where the deb and rpm install it): name it with --exec PATH');
    await expect(run({ target: { kind: 'app', exec: 'agentdesk' } })).rejects.toThrow('--exec needs an absolute path');
    expect(() => commandLine(['/opt/a$b'])).toThrow('cannot contain');
    expect(commandLine(['/opt/Agent Desk/agentdesk', '--kiosk'])).toBe('"/opt/Agent Desk/agentdesk" --kiosk');
    await mkdir(join(paths.desktop, '..'), { recursive: true });
    await writeFile(paths.desktop, '[Desktop Entry]\nExec=/usr/bin/something-else\n');
    await expect(run({ way: 'autostart' })).rejects.toThrow('was not written by agentdesk kiosk install');
    await expect(kioskInstall({ action: 'uninstall', way: 'systemd', target: { kind: 'app' }, dryRun: false }, capture(), deps)).rejects.toThrow(
      'was not written by agentdesk kiosk install',
    );
    expect((await lstat(paths.desktop)).isFile()).toBe(true);
  });

  it('the files are what the generators make', () => {
    expect(systemdUnit(['/x', '--kiosk'])).toMatch(/^# Written by `agentdesk kiosk install`/);
    expect(autostartEntry(['/x', '--kiosk']).split('\n')[0]).toBe('[Desktop Entry]');
  });
});
