// npm start: installs what is missing, builds, and opens AgentDesk: the Electron app where its
// binary is installed, otherwise the web shell in Chromium's app mode.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuild, ensureNodeModules, ensureSystemFeatures, findElectronBinary, onAppNode, root, say } from './lib/setup.mjs';

// System packages first: nfc-pcsc (an optional npm dependency) builds against libpcsclite.
ensureSystemFeatures(['nfc', 'speech']);
ensureNodeModules();
// The web shell runs on the app's Node (Electron's major), whatever Node started npm start.
onAppNode();
ensureBuild();

const electron = findElectronBinary();
const forwarded = process.argv.slice(2);
if (electron && !forwarded.includes('--web')) {
  const child = spawn(electron, [root, ...forwarded], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  if (!electron) say('the Electron binary is not installed here (offline install); opening the web shell in Chromium instead.');
  const missing = ensureSystemFeatures(['chromium']);
  const hasDisplay = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  const open = missing.length === 0 && hasDisplay;
  if (!hasDisplay) say('no display found; open the URL below in a browser on this machine (it works once, within 2 minutes).');
  const args = [join(root, 'out', 'main', 'webshell.js'), ...(open ? ['--open'] : []), ...forwarded.filter((arg) => arg !== '--web')];
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 0));
}
