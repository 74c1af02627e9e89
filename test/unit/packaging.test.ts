import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

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
    // sherpa-onnx's addon loads libonnxruntime.so and libsherpa-onnx-c-api.so beside it: the OS loader cannot read them from the asar.
    expect(config.asarUnpack).toContain('**/node_modules/sherpa-onnx-*/**/*');
  });

  it('packages only the build output', () => {
    expect(config.files).toEqual(['out/**/*', 'package.json', '!**/*.map']);
  });
});
