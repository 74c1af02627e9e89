import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumAppArgs, chromiumSandbox, userNamespacesAvailable, writeLaunchFile } from '../../../src/main/webshell/browser';

describe('the web shell’s Chromium', () => {
  it('keeps the sandbox on for a normal user where user namespaces work, and says why when it must be off', () => {
    expect(chromiumSandbox(1000, true)).toEqual({ args: [] });
    const root = chromiumSandbox(0, true);
    expect(root.args).toEqual(['--no-sandbox']);
    expect(root.notice).toMatch(/without Chromium's sandbox, because AgentDesk runs as root/);
    const noNamespaces = chromiumSandbox(1000, false);
    expect(noNamespaces.args).toEqual(['--no-sandbox']);
    expect(noNamespaces.notice).toMatch(/user namespaces/);
    expect(chromiumAppArgs('file:///x/open.html', '/p', chromiumSandbox(1000, true))).not.toContain('--no-sandbox');
    expect(chromiumAppArgs('file:///x/open.html', '/p', root)).toContain('--no-sandbox');
    // Kiosk mode (device policy): full screen; otherwise an app window.
    expect(chromiumAppArgs('file:///x/open.html', '/p', root, true)).toContain('--kiosk');
    expect(chromiumAppArgs('file:///x/open.html', '/p', root)).not.toContain('--kiosk');
  });

  it('reads whether unprivileged user namespaces are allowed', () => {
    const files = (entries: Record<string, string>) => (path: string) => entries[path];
    expect(userNamespacesAvailable(files({ '/proc/sys/user/max_user_namespaces': '96363\n' }))).toBe(true);
    expect(userNamespacesAvailable(files({ '/proc/sys/user/max_user_namespaces': '0\n' }))).toBe(false);
    expect(userNamespacesAvailable(files({ '/proc/sys/user/max_user_namespaces': '100', '/proc/sys/kernel/unprivileged_userns_clone': '0\n' }))).toBe(false);
    expect(userNamespacesAvailable(files({}))).toBe(true);
  });

  it('hands Chromium a file only this user can read, never the launch code itself', async () => {
    const launchUrl = 'http://127.0.0.1:4321/launch?code=abc_DEF-123&x="<';
    const file = await writeLaunchFile(launchUrl);
    try {
      const args = chromiumAppArgs(file.url, '/profile');
      expect(args.join(' ')).not.toContain('abc_DEF-123');
      expect(args[0]).toBe(`--app=${file.url}`);
      const path = fileURLToPath(file.url);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(dirname(path))).mode & 0o777).toBe(0o700);
      expect(await readFile(path, 'utf8')).toContain(
        '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:4321/launch?code=abc_DEF-123&amp;x=&quot;&lt;">',
      );
    } finally {
      await file.remove();
    }
    await expect(stat(fileURLToPath(file.url))).rejects.toThrow();
  });
});
