import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodes, UsageError, type Io } from './output';

/**
 * `agentdesk kiosk install | uninstall` (Linux): starts AgentDesk in kiosk mode when the user logs
 * in, and again if it crashes. Two ways, both per user, both under $XDG_CONFIG_HOME (~/.config):
 * - a systemd user unit (default): `systemd/user/agentdesk-kiosk.service` with Restart=on-failure,
 *   wanted by graphical-session.target (the link `systemctl --user enable` would make, made here);
 * - `--autostart`: an XDG autostart entry, `autostart/agentdesk-kiosk.desktop`, which any desktop
 *   session starts at login (but nothing restarts it after a crash).
 * What it starts: the installed app (`--exec PATH`, default /opt/AgentDesk/agentdesk, where the deb
 * and rpm put it) or, with `--web`, this checkout's web shell in Chromium. Always with `--kiosk`,
 * so a broken policy shows its error screen instead of nothing. `--dry-run` prints what it would
 * write and writes nothing. Windows and macOS use the login item the app registers itself.
 */

export const kioskUnitName = 'agentdesk-kiosk.service';
export const kioskDesktopName = 'agentdesk-kiosk.desktop';
export const installedAppPath = '/opt/AgentDesk/agentdesk';
const marker = 'Written by `agentdesk kiosk install`; `agentdesk kiosk uninstall` removes it.';

export interface KioskInstallOptions {
  action: 'install' | 'uninstall';
  way: 'systemd' | 'autostart';
  target: { kind: 'app'; exec?: string | undefined } | { kind: 'web' };
  dryRun: boolean;
}

export interface KioskInstallDeps {
  env?: NodeJS.ProcessEnv;
  /** Whether a file exists (the installed app's check); default: existsSync. */
  exists?: (path: string) => boolean;
  /** Runs `systemctl --user daemon-reload` after a change (default: when systemctl is there, errors only reported). */
  reloadSystemd?: () => Promise<string | undefined>;
  /** The web shell's built entry (default: out/main/webshell.js of this checkout). */
  webShellEntry?: string;
  nodePath?: string;
}

export interface PlannedFile {
  path: string;
  content: string;
}

/** Where the files go: $XDG_CONFIG_HOME, else $HOME/.config (a relative XDG_CONFIG_HOME is ignored, as the spec says). */
export function configHome(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return xdg;
  return join(env.HOME ?? homedir(), '.config');
}

export function kioskPaths(env: NodeJS.ProcessEnv) {
  const config = configHome(env);
  const unitDir = join(config, 'systemd', 'user');
  return {
    unit: join(unitDir, kioskUnitName),
    wants: join(unitDir, 'graphical-session.target.wants', kioskUnitName),
    desktop: join(config, 'autostart', kioskDesktopName),
  };
}

/** A command word both a .desktop Exec line and a systemd ExecStart take as it is, quoted when it has spaces. */
function quoteWord(word: string): string {
  // Characters each format would expand or unescape differently ($, %, `, ", \\) are refused rather than escaped twice.
  if (/["`$%\\\n\r]/.test(word)) throw new UsageError(`The command cannot contain " \` $ % \\ or line breaks: ${JSON.stringify(word)}.`);
  return /^[\w@+=:,./-]+$/.test(word) ? word : `"${word}"`;
}

export function commandLine(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

/** The command that starts AgentDesk in kiosk mode. */
export function kioskCommand(target: KioskInstallOptions['target'], deps: KioskInstallDeps = {}): string[] {
  if (target.kind === 'web') {
    const entry = deps.webShellEntry ?? webShellEntry();
    if (!(deps.exists ?? existsSync)(entry)) throw new UsageError(`The web shell is not built (${entry} is missing): run \`npm run build\` first.`);
    return [deps.nodePath ?? process.execPath, entry, '--open', '--kiosk'];
  }
  const exec = target.exec ?? installedAppPath;
  if (!isAbsolute(exec)) throw new UsageError(`--exec needs an absolute path, not "${exec}".`);
  if (!(deps.exists ?? existsSync)(exec)) {
    throw new UsageError(
      `No AgentDesk app at ${exec}${target.exec ? '' : ' (where the deb and rpm install it)'}: name it with --exec PATH (an AppImage too), or start the web shell with --web.`,
    );
  }
  return [exec, '--kiosk'];
}

/** out/main/webshell.js of the checkout this command runs from (built: beside cli.js; from source: two folders up). */
function webShellEntry(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'out', 'main', 'webshell.js');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'webshell.js');
}

