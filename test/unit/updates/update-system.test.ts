import { describe, expect, it } from 'vitest';
import { codeSignatureProblem, installerKindOf } from '../../../src/main/updates/update-system';

/** What the installation allows (issue #28): the installer electron-updater would use, and whether it would check the OS signature. */
describe('the installation', () => {
  it('updates with the installer it came from, and has none when started from a folder', () => {
    expect(installerKindOf('win32', {}, undefined)).toBe('exe');
    expect(installerKindOf('darwin', {}, undefined)).toBe('zip');
    expect(installerKindOf('linux', { APPIMAGE: '/opt/AgentDesk.AppImage' }, undefined)).toBe('AppImage');
    expect(installerKindOf('linux', {}, 'deb\n')).toBe('deb');
    expect(installerKindOf('linux', {}, 'rpm')).toBe('rpm');
    expect(installerKindOf('linux', {}, undefined)).toBeUndefined();
    expect(installerKindOf('linux', {}, 'pacman')).toBeUndefined();
    expect(installerKindOf('freebsd', {}, undefined)).toBeUndefined();
  });

  it('on Windows, updates only a build whose app-update.yml names the publisher electron-updater checks (it skips the check without one)', () => {
    const signed = 'provider: generic\nurl: https://updates.invalid/agentdesk/\npublisherName: Example s.r.o.\nupdaterCacheDirName: agentdesk-updater\n';
    const signedList = 'provider: generic\npublisherName:\n  - Example s.r.o.\n';
    const unsigned = 'provider: generic\nurl: https://updates.invalid/agentdesk/\nupdaterCacheDirName: agentdesk-updater\n';
    expect(codeSignatureProblem('win32', signed)).toBeUndefined();
    expect(codeSignatureProblem('win32', signedList)).toBeUndefined();
    expect(codeSignatureProblem('win32', unsigned)).toContain('not code-signed');
    expect(codeSignatureProblem('win32', undefined)).toContain('no app-update.yml');
    expect(codeSignatureProblem('darwin', undefined)).toBeUndefined();
    expect(codeSignatureProblem('linux', unsigned)).toBeUndefined();
  });
});
