// What `npm start` and `npm test` install before they run, so each works on a fresh machine.
// Plain Node with no dependencies: it runs before node_modules exists.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

/**
 * Debian/Ubuntu packages by feature: what each is for and the file that shows it is installed.
 * A new feature that needs a Debian package adds a row here.
 */
export const systemFeatures = {
  chromium: {
    purpose: 'the web shell window (npm start without Electron) and the end-to-end tests',
    packages: ['chromium', 'fonts-dejavu-core'],
    present: () => ['/usr/bin/chromium', '/usr/bin/chromium-browser'].some((path) => existsSync(path)) || Boolean(process.env.CHROMIUM_PATH),
  },
  keychain: {
    purpose: 'the OS keychain test (a Secret Service: gnome-keyring on a private D-Bus session)',
    // dbus brings dbus-run-session; dbus-x11 satisfies gnome-keyring's session-bus dependency, which
    // apt would otherwise meet with dbus-user-session and so pull in systemd.
    packages: ['gnome-keyring', 'dbus', 'dbus-x11'],
    present: () => ['/usr/bin/gnome-keyring-daemon', '/usr/bin/dbus-run-session'].every((path) => existsSync(path)),
  },
  nfc: {
    purpose: 'NFC readers and their tests (a private pcscd with the virtual reader; libpcsclite-dev builds nfc-pcsc)',
    packages: ['pcscd', 'libpcsclite-dev', 'vsmartcard-vpcd'],
    // The driver library, not /etc/reader.conf.d/vpcd: `apt-get remove` leaves that conffile behind.
    present: () => ['/usr/sbin/pcscd', '/usr/include/PCSC/winscard.h', '/usr/lib/pcsc/drivers/serial/libifdvpcd.so'].every((path) => existsSync(path)),
  },
  speech: {
    purpose: "the demo voice provider's speech and its tests (espeak-ng speaks; pocketsphinx with its US English model listens; sox converts audio files)",
    packages: ['espeak-ng', 'sox', 'pocketsphinx', 'pocketsphinx-en-us'],
    // The model's files, not just the binary: pocketsphinx without pocketsphinx-en-us hears nothing.
    present: () =>
      ['/usr/bin/espeak-ng', '/usr/bin/sox', '/usr/bin/pocketsphinx_continuous', '/usr/share/pocketsphinx/model/en-us/en-us/mdef'].every((path) =>
        existsSync(path),
      ),
  },
  archives: {
    purpose: 'speech model archives: main unpacks .tar.bz2 through the bzip2 program, and the tests make archives with tar',
    packages: ['bzip2', 'tar'],
    present: () => existsSync('/usr/bin/bzip2') && ['/usr/bin/tar', '/bin/tar'].some((path) => existsSync(path)),
  },
};

export function say(line) {
  process.stdout.write(`agentdesk: ${line}\n`);
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  return result.status ?? 1;
}

/**
 * The Node.js AgentDesk runs on: Electron 45 embeds Node 24, and the npm registry's `node` package (a
 * dev dependency) brings that major as a binary, so the tests, the web shell and the CLI run on the
 * runtime the app really has, whatever Node started `npm start` or `npm test`.
 */
export const appNode = join(root, 'node_modules', '.bin', 'node');
export const appNodeMajor = 24;
/** Its headers, for native addons built for it (the `node` package ships the whole Node tree). */
const appNodeDir = join(root, 'node_modules', 'node', 'node_modules', `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`);

/** node_modules from the lockfile, when missing or older than package-lock.json; then native addons for the app's Node. */
export function ensureNodeModules() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
    say('installing npm packages (npm ci)…');
    // Native addons build against local Node headers instead of downloading them (rebuilt below for the app's Node).
    const env = existsSync('/usr/include/node/node.h') ? { ...process.env, npm_config_nodedir: '/usr' } : process.env;
    if (run('npm', ['ci', '--no-audit', '--no-fund'], { env }) !== 0) {
      say('npm ci failed; see the messages above.');
      process.exit(1);
    }
  }
  ensureAddonsForAppNode();
}

