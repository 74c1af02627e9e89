import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { compareVersions, type UpdateSettings } from '../../shared/updates/update-rules';
import { guardedRequest, NetError, type NetPolicy } from '../net/guarded-fetch';

/**
 * The update feed as AgentDesk checks it before electron-updater may install anything (issue #28).
 * The feed is the folder the device policy names (`updates.url`): electron-builder's channel file
 * (`latest.yml`, `latest-mac.yml`, `latest-linux.yml` …) and beside it its detached Ed25519 signature
 * (`latest.yml.sig`, base64), made with the key whose public half the policy names
 * (`updates.publicKey`). Refused, each with its own reason: a feed that cannot be read or answers
 * with a redirect, a channel file without a signature or with one that does not verify, a file on
 * another host than the policy's, a version that is not newer than the running one (a downgrade or
 * the same), and later a downloaded file whose SHA-512 or size is not the signed one. electron-updater
 * checks the OS code signature as well (Windows: the publisher; macOS: Squirrel); that stays on.
 */

/** What one file of a release is, as the signed channel file says. */
export interface FeedFile {
  url: string;
  /** base64, as electron-builder writes it. */
  sha512: string;
  size?: number;
}

/** The parts of electron-builder's UpdateInfo that AgentDesk checks. */
export interface FeedInfo {
  version: string;
  files: FeedFile[];
  releaseDate?: string;
}

/** Why an update was refused: each bad feed has its own. */
export type RefusalCode =
  | 'unreachable'
  | 'unsigned'
  | 'bad_signature'
  | 'malformed'
  | 'other_host'
  | 'downgrade'
  | 'no_installer'
  | 'mismatched'
  | 'updater_disagrees'
  | 'no_code_signature';

export class UpdateRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** The installer electron-updater uses on this system, by the extension of its file. */
export type InstallerKind = 'exe' | 'zip' | 'AppImage' | 'deb' | 'rpm';

/** electron-updater's channel file name: latest.yml (Windows), latest-mac.yml, latest-linux.yml (x64), latest-linux-arm64.yml … */
export function channelFileName(channel: string, platform: NodeJS.Platform, arch: string): string {
  const suffix = platform === 'darwin' ? '-mac' : platform === 'linux' ? `-linux${arch === 'x64' ? '' : `-${arch}`}` : '';
  return `${channel}${suffix}.yml`;
}

/** The feed folder as a base URL (with its final slash, as electron-updater's generic provider makes it). */
export function feedBase(url: string): URL {
  const base = new URL(url);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return base;
}

/** A channel file is small (a few hundred bytes); one larger than this is refused unread. */
const maxChannelFileBytes = 256 * 1024;
const maxSignatureBytes = 1024;

export interface FeedCheck {
  /** A newer release, its installer for this system, and the channel file's URL. */
  update?: { info: FeedInfo; file: FeedFile; channelUrl: string };
}

/**
 * Reads and checks the channel file for this system. Answers `{}` when the feed's version is the
 * running one; throws UpdateRefused for every other thing that is not a newer, signed release on the
 * policy's host.
 */
export async function checkFeed(
  settings: Pick<UpdateSettings, 'url' | 'publicKey' | 'channel'>,
  system: { platform: NodeJS.Platform; arch: string; installer: InstallerKind; currentVersion: string },
  net: NetPolicy,
): Promise<FeedCheck> {
  const base = feedBase(settings.url);
  const channelUrl = new URL(channelFileName(settings.channel, system.platform, system.arch), base);
  const bytes = await fetchBytes(channelUrl, maxChannelFileBytes, net, 'channel file');
  const signature = await fetchBytes(new URL(`${channelUrl.pathname.split('/').pop()!}.sig`, channelUrl), maxSignatureBytes, net, 'signature').catch(
    (error: unknown) => {
      if (error instanceof UpdateRefused && error.message.includes('answered 404'))
        throw new UpdateRefused(
          'unsigned',
          `${channelUrl.href} has no signature beside it (${channelUrl.pathname.split('/').pop()!}.sig): an unsigned feed is never used`,
        );
      throw error;
    },
  );
  if (!verifiesWith(settings.publicKey, bytes, signature))
    throw new UpdateRefused('bad_signature', `the signature of ${channelUrl.href} does not verify with the policy's updates.publicKey: the feed is not used`);
  let info: FeedInfo;
  try {
    info = parseChannelFile(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new UpdateRefused('malformed', `${channelUrl.href} is not a channel file AgentDesk reads: ${(error as Error).message}`);
  }
  // Every file of the release on the policy's own host (origin: scheme, host and port).
  const files = info.files.map((file) => ({ ...file, url: new URL(file.url, base).href }));
  for (const file of files) {
    if (new URL(file.url).origin !== base.origin)
      throw new UpdateRefused('other_host', `the feed names ${new URL(file.url).origin}, another host than the policy's ${base.origin}: refused`);
  }
  const order = compareVersions(info.version, system.currentVersion);
  if (order === undefined) throw new UpdateRefused('malformed', `the feed's version "${info.version.slice(0, 40)}" is not a version`);
  if (order < 0)
    throw new UpdateRefused('downgrade', `the feed offers ${info.version}, older than the running ${system.currentVersion}: a downgrade is never installed`);
  if (order === 0) return {};
  const file = files.find((candidate) => new URL(candidate.url).pathname.toLowerCase().endsWith(`.${system.installer.toLowerCase()}`));
  if (!file) throw new UpdateRefused('no_installer', `the feed's ${info.version} has no .${system.installer} file for this system`);
  return { update: { info: { ...info, files }, file, channelUrl: channelUrl.href } };
}

/** Whether `signature` (base64 text) is the Ed25519 signature of `bytes` by the key (base64 DER SubjectPublicKeyInfo). */
export function verifiesWith(publicKey: string, bytes: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'ed25519') return false;
    const raw = Buffer.from(new TextDecoder().decode(signature).trim(), 'base64');
    return raw.length === 64 && verify(null, bytes, key, raw);
  } catch {
    return false;
  }
}

