import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DevicePolicy } from '../../shared/device-policy/device-policy';
import { updateSettingsOf } from '../../shared/updates/update-rules';
import type { AppServices } from '../app/app-services';
import type { Logger } from '../platform/logger';
import { UpdateController, type UpdateEngine } from '../updates/update-controller';
import { codeSignatureProblem, installerKindOf } from '../updates/update-system';

/**
 * The Electron side of updates (issue #28), kept thin: electron-updater reads the feed, downloads and
 * installs when the update controller (src/main/updates/, tested under Node against a loopback
 * feed) tells it to, and nothing else. Only a policy with `updates.enabled` loads electron-updater at
 * all. Its own checks stay as they are: no downgrade, the SHA-512 of the download, the Windows
 * publisher check and Squirrel.Mac's code signature check (`verifyUpdateCodeSignature` is never
 * replaced; a Windows build without a publisher to check gets no updates).
 */

/** The part of electron-updater's autoUpdater AgentDesk uses (its module is loaded only here, in Electron). */
interface AutoUpdater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowDowngrade: boolean;
  allowPrerelease: boolean;
  forceDevUpdateConfig: boolean;
  logger: { info(message: unknown): void; warn(message: unknown): void; error(message: unknown): void } | null;
  setFeedURL(options: { provider: 'generic'; url: string; channel: string }): void;
  checkForUpdates(): Promise<{ updateInfo: { version: string; files: { url: string; sha512: string }[] } } | null>;
  downloadUpdate(): Promise<string[]>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

const updaterModule = 'electron-updater';

export async function startUpdates(deps: {
  policy: DevicePolicy | undefined;
  version: string;
  services: AppServices;
  log: Logger;
}): Promise<UpdateController | undefined> {
  const settings = updateSettingsOf(deps.policy);
  if (!settings) return undefined;
  const { log } = deps;
  const read = (name: string) => readFile(join(process.resourcesPath, name), 'utf8').catch(() => undefined);
  const installer = installerKindOf(process.platform, process.env, await read('package-type'));
  if (!installer) {
    log.warn(
      'updates',
      'the device policy enables updates, but this installation has no installer electron-updater can update (run an installed AppImage, deb, rpm, Windows or macOS build)',
    );
    return undefined;
  }
  const unsigned = codeSignatureProblem(process.platform, await read('app-update.yml'));
  if (unsigned) {
    log.warn('updates', unsigned);
    return undefined;
  }
  const { autoUpdater } = (await import(/* @vite-ignore */ updaterModule)) as { autoUpdater: AutoUpdater };
  autoUpdater.autoDownload = false;
  autoUpdater.autoInstallOnAppQuit = false;
  autoUpdater.allowDowngrade = false;
  autoUpdater.allowPrerelease = settings.channel !== 'latest';
  autoUpdater.forceDevUpdateConfig = false;
  autoUpdater.logger = {
    info: (message) => log.info('updates', String(message)),
    warn: (message) => log.warn('updates', String(message)),
    error: (message) => log.error('updates', String(message)),
  };
  const engine: UpdateEngine = {
    check: async (feed) => {
      // The channel in the feed options, not autoUpdater.channel (its setter turns allowDowngrade on).
      autoUpdater.setFeedURL({ provider: 'generic', url: feed.url, channel: feed.channel });
      autoUpdater.allowDowngrade = false;
      const result = await autoUpdater.checkForUpdates();
      return result?.updateInfo;
    },
    download: async () => {
      const [file] = await autoUpdater.downloadUpdate();
      if (!file) throw new Error('the updater downloaded no file');
      return file;
    },
    installNow: () => autoUpdater.quitAndInstall(true, true),
    installOnQuit: (enabled) => void (autoUpdater.autoInstallOnAppQuit = enabled),
  };
  const controller = new UpdateController({
    settings,
    currentVersion: deps.version,
    system: { platform: process.platform, arch: process.arch, installer },
    engine,
    activity: () => deps.services.activity(),
    log,
  });
  deps.services.onKioskReset(() => void controller.moment('idle-reset'));
  controller.start();
  log.info('updates', `updates from ${settings.url} (channel ${settings.channel}, installed ${settings.install})`);
  return controller;
}
