import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { installedAppPath, packagedUnitHeader, systemdUnit } from '../../src/main/cli/kiosk-install';
import { privateUseScheme } from '../../src/main/auth/talkie-oauth';

/** Packaging needs the Electron download, so it cannot run here; its config is checked instead. */
const config = JSON.parse(await readFile(new URL('../../electron-builder.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const scheme = JSON.parse(await readFile(new URL('../../node_modules/app-builder-lib/scheme.json', import.meta.url), 'utf8')) as {
  definitions: Record<string, { properties?: Record<string, unknown> }>;
  properties: Record<string, unknown>;
};

describe('electron-builder config', () => {
  it('sets the fuses of checklist item 19', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  it('passes electron-builder’s own validation (its schema, as `electron-builder` checks it before building)', async () => {
    const { validateConfiguration } = createRequire(import.meta.url)('app-builder-lib/out/util/config/config') as {
      validateConfiguration(config: unknown, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    const quiet = { isEnabled: false, add: () => undefined };
    await expect(validateConfiguration(config, quiet)).resolves.toBeUndefined();
    // The validation refuses a typo, so passing it means something.
    await expect(validateConfiguration({ ...config, deb: { ...(config.deb as object), recomends: ['espeak-ng'] } }, quiet)).rejects.toThrow(
      'Invalid configuration object',
    );
    // Loading app-builder-lib and its schema took 3.6 s at a load average of 12 here, and ran over vitest's default 5 s twice in a row.
  }, 30_000);

  it('uses only keys that electron-builder knows (a typo would silently do nothing)', () => {
    for (const key of Object.keys(config).filter((key) => key !== '$schema')) expect(scheme.properties, key).toHaveProperty(key);
    const fuseKeys = Object.keys(scheme.definitions.FuseOptionsV1?.properties ?? {});
    for (const key of Object.keys(config.electronFuses as object)) expect(fuseKeys, key).toContain(key);
  });

  it('rebuilds native addons for Electron and keeps them outside the asar archive', () => {
    // @pokusew/pcsclite (under nfc-pcsc) is a NAN addon: it must be rebuilt for Electron's ABI at packaging time.
    // sharp and @napi-rs/keyring are Node-API prebuilds and load as they are, but native files cannot load from inside an asar.
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/*.node', '**/node_modules/sharp/**/*', '**/node_modules/@img/**/*']));
    // The NFC addon (pcsclite, NAN) and sherpa-onnx's native files: its .node and the .so/.dylib/.dll beside it (libonnxruntime), which `**/*.node` misses.
    expect(config.asarUnpack).toEqual(expect.arrayContaining(['**/node_modules/@pokusew/pcsclite/**/*', '**/node_modules/sherpa-onnx-*/**/*']));
  });

  it('writes the update files (app-update.yml in the app, latest*.yml beside the installers) for a feed the device policy names, and publishes nothing', () => {
    // electron-builder writes them only with a publish entry; the app never reads this URL (src/main/electron/updater.ts sets the
    // policy's feed, and without updates.enabled never loads electron-updater). A generic provider has no uploader: `npm run dist` publishes nothing.
    expect(config.publish).toEqual([{ provider: 'generic', url: 'https://updates.invalid/agentdesk/', publishAutoUpdate: true }]);
    expect(new URL((config.publish as { url: string }[])[0]!.url).hostname.endsWith('.invalid')).toBe(true);
  });

  it('builds AppImage, deb and rpm on Linux, NSIS on Windows and dmg on macOS (with the zip electron-updater installs from)', () => {
    expect((config.linux as { target: string[] }).target).toEqual(['AppImage', 'deb', 'rpm']);
    expect((config.win as { target: string[] }).target).toEqual(['nsis']);
    expect((config.mac as { target: string[] }).target).toEqual(['dmg', 'zip']);
  });

  it('deb and rpm need the smart-card service and bzip2 (speech model archives), recommend espeak-ng and keep electron-builder’s own dependencies', () => {
    const deb = config.deb as { depends: string[]; recommends: string[]; fpm: string[] };
    const rpm = config.rpm as { depends: string[]; fpm: string[] };
    // Setting `depends` replaces electron-builder's defaults (FpmTarget.getDefaultDepends), so they are listed too.
    expect(deb.depends).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnss3', 'libsecret-1-0', 'xdg-utils', 'pcscd', 'libpcsclite1', 'bzip2']));
    expect(deb.recommends).toEqual(expect.arrayContaining(['espeak-ng']));
    // Fedora, RHEL and openSUSE ship pcscd in pcsc-lite.
    expect(rpm.depends).toEqual(expect.arrayContaining(['gtk3', 'nss', 'xdg-utils', 'pcsc-lite', 'bzip2']));
    expect(rpm.fpm.join(' ')).toContain('--rpm-tag Recommends: espeak-ng');
  });

  it('installs the example policy and its schema to /etc/agentdesk/ as an example, never as the live policy.json, and the kiosk user unit (not enabled)', () => {
    for (const fpm of [(config.deb as { fpm: string[] }).fpm, (config.rpm as { fpm: string[] }).fpm]) {
      const files = fpm.filter((argument) => argument.includes('='));
      expect(files).toEqual([
        'resources/policy/example-kiosk-policy.json=/etc/agentdesk/policy.example.json',
        'resources/policy/agentdesk-policy.schema.json=/etc/agentdesk/agentdesk-policy.schema.json',
        'resources/packaging/linux/agentdesk-kiosk.service=/usr/lib/systemd/user/agentdesk-kiosk.service',
      ]);
      for (const file of files) expect(existsSync(new URL(`../../${file.split('=')[0]}`, import.meta.url)), file).toBe(true);
      expect(files.some((file) => file.endsWith('=/etc/agentdesk/policy.json'))).toBe(false);
    }
  });

  it('the packaged kiosk unit is the one `agentdesk kiosk install` would write for the installed app (npx tsx scripts/write-kiosk-unit.ts)', async () => {
    const packaged = await readFile(new URL('../../resources/packaging/linux/agentdesk-kiosk.service', import.meta.url), 'utf8');
    expect(packaged).toBe(systemdUnit([installedAppPath, '--kiosk'], packagedUnitHeader));
    expect(packaged).toContain('Restart=on-failure');
  });

  it('registers the sign-in scheme the app uses, and installs the app where `agentdesk kiosk install` looks', () => {
    expect(config.protocols).toEqual([{ name: 'AgentDesk sign-in', schemes: [privateUseScheme] }]);
    // deb and rpm put the app in /opt/<productName>/<executableName>.
    expect(installedAppPath).toBe(`/opt/${String(config.productName)}/${String(config.executableName)}`);
  });

  it('packages only the build output', () => {
    expect(config.files).toEqual(['out/**/*', 'package.json', '!**/*.map']);
  });
});