/** Checks a downloaded installer against the signed channel file: its SHA-512 (and size, when given). */
export async function checkDownloadedFile(path: string, expected: FeedFile): Promise<void> {
  const info = await stat(path);
  if (expected.size !== undefined && info.size !== expected.size)
    throw new UpdateRefused(
      'mismatched',
      `the downloaded ${path.split(/[\\/]/).pop()} is ${info.size} bytes, the signed feed says ${expected.size}: not installed`,
    );
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  if (hash.digest('base64') !== expected.sha512)
    throw new UpdateRefused(
      'mismatched',
      `the downloaded ${path.split(/[\\/]/).pop()} is not the file the signed feed names (its SHA-512 differs): not installed`,
    );
}

async function fetchBytes(url: URL, maxBytes: number, net: NetPolicy, what: string): Promise<Uint8Array> {
  try {
    // No redirect at all: the feed is where the policy says, and nowhere else.
    const response = await guardedRequest({ url: url.href, maxBytes, redirect: 'error', headers: { 'cache-control': 'no-cache' } }, net);
    if (response.status !== 200) {
      response.cancel();
      throw new UpdateRefused('unreachable', `the ${what} ${url.href} answered ${response.status}`);
    }
    return await response.bytes();
  } catch (error) {
    if (error instanceof UpdateRefused) throw error;
    if (error instanceof NetError && error.code === 'cross_origin_redirect')
      throw new UpdateRefused('other_host', `the ${what} ${url.href} redirected to another host: refused`);
    throw new UpdateRefused('unreachable', `the ${what} ${url.href} could not be read: ${(error as Error).message}`);
  }
}

/**
 * electron-builder's channel file (YAML as js-yaml writes it) → the fields AgentDesk checks. Read
 * only after its signature verified; still strict: `version:` and `files:` (a list of `url`,
 * `sha512`, `size`) must be there, or the old single `path:` + `sha512:` form. Other keys (releaseDate,
 * releaseNotes as a block, stagingPercentage …) are skipped.
 */
export function parseChannelFile(text: string): FeedInfo {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const top: Record<string, string> = {};
  const files: Record<string, string>[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const entry = /^([A-Za-z][\w-]*):(?:\s+(.*))?$/.exec(line);
    if (!entry) throw new Error(`line ${index + 1} is not "key: value"`);
    const [, key, rest = ''] = entry;
    if (rest === '|' || rest === '>' || /^[|>][+-]?$/.test(rest)) {
      // A block scalar (release notes): its indented lines belong to it.
      while (index + 1 < lines.length && (lines[index + 1]!.startsWith(' ') || lines[index + 1]!.trim() === '')) index++;
      continue;
    }
    if (rest !== '') {
      top[key!] = scalar(rest, index);
      continue;
    }
    if (key !== 'files') {
      while (index + 1 < lines.length && lines[index + 1]!.startsWith(' ')) index++;
      continue;
    }
    // files: a list of maps ("  - url: …" then "    sha512: …").
    while (index + 1 < lines.length && /^\s+(- )?[A-Za-z]/.test(lines[index + 1]!)) {
      index++;
      const item = /^(\s+)(- )?([A-Za-z][\w-]*):\s*(.*)$/.exec(lines[index]!);
      if (!item) throw new Error(`line ${index + 1} is not a file's "key: value"`);
      if (item[2]) files.push({});
      const current = files[files.length - 1];
      if (!current) throw new Error(`line ${index + 1}: a file's key before its "- "`);
      current[item[3]!] = scalar(item[4]!, index);
    }
  }
  const version = top.version;
  if (version === undefined) throw new Error('it has no version');
  const list = files.length > 0 ? files : top.path !== undefined && top.sha512 !== undefined ? [{ url: top.path, sha512: top.sha512 }] : [];
  if (list.length === 0) throw new Error('it names no files');
  return {
    version,
    files: list.map((file, index) => {
      if (!file.url || !file.sha512) throw new Error(`file ${index + 1} has no url or no sha512`);
      if (!/^[A-Za-z0-9+/]{86}==$/.test(file.sha512)) throw new Error(`file ${index + 1}'s sha512 is not a base64 SHA-512`);
      const size = file.size === undefined ? undefined : Number(file.size);
      if (size !== undefined && !Number.isSafeInteger(size)) throw new Error(`file ${index + 1}'s size is not a number`);
      return { url: file.url, sha512: file.sha512, ...(size === undefined ? {} : { size }) };
    }),
    ...(top.releaseDate ? { releaseDate: top.releaseDate } : {}),
  };
}

/** A plain, 'single-quoted' or "double-quoted" YAML scalar on one line. */
function scalar(text: string, index: number): string {
  const value = text.trim();
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new Error(`line ${index + 1}: a quoted value without its closing quote`);
    return value.slice(1, -1).replace(/''/g, "'");
  }
  if (value.startsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      throw new Error(`line ${index + 1}: a double-quoted value AgentDesk cannot read`);
    }
  }
  return value.replace(/\s+#.*$/, '');
}
