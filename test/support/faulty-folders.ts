import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Real failing folders for save-failure tests. The tests run as root, where `chmod 0500` does not
 * stop a write, so:
 * - a full disk is a tiny tmpfs (`mount -t tmpfs -o size=…`): writes fail with ENOSPC;
 * - a read-only folder is that tmpfs remounted read-only: EROFS;
 * - an immutable folder is `chattr +i` (ext4): creating a file in it fails with EPERM even for root.
 * Each needs root (CAP_SYS_ADMIN / CAP_LINUX_IMMUTABLE); where that is missing, `…Unavailable`
 * says why and the test is skipped with that reason printed.
 */
function probe(command: () => void): string | undefined {
  try {
    command();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
}

let tmpfsProbe: string | undefined | null = null;
/** Why a tmpfs cannot be mounted here, or undefined when it can. */
export function tmpfsUnavailable(): string | undefined {
  if (tmpfsProbe !== null) return tmpfsProbe;
  const dir = join(tmpdir(), `agentdesk-tmpfs-probe-${process.pid}`);
  tmpfsProbe = probe(() => {
    execFileSync('mkdir', ['-p', dir]);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', dir], { stdio: 'pipe' });
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } finally {
      execFileSync('rmdir', [dir]);
    }
  });
  return tmpfsProbe;
}

let chattrProbe: string | undefined | null = null;
/** Why `chattr +i` does not work on the temporary folder's file system, or undefined when it does. */
export function chattrUnavailable(): string | undefined {
  if (chattrProbe !== null) return chattrProbe;
  const dir = join(tmpdir(), `agentdesk-chattr-probe-${process.pid}`);
  chattrProbe = probe(() => {
    execFileSync('mkdir', ['-p', dir]);
    try {
      execFileSync('chattr', ['+i', dir], { stdio: 'pipe' });
      execFileSync('chattr', ['-i', dir], { stdio: 'pipe' });
    } finally {
      execFileSync('rmdir', [dir]);
    }
  });
  return chattrProbe;
}

export interface FaultyFolders {
  /** A fresh tmpfs of `kib` KiB (mode 0700), unmounted after the test. */
  tinyDisk(kib: number): Promise<string>;
  /** Remounts a `tinyDisk` read-only. */
  readOnly(dir: string): void;
  /** `chattr +i` on `dir` (undone after the test, before the folder is removed). */
  immutable(dir: string): void;
}

export function useFaultyFolders(): FaultyFolders {
  const mounts: string[] = [];
  const immutables: string[] = [];
  afterEach(async () => {
    for (const dir of immutables.splice(0)) execFileSync('chattr', ['-i', dir], { stdio: 'pipe' });
    for (const dir of mounts.splice(0)) {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      await rm(dir, { recursive: true, force: true });
    }
  });
  return {
    async tinyDisk(kib) {
      const dir = await mkdtemp(join(tmpdir(), 'agentdesk-disk-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
      mounts.push(dir);
      return dir;
    },
    readOnly: (dir) => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' }),
    immutable(dir) {
      execFileSync('chattr', ['+i', dir], { stdio: 'pipe' });
      immutables.push(dir);
    },
  };
}
