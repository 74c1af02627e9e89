import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user-data folder when running under plain Node (web shell, CLI). It is the folder Electron's
 * `app.getPath('userData')` uses for this app, so both hosts share settings and agents.
 * `AGENTDESK_USER_DATA` overrides it (tests, kiosks with a managed profile).
 */
export function resolveUserDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.AGENTDESK_USER_DATA) return env.AGENTDESK_USER_DATA;
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'AgentDesk');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'AgentDesk');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'AgentDesk');
}
