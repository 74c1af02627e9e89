import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readFile, writeFile } from 'node:fs/promises';
import { arch, cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { describeDevicePolicy, type DevicePolicy } from '../../shared/device-policy/device-policy';
import type { Notice } from '../../shared/ipc/notices';
import type { NfcStatus } from '../../shared/nfc/ipc-schemas';
import { settingsFileFormat, settingsSchema, type Settings } from '../../shared/settings/settings';
import { readSavedDocument } from '../../shared/storage/saved-file-format';
import type { DevicePolicyLoad } from '../policy/device-policy-file';
import { linuxDistroIds } from '../nfc/os-release';
import { redactLogText, type LogEntry } from '../platform/log-ring';
import { ServiceError } from '../../shared/base/errors';
import type { HandlerTable } from '../ipc/handler-table';
import type { Logger } from '../platform/logger';
import type { AdminSession } from '../policy/admin-session';
import { reasonInWords } from '../store/json-file-store';
import type { ChooseDownloadPath } from '../talkie/download';

/**
 * The diagnostics bundle (issue #18): one JSON file an administrator can read, attach to a report
 * and search, built by Settings → Save diagnostics… (`diagnostics.save`) and `agentdesk
 * diagnostics --out FILE`. It says what runs where and what went wrong: versions, platform, the
 * device policy in force (the file's SHA-256, its effects, the policy with the admin PIN hash
 * replaced), the settings in force, the NFC reader and camera state, the user's notices and the
 * recent log (redacted as it was kept, see log-ring.ts). Never in it: images, tokens, client
 * secrets, the PIN hash or the device key, raw tag IDs, tag contents or the names taught for
 * them, transcripts. Only what is listed here is read; nothing is copied wholesale.
 */
export const diagnosticsFormat = 'agentdesk-diagnostics/1';

export interface DiagnosticsSources {
  app: { name: string; version: string; shell: 'electron' | 'web' | 'cli' };
  /** The device policy as this run loaded it (the CLI: as the app would). */
  policy: DevicePolicyLoad;
  /** The settings in force, or why they could not be read. */
  settings: Settings | { problem: string };
  tokenStorage: { kind: 'keychain' | 'memory'; problem?: string | undefined };
  nfc: NfcStatus | { state: 'not_started'; detail: string };
  media: { camera: { allowedByPolicy: boolean; armed: boolean }; microphone: { allowedByPolicy: boolean; armed: boolean } };
  notices: readonly Notice[];
  logs: readonly LogEntry[];
  /** `agentdesk diagnostics`: where `logs` came from (the app's saved recent log), or why it could not be read. */
  recentLog?: { file: string; savedAt: string } | { file: string; problem: string };
  now?: () => Date;
}

export type DiagnosticsBundle = ReturnType<typeof diagnosticsPart> & Awaited<ReturnType<typeof policyPart>>;

export async function buildDiagnostics(sources: DiagnosticsSources): Promise<DiagnosticsBundle> {
  return { ...diagnosticsPart(sources), ...(await policyPart(sources.policy)) };
}

function diagnosticsPart(sources: DiagnosticsSources) {
  const { versions } = process;
  const errors = sources.logs.filter((entry) => entry.level !== 'info');
  return {
    format: diagnosticsFormat,
    createdAt: (sources.now?.() ?? new Date()).toISOString(),
    app: sources.app,
    versions: {
      agentdesk: sources.app.version,
      node: versions.node,
      v8: versions.v8,
      ...(versions.electron ? { electron: versions.electron } : {}),
      ...(versions.chrome ? { chrome: versions.chrome } : {}),
      ...(versions.openssl ? { openssl: versions.openssl } : {}),
    },
    platform: {
      os: process.platform,
      release: release(),
      arch: arch(),
      distro: process.platform === 'linux' ? linuxDistroIds() : [],
      cpus: cpus().length,
      memoryMiB: Math.round(totalmem() / 1024 / 1024),
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    },
    settings: sources.settings,
    tokenStorage: { kind: sources.tokenStorage.kind, ...(sources.tokenStorage.problem ? { problem: redactLogText(sources.tokenStorage.problem) } : {}) },
    hardware: { nfc: nfcPart(sources.nfc), camera: sources.media.camera, microphone: sources.media.microphone },
    notices: sources.notices.map((notice) => ({
      code: notice.code,
      ...(notice.params
        ? { params: Object.fromEntries(Object.entries(notice.params).map(([name, value]) => [name, typeof value === 'string' ? redactLogText(value) : value])) }
        : {}),
      message: redactLogText(notice.message),
    })),
    lastErrors: errors.slice(-20),
    ...(sources.recentLog ? { recentLog: sources.recentLog } : {}),
    logs: [...sources.logs],
  };
}

/** The reader state without anything a tag put there (the last error's text is redacted). */
function nfcPart(status: DiagnosticsSources['nfc']) {
  if (status.state === 'not_started') return status;
  return {
    state: status.state,
    ...(status.service ? { service: status.service } : {}),
    readers: status.readers.map((reader) => ({
      name: reader.name,
      connected: reader.connected,
      ...(reader.cardPresent === undefined ? {} : { cardPresent: reader.cardPresent }),
    })),
    ...(status.detail ? { detail: redactLogText(status.detail) } : {}),
    ...(status.fix ? { fix: status.fix } : {}),
    ...(status.lastError ? { lastError: { at: status.lastError.at, message: redactLogText(status.lastError.message) } } : {}),
    ...(status.scan ? { scan: { armed: status.scan.armed, kiosk: status.scan.kiosk } } : {}),
  };
}

/** The device policy: its file's SHA-256 (to compare with the one deployed), its effects, and the policy without secrets. */
async function policyPart(load: DevicePolicyLoad) {
  const sha256 = await readFile(load.file).then(
    (bytes) => createHash('sha256').update(bytes).digest('hex'),
    () => undefined,
  );
  const where = { file: load.file, ...(sha256 ? { sha256 } : {}) };
  if (load.state === 'none') return { policy: { state: 'none' as const, ...where } };
  if (load.state === 'failed')
    return { policy: { state: 'failed' as const, ...where, kind: load.kind, kiosk: load.kiosk, problem: redactLogText(load.problem) } };
  return {
    policy: {
      state: 'active' as const,
      ...where,
      // Where it came from (issue #28): each place, each key's place, and the keys set differently in two places (their places only, not their values).
      layers: load.layers,
      sources: load.sources,
      conflicts: load.conflicts.map((conflict) => ({
        key: conflict.key,
        source: conflict.source,
        overridden: conflict.overridden.map((other) => other.source),
      })),
      effects: describeDevicePolicy(load.policy),
      settings: policyWithoutSecrets(load.policy),
    },
  };
}

const logEntrySchema = z.object({ at: z.string(), level: z.enum(['info', 'warn', 'error']), area: z.string(), message: z.string() });

/**
 * The bundle's shape, as `agentdesk diagnostics --json` promises it to a fleet's scripts (issue #28):
 * the keys below keep their meaning while `format` is `agentdesk-diagnostics/1`; a nested object may
 * gain keys, the top level does not without a change here (a test checks every bundle against it).
 */
export const diagnosticsBundleSchema = z.strictObject({
  format: z.literal(diagnosticsFormat),
  createdAt: z.iso.datetime(),
  app: z.object({ name: z.literal('AgentDesk'), version: z.string(), shell: z.enum(['electron', 'web', 'cli']) }),
  versions: z.object({
    agentdesk: z.string(),
    node: z.string(),
    v8: z.string(),
    electron: z.string().optional(),
    chrome: z.string().optional(),
    openssl: z.string().optional(),
  }),
  platform: z.object({
    os: z.string(),
    release: z.string(),
    arch: z.string(),
    distro: z.array(z.string()),
    cpus: z.number(),
    memoryMiB: z.number(),
    locale: z.string(),
    timeZone: z.string(),
  }),
  policy: z.discriminatedUnion('state', [
    z.object({ state: z.literal('none'), file: z.string(), sha256: z.string().optional() }),
    z.object({ state: z.literal('failed'), file: z.string(), sha256: z.string().optional(), kind: z.string(), kiosk: z.boolean(), problem: z.string() }),
    z.object({
      state: z.literal('active'),
      file: z.string(),
      sha256: z.string().optional(),
      layers: z.array(z.object({ kind: z.enum(['os-machine', 'os-user', 'drop-in', 'file', 'option']), name: z.string(), sha256: z.string().optional() })),
      sources: z.record(z.string(), z.string()),
      conflicts: z.array(z.object({ key: z.string(), source: z.string(), overridden: z.array(z.string()) })),
      effects: z.array(z.string()),
      settings: z.record(z.string(), z.unknown()),
    }),
  ]),
  settings: z.union([z.object({ problem: z.string() }), z.object({ language: z.string() }).loose()]),
  tokenStorage: z.object({ kind: z.enum(['keychain', 'memory']), problem: z.string().optional() }),
  hardware: z.object({
    nfc: z
      .object({
        state: z.string(),
        readers: z.array(z.object({ name: z.string(), connected: z.boolean(), cardPresent: z.boolean().optional() })).optional(),
        detail: z.string().optional(),
      })
      .loose(),
    camera: z.object({ allowedByPolicy: z.boolean(), armed: z.boolean() }),
    microphone: z.object({ allowedByPolicy: z.boolean(), armed: z.boolean() }),
  }),
  notices: z.array(z.object({ code: z.string(), message: z.string() }).loose()),
  lastErrors: z.array(logEntrySchema),
  recentLog: z.union([z.object({ file: z.string(), savedAt: z.string() }), z.object({ file: z.string(), problem: z.string() })]).optional(),
  logs: z.array(logEntrySchema),
});

/** The policy as set, with the admin PIN hash replaced by whether there is one, and agent addresses without credentials or query. */
export function policyWithoutSecrets(policy: DevicePolicy): Record<string, unknown> {
  const { admin, agents, ...rest } = policy;
  return {
    ...rest,
    ...(agents
      ? {
          agents: {
            list: agents.list.map((agent) => ({ ...agent, address: addressWithoutSecrets(agent.address) })),
            ...(agents.start ? { start: addressWithoutSecrets(agents.start) } : {}),
          },
        }
      : {}),
    ...(admin ? { admin: { pinHash: 'set (not shown)' } } : {}),
  };
}

function addressWithoutSecrets(address: string): string {
  try {
    const url = new URL(address.includes('://') ? address : `https://${address}`);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** Reads settings.json for the CLI without changing anything (the app would move a damaged file aside; the bundle only says so). */
export async function readSettingsForDiagnostics(userDataDir: string): Promise<Settings | { problem: string }> {
  const file = join(userDataDir, 'settings.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { problem: `no ${file} yet: the defaults are in force` };
    return { problem: `${file}: ${reasonInWords(error)}` };
  }
  // Through the file's migrations, as the app reads it (an older version's file is fine).
  const read = readSavedDocument(text, settingsFileFormat);
  if (read.kind === 'damaged') return { problem: `${file}: ${read.problem}` };
  if (read.kind === 'newer') return { problem: `${file}: written by a newer AgentDesk (version ${read.version})` };
  const parsed = settingsSchema.safeParse(read.document);
  return parsed.success
    ? parsed.data
    : { problem: `${file}: not settings this AgentDesk reads as they are (${parsed.error.issues.length} problems; the app moves it aside)` };
}

/** The bundle as the file holds it. */
export function diagnosticsJson(bundle: DiagnosticsBundle): string {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

/** Writes the bundle readable by its owner alone; over an existing file only with `replace` (a save dialog asked). */
export async function writeDiagnostics(file: string, bundle: DiagnosticsBundle, options: { replace?: boolean } = {}): Promise<{ file: string; bytes: number }> {
  return writeDiagnosticsText(file, diagnosticsJson(bundle), options);
}

async function writeDiagnosticsText(file: string, text: string, options: { replace?: boolean }): Promise<{ file: string; bytes: number }> {
  await writeFile(file, text, { flag: options.replace ? 'w' : 'wx', mode: 0o600 });
  return { file, bytes: Buffer.byteLength(text) };
}

/** The file name Save diagnostics… proposes: agentdesk-diagnostics-2026-12-02T15-30-00Z.json. */
export function diagnosticsFileName(now: Date = new Date()): string {
  return `agentdesk-diagnostics-${now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-')}.json`;
}

/**
 * `diagnostics.save`: behind the device policy's admin PIN like settings changes; the bundle goes
 * where `choosePath` says (Electron: a save dialog, which asked before replacing a file; the web
 * shell: a new file in ~/Downloads).
 */
export function diagnosticsHandlers(deps: {
  admin: AdminSession;
  collect: () => Promise<DiagnosticsSources>;
  choosePath: ChooseDownloadPath;
  log: Logger;
}): HandlerTable<'diagnostics'> {
  return {
    'diagnostics.save': async () => {
      if (!deps.admin.isOpen()) throw new ServiceError('not_allowed', "Diagnostics are behind the administrator's PIN (device policy).");
      const bundle = await buildDiagnostics(await deps.collect());
      const file = await deps.choosePath(diagnosticsFileName(new Date(bundle.createdAt)));
      if (file === undefined) return { saved: false };
      try {
        const written = await writeDiagnosticsText(file, diagnosticsJson(bundle), { replace: true });
        deps.log.info('diagnostics', `diagnostics saved (${written.bytes} bytes)`);
        return { saved: true, ...written };
      } catch (error) {
        throw new ServiceError('save_failed', `The diagnostics could not be saved in ${file}: ${reasonInWords(error)}.`);
      }
    },
  };
}
