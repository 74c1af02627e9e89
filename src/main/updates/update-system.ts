import type { InstallerKind } from './update-feed';

/**
 * What the running installation allows (issue #28), decided under Node from what the Electron glue
 * reads off the disk: which installer electron-updater would use here, and whether it would check
 * the update's OS code signature. Updates stay off where it would not: "signature checks stay on"
 * means no update without them.
 */

/**
 * The installer kind of this installation: Windows NSIS (.exe), macOS (.zip, which Squirrel.Mac
 * installs), Linux AppImage (APPIMAGE is set when one runs) or deb/rpm (electron-builder writes
 * `resources/package-type`); undefined where electron-updater has none (a folder started by hand).
 */
export function installerKindOf(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, packageType: string | undefined): InstallerKind | undefined {
  if (platform === 'win32') return 'exe';
  if (platform === 'darwin') return 'zip';
  if (platform !== 'linux') return undefined;
  if (env.APPIMAGE) return 'AppImage';
  const kind = packageType?.trim();
  return kind === 'deb' || kind === 'rpm' ? kind : undefined;
}

/**
 * Why electron-updater would not check the downloaded installer's OS code signature here, if it
 * would not: on Windows it checks the Authenticode publisher only when the installer's
 * `app-update.yml` names one (`publisherName`, written when the build was signed) and silently skips
 * the check otherwise, so AgentDesk refuses updates there itself. macOS (Squirrel.Mac checks the new
 * app against the running one's signature) and Linux (no OS signature; the signed feed and SHA-512
 * are the check) need nothing more.
 */
export function codeSignatureProblem(platform: NodeJS.Platform, appUpdateYml: string | undefined): string | undefined {
  if (platform !== 'win32') return undefined;
  if (appUpdateYml === undefined) return "this installation has no app-update.yml, so the updater could not check an update's publisher: updates stay off";
  if (!/^publisherName:\s*\S/m.test(appUpdateYml) && !/^publisherName:\s*\n\s+-\s*\S/m.test(appUpdateYml)) {
    return "this build is not code-signed (no publisherName in its app-update.yml), so the updater would not check an update's signature: updates stay off";
  }
  return undefined;
}