/**
 * The NFC addon (@pokusew/pcsclite, NAN: built per Node ABI; every other native dependency is
 * N-API) rebuilt for the app's Node when it was built for another one (npm ci builds it with the
 * Node that runs npm). nfc-pcsc is optional: a failed rebuild leaves NFC off, with the reason.
 */
function ensureAddonsForAppNode() {
  const addon = join(root, 'node_modules', '@pokusew', 'pcsclite', 'build', 'Release', 'pcsclite.node');
  if (!existsSync(appNode) || !existsSync(addon)) return;
  const check = spawnSync(appNode, ['-e', `require(${JSON.stringify(addon)})`], { cwd: root, encoding: 'utf8' });
  if (check.status === 0 || !/NODE_MODULE_VERSION/.test(check.stderr ?? '')) return;
  say(`rebuilding the NFC addon for Node ${appNodeMajor} (the app's runtime)…`);
  const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, npm_config_nodedir: appNodeDir };
  if (run('npm', ['rebuild', '@pokusew/pcsclite'], { env }) !== 0) say('the NFC addon could not be rebuilt; NFC stays off (see the messages above).');
}

/**
 * Runs this script again on the app's Node when another one started it (the machine's own Node
 * runs only the installing above). Returns when this already is the app's Node.
 */
export function onAppNode() {
  if (Number(process.versions.node.split('.')[0]) === appNodeMajor || !existsSync(appNode)) return;
  say(`continuing on Node ${appNodeMajor} (node_modules/.bin/node), the runtime of the app; this Node is ${process.version}.`);
  const result = spawnSync(appNode, process.argv.slice(1), {
    cwd: process.cwd(),
    stdio: 'inherit',
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` },
  });
  process.exit(result.status ?? 1);
}

/**
 * test/peers' own node_modules (AG-UI servers built from packages the product does not use, for
 * test/unit/agui/independent-peers.test.ts) from its lockfile, when missing or older than it. Its
 * .npmrc runs no install scripts. A failed install does not stop the tests: those that need the
 * peers say why they skip.
 */
export function ensureTestPeers() {
  const folder = join(root, 'test', 'peers');
  const marker = join(folder, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(folder, 'package-lock.json')).mtimeMs) return;
  say('installing the independent AG-UI peers of the tests (npm ci in test/peers)…');
  if (run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: folder }) !== 0)
    say('npm ci in test/peers failed (see above); the tests that need those peers will say they skip.');
}

/**
 * Installs the system packages of the given features when running as root with apt-get;
 * otherwise prints the one command to run. Returns the features that are still missing.
 */
export function ensureSystemFeatures(names) {
  const missing = names.filter((name) => !systemFeatures[name].present());
  if (missing.length === 0) return [];
  const packages = missing.flatMap((name) => systemFeatures[name].packages);
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (canInstall) {
    say(`installing system packages: ${packages.join(' ')}…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['update', '-qq'], { env }) === 0) run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env });
  } else {
    for (const name of missing) say(`${systemFeatures[name].purpose} need: sudo apt-get install -y ${systemFeatures[name].packages.join(' ')}`);
  }
  return missing.filter((name) => !systemFeatures[name].present());
}

/** Rebuilds out/ when any source file is newer than the last build. */
export function ensureBuild({ force = false } = {}) {
  const stamp = join(root, 'out', 'main', 'webshell.js');
  const newest = Math.max(newestMtime(join(root, 'src')), ...['package.json', 'electron.vite.config.ts'].map((file) => statSync(join(root, file)).mtimeMs));
  if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newest) return;
  say('building (electron-vite build)…');
  if (run(join(root, 'node_modules', '.bin', 'electron-vite'), ['build']) !== 0) {
    say('the build failed; see the messages above.');
    process.exit(1);
  }
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The Electron binary, without require('electron') (which tries to download it when missing).
 * Returns its path, or undefined when this install has none (offline installs).
 */
export function findElectronBinary() {
  const pathFile = join(root, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const relative = readFileSync(pathFile, 'utf8').trim();
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(root, 'node_modules', 'electron', 'dist');
  const binary = join(base, relative);
  return relative && existsSync(binary) ? binary : undefined;
}