/** The packaged copy of the unit (deb, rpm): /usr/lib/systemd/user, enabled by the administrator. */
export const packagedUnitHeader =
  'Installed by the AgentDesk deb/rpm, not enabled: `systemctl --global enable agentdesk-kiosk.service` (every user) or `systemctl --user enable agentdesk-kiosk.service`. Generated: resources/packaging/linux/README.md.';

export function systemdUnit(command: readonly string[], header: string = marker): string {
  return [
    `# ${header}`,
    '[Unit]',
    'Description=AgentDesk kiosk',
    'PartOf=graphical-session.target',
    'After=graphical-session.target',
    // Crashing for good (a broken install) stops the retries after 10 starts in 5 minutes.
    'StartLimitIntervalSec=300',
    'StartLimitBurst=10',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${commandLine(command)}`,
    // A crashed or killed main starts again; quitting on purpose (exit 0) does not.
    'Restart=on-failure',
    'RestartSec=2',
    '',
    '[Install]',
    'WantedBy=graphical-session.target',
    '',
  ].join('\n');
}

export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    `# ${marker}`,
    'Type=Application',
    'Name=AgentDesk kiosk',
    'Comment=Starts AgentDesk in kiosk mode at login',
    `Exec=${commandLine(command)}`,
    'Terminal=false',
    'NoDisplay=true',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export async function kioskInstall(options: KioskInstallOptions, io: Io, deps: KioskInstallDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const paths = kioskPaths(env);
  if (options.action === 'uninstall') return uninstall(paths, options.dryRun, io, deps);
  const command = kioskCommand(options.target, deps);
  const file: PlannedFile =
    options.way === 'systemd' ? { path: paths.unit, content: systemdUnit(command) } : { path: paths.desktop, content: autostartEntry(command) };
  if (options.dryRun) {
    io.out(`would write ${file.path}:`);
    for (const line of file.content.trimEnd().split('\n')) io.out(`  ${line}`);
    if (options.way === 'systemd') io.out(`would link ${paths.wants} → ${paths.unit} (what systemctl --user enable does)`);
    return exitCodes.ok;
  }
  await refuseForeign(file.path);
  await mkdir(dirname(file.path), { recursive: true });
  await writeFile(file.path, file.content, { mode: 0o644 });
  io.out(`wrote ${file.path}`);
  if (options.way === 'systemd') {
    await mkdir(dirname(paths.wants), { recursive: true });
    await rm(paths.wants, { force: true });
    await symlink(paths.unit, paths.wants);
    io.out(`linked ${paths.wants} (enabled for graphical-session.target)`);
    await reportReload(io, deps);
    io.out('AgentDesk starts in kiosk mode at the next login (now: systemctl --user start agentdesk-kiosk), and again after a crash.');
  } else {
    io.out('AgentDesk starts in kiosk mode at the next login. An autostart entry is not restarted after a crash: the systemd unit (without --autostart) is.');
  }
  return exitCodes.ok;
}

/** A file at our path that we did not write is the administrator's: never replaced. */
async function refuseForeign(path: string): Promise<void> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text !== undefined && !text.includes(marker))
    throw new UsageError(`${path} exists and was not written by agentdesk kiosk install: it is left alone (remove it yourself to go on).`);
}

async function uninstall(paths: ReturnType<typeof kioskPaths>, dryRun: boolean, io: Io, deps: KioskInstallDeps): Promise<number> {
  const present: string[] = [];
  for (const path of [paths.wants, paths.unit, paths.desktop]) {
    const here = await lstat(path).then(
      () => true,
      () => false,
    );
    if (!here) continue;
    if (path !== paths.wants) await refuseForeign(path);
    present.push(path);
  }
  if (present.length === 0) {
    io.out('nothing to remove: no kiosk autostart entry or systemd unit of AgentDesk for this user');
    return exitCodes.ok;
  }
  for (const path of present) {
    if (dryRun) io.out(`would remove ${path}`);
    else {
      await rm(path, { force: true });
      io.out(`removed ${path}`);
    }
  }
  if (!dryRun && present.some((path) => path !== paths.desktop)) await reportReload(io, deps);
  return exitCodes.ok;
}

async function reportReload(io: Io, deps: KioskInstallDeps): Promise<void> {
  const problem = await (deps.reloadSystemd ?? systemctlDaemonReload)();
  if (problem) io.err(`systemctl --user daemon-reload: ${problem} (systemd reads the change at the next login)`);
}

function systemctlDaemonReload(): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('systemctl', ['--user', 'daemon-reload'], { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined);
      resolve((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'systemctl is not installed' : stderr.trim().split('\n')[0] || error.message);
    });
  });
}
