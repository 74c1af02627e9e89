import { z } from 'zod';
import { isLocalDevelopmentHost, normalizeAgentAddress } from '../agents/address';
import { parseForwardedProps, runInputLimits } from '../agui/interrupts';
import { agentLabelMaxLength } from '../agents/label';
import { bargeInSettingSchema, languageSchema, textSizeSchema, themeSchema, type BargeInSetting, type Settings } from '../settings/settings';
import { adminPinLockout, parseAdminPinHash } from './admin-pin-hash';

/**
 * The device policy (issue #18): one JSON file an administrator writes to make AgentDesk a kiosk or
 * a managed workstation. Not to be confused with the per-action approval policy of Talkie servers
 * (`actionPolicy`, human-approved actions) or the network address policy in main: this one is the
 * machine's, written by its administrator, read from the system location (or `--policy FILE`).
 *
 * - Strict: an unknown key is an error, so a typo ("kiosks") fails closed instead of being ignored.
 * - Versioned: `policyVersion` is required; a version this AgentDesk does not know fails closed.
 * - Every other key is optional: a key the policy leaves out is the user's to decide (its default,
 *   below, is "as the user set it"); a key it sets is forced, and the user's settings file can never
 *   loosen it (`settingsUnderPolicy`, `policyRefusals`).
 *
 * The JSON Schema for editors (`resources/policy/agentdesk-policy.schema.json`) is generated from
 * this schema (`devicePolicyJsonSchema`); a test keeps the checked-in file equal to it.
 */
export const devicePolicyVersion = 1;

/** `idleAgentHoldSeconds` when the policy leaves it out: the agent's own activity holds the countdown off for at most 2 minutes. */
export const idleAgentHoldDefaultSeconds = 120;

export const policyAgentSchema = z
  .strictObject({
    address: z
      .string()
      .min(1)
      .max(2048)
      .describe('The agent\'s address, as "Add an agent" takes it: a host, an https:// URL, a Talkie manifest or A2A agent card URL.'),
    name: z.string().min(1).max(agentLabelMaxLength).optional().describe("The name the lists show (instead of the agent's own name or its address)."),
    kind: z
      .enum(['auto', 'agui'])
      .optional()
      .describe('"agui": the address is a plain AG-UI endpoint (POST + SSE). Default "auto": read its Talkie manifest and A2A card.'),
    allowInsecureHttp: z
      .boolean()
      .optional()
      .describe(
        "true: this agent's http:// address is used without TLS, on purpose (a workshop's own server on the local network), whatever the development setting says; for this agent alone. Only for an http:// address to this computer or a private network (localhost, 127.x, 10.x, 172.16–31.x, 192.168.x, fc00::/7): its traffic, tokens included, is unencrypted on that network.",
      ),
    forwardedProps: z
      .string()
      .max(runInputLimits.forwardedPropsChars)
      .optional()
      .describe(
        'Plain AG-UI agents ("kind": "agui"): the forwardedProps every run sends, as JSON object text (e.g. "{\\"iacCode\\":{\\"cwd\\":\\"/srv/workshop\\"}}"). Set here, nobody can change them in the app.',
      ),
  })
  .describe('One agent of the locked list.');

export const adminPinHashSchema = z
  .string()
  .max(400)
  .regex(/^\$scrypt\$/)
  .describe('The admin PIN as a salted scrypt hash in PHC format ($scrypt$ln=15,r=8,p=1$salt$hash). Make one with `agentdesk policy hash-pin`.');

/** An Ed25519 public key as base64 DER (SubjectPublicKeyInfo): always 44 bytes, so 60 characters with this prefix. */
export const updatePublicKeySchema = z
  .string()
  .max(60)
  .regex(/^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$/, 'must be an Ed25519 public key as base64 DER (60 characters starting MCowBQYDK2VwAyEA)');

/** `updates.maintenanceWindow`: "HH:MM-HH:MM", 24-hour local time. */
export const maintenanceWindowPattern = /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/;

export const devicePolicySchema = z
  .strictObject({
    $schema: z.string().max(2048).optional().describe('The JSON Schema for editors; AgentDesk ignores it.'),
    policyVersion: z.literal(devicePolicyVersion).describe('The version of this policy format. AgentDesk refuses a version it does not know.'),
    kiosk: z.boolean().optional().describe('Kiosk mode. A policy problem then shows an error screen instead of refusing to start. Default false.'),
    agents: z
      .strictObject({
        list: z
          .array(policyAgentSchema)
          .min(1)
          .max(50)
          .describe(
            'The agents, in order. The list is locked: users cannot add, remove or rename agents, and cannot open any other address (nor the built-in demo).',
          ),
        start: z.string().min(1).max(2048).optional().describe('The address (one of `list`) that opens at start.'),
      })
      .optional()
      .describe('A locked agent list. Without it, users manage their own list.'),
    idleResetSeconds: z
      .number()
      .int()
      .min(10)
      .max(86_400)
      .optional()
      .describe(
        'Kiosk: after this many seconds without input, a 10 s countdown any touch cancels; then every session ends, what it left is wiped and the start screen returns.',
      ),
    idleAgentHoldSeconds: z
      .number()
      .int()
      .min(0)
      .max(3_600)
      .optional()
      .describe(
        `Kiosk: while the agent itself is busy (its voice speaking or reading aloud, an answer running) the idle countdown waits, for at most this many seconds past idleResetSeconds; then it shows anyway. Input (a touch, a key, a tag, the visitor speaking in a call) is what keeps a session. Default ${idleAgentHoldDefaultSeconds}; 0: the agent's activity never holds it.`,
      ),
    nfc: z
      .strictObject({ armedScanning: z.boolean().describe('Keep NFC scanning armed while the window is focused (Settings → NFC scanning → kiosk scanning).') })
      .optional(),
    camera: z
      .strictObject({
        allowed: z.boolean().optional().describe('false: the camera is never opened. Default true.'),
        filePicker: z
          .boolean()
          .optional()
          .describe(
            'Photos chosen from files ("Choose a picture…", which opens the system\'s file dialog, and pictures dropped on the window). Default: false in kiosk mode, else true.',
          ),
      })
      .optional(),
    voice: z
      .strictObject({
        allowed: z.boolean().describe('false: the microphone is never opened, so no voice calls.'),
        mode: z.enum(['hands-free', 'push-to-talk']).optional().describe('The voice mode calls use; the other mode is not offered.'),
        bargeIn: bargeInSettingSchema
          .optional()
          .describe(
            'Forces Settings → Speech → interrupting the agent by speaking (client-owned voice): "automatic" (on with headphones or a headset), "on" or "off".',
          ),
      })
      .optional(),
    language: languageSchema.optional().describe('The interface language, forced.'),
    appearance: z
      .strictObject({ theme: themeSchema.optional().describe('Forced theme.'), textSize: textSizeSchema.optional().describe('Forced text size.') })
      .optional(),
    admin: z
      .strictObject({ pinHash: adminPinHashSchema })
      .optional()
      .describe('Settings and diagnostics behind an admin PIN (wrong tries lock it for a growing time).'),
    developmentSetting: z
      .enum(['forced-off', 'user'])
      .optional()
      .describe(
        '"forced-off": the development setting (http:// to local addresses) and pasted tokens stay off. Default: "forced-off" in kiosk mode, else "user".',
      ),
    deviceKeyFile: z
      .string()
      .min(2)
      .max(4096)
      .optional()
      .describe("The NFC device key file (32 bytes, readable by the app's user alone), used instead of the keychain. An absolute path."),
    updates: z
      .strictObject({
        enabled: z.boolean().describe('Update AgentDesk from the feed below (true), or never look for updates (false).'),
        url: z
          .string()
          .min(1)
          .max(2048)
          .optional()
          .describe(
            "The feed: the https:// folder with electron-builder's latest*.yml files (each signed: a .yml.sig beside it) and the installers they name, all on this host. Needed when enabled.",
          ),
        publicKey: updatePublicKeySchema
          .optional()
          .describe(
            "The Ed25519 public key the feed's .yml files are signed with: base64 DER, one line (openssl pkey -pubout -outform DER | base64). Needed when enabled.",
          ),
        channel: z.enum(['latest', 'beta', 'alpha']).optional().describe('The release channel the feed is read for. Default "latest".'),
        install: z
          .enum(['on-quit', 'idle-reset', 'maintenance-window'])
          .optional()
          .describe(
            'When a downloaded, checked update is installed, never during a conversation: "on-quit" when AgentDesk is closed (the default outside kiosk mode), "idle-reset" right after a kiosk\'s idle reset (the default in kiosk mode), "maintenance-window" inside maintenanceWindow once nothing has happened for 10 minutes.',
          ),
        maintenanceWindow: z
          .string()
          .max(11)
          .regex(maintenanceWindowPattern)
          .optional()
          .describe('For install "maintenance-window": "HH:MM-HH:MM" in the machine\'s local time; it may pass midnight ("23:00-05:00").'),
      })
      .optional()
      .describe('Updates from a feed the administrator names, never from anywhere else. Without it AgentDesk does not update itself.'),
  })
  .describe('AgentDesk device policy (issue #18). Unknown keys are errors.')
  .superRefine((policy, context) => {
    // Rules JSON Schema cannot say; zod reports them with the key path like any other problem.
    if (policy.admin) {
      const parsed = parseAdminPinHash(policy.admin.pinHash);
      if ('problem' in parsed) context.addIssue({ code: 'custom', path: ['admin', 'pinHash'], message: `the PIN hash ${parsed.problem}` });
    }
    updateProblems(policy).forEach(([path, message]) => context.addIssue({ code: 'custom', path: ['updates', ...path], message }));
    if (policy.deviceKeyFile !== undefined && !isAbsolutePath(policy.deviceKeyFile)) {
      context.addIssue({
        code: 'custom',
        path: ['deviceKeyFile'],
        message: 'must be an absolute path (/etc/agentdesk/nfc-device.key, C:\\ProgramData\\AgentDesk\\nfc-device.key)',
      });
    }
    if (!policy.agents) return;
    const forcedOff = developmentForcedOff(policy);
    const seen = new Map<string, number>();
    policy.agents.list.forEach((agent, index) => {
      const url = normalizedUrl(agent.address);
      if ('problem' in url) return context.addIssue({ code: 'custom', path: ['agents', 'list', index, 'address'], message: url.problem });
      if (seen.has(url.url))
        return context.addIssue({ code: 'custom', path: ['agents', 'list', index, 'address'], message: `the same agent as list[${seen.get(url.url)!}]` });
      seen.set(url.url, index);
      if (agent.allowInsecureHttp === true) {
        // An http:// address is one on this computer or a private network (normalizedUrl refuses any other).
        if (!url.http)
          context.addIssue({
            code: 'custom',
            path: ['agents', 'list', index, 'allowInsecureHttp'],
            message: 'is only for an http:// address (this one is https://: leave it out)',
          });
      } else if (url.http && forcedOff) {
        context.addIssue({
          code: 'custom',
          path: ['agents', 'list', index, 'address'],
          message:
            'is http://, which needs the development setting, and this policy forces it off (add "allowInsecureHttp": true to this agent, for an address on this computer or a private network)',
        });
      }
      if (agent.forwardedProps !== undefined) {
        if (agent.kind !== 'agui')
          context.addIssue({ code: 'custom', path: ['agents', 'list', index, 'forwardedProps'], message: 'is only for a plain AG-UI agent ("kind": "agui")' });
        const parsed = parseForwardedProps(agent.forwardedProps);
        if (!parsed.ok)
          context.addIssue({
            code: 'custom',
            path: ['agents', 'list', index, 'forwardedProps'],
            message: parsed.problems[0]?.message ?? 'is not a JSON object',
          });
      }
    });
    if (policy.agents.start !== undefined) {
      const start = normalizedUrl(policy.agents.start);
      if ('problem' in start || !seen.has(start.url))
        context.addIssue({ code: 'custom', path: ['agents', 'start'], message: 'must be the address of one agent in agents.list' });
    }
  });

export type DevicePolicy = z.infer<typeof devicePolicySchema>;

export type PolicyAgent = z.infer<typeof policyAgentSchema>;

/** What a key the policy leaves out means. */
export const devicePolicyDefaults = {
  kiosk: false,
  agents: 'the user manages the list',
  idleResetSeconds: 'no idle reset',
  nfc: "the user's setting",
  camera: { allowed: true, filePicker: 'false in kiosk mode, else true' },
  idleAgentHoldSeconds: idleAgentHoldDefaultSeconds,
  voice: { allowed: true, mode: "the user's choice", bargeIn: "the user's setting" },
  language: "the user's setting",
  appearance: 'the user\'s settings; in kiosk mode textSize "large"',
  admin: 'no PIN',
  developmentSetting: '"forced-off" in kiosk mode, else "user"',
  deviceKeyFile: 'the OS keychain',
  updates: 'no updates',
} as const;

/** What the `updates` keys break together (each with its path under `updates`): rules JSON Schema cannot say. */
function updateProblems(policy: DevicePolicy): [path: string[], message: string][] {
  const updates = policy.updates;
  if (!updates) return [];
  const problems: [string[], string][] = [];
  if (updates.enabled && updates.url === undefined) problems.push([['url'], 'is needed when updates are enabled (the feed)']);
  if (updates.enabled && updates.publicKey === undefined) problems.push([['publicKey'], 'is needed when updates are enabled (an unsigned feed is never used)']);
  if (updates.url !== undefined) {
    const url = URL.canParse(updates.url) ? new URL(updates.url) : undefined;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) problems.push([['url'], 'must be an https:// address']);
    else if (url.protocol === 'http:' && !isLocalDevelopmentHost(url.hostname))
      problems.push([['url'], 'must be https:// (http:// only to this computer or the local network, under the development setting)']);
    else if (url.protocol === 'http:' && developmentForcedOff(policy))
      problems.push([['url'], 'is http://, which needs the development setting, and this policy forces it off']);
    else if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
      problems.push([['url'], 'must be a plain folder address (no user name, password, query or #fragment)']);
  }
  const install = updates.install;
  if (install === 'maintenance-window' && updates.maintenanceWindow === undefined)
    problems.push([['maintenanceWindow'], 'is needed with install "maintenance-window"']);
  if (install !== 'maintenance-window' && updates.maintenanceWindow !== undefined)
    problems.push([['maintenanceWindow'], 'is used only with install "maintenance-window"']);
  if (install === 'idle-reset' && (policy.kiosk !== true || policy.idleResetSeconds === undefined))
    problems.push([['install'], '"idle-reset" needs kiosk mode and idleResetSeconds (no idle reset happens without them)']);
  return problems;
}

/** The development setting (and pasted tokens) are forced off: said so, or by default in kiosk mode. */
export function developmentForcedOff(policy: DevicePolicy): boolean {
  return (policy.developmentSetting ?? (policy.kiosk ? 'forced-off' : 'user')) === 'forced-off';
}

/**
 * Photos from files ("Choose a picture…", the system's file dialog; a dropped picture): `camera.filePicker`,
 * default off in kiosk mode (the policy's `"kiosk": true`, or `kioskFlag`: `--kiosk`).
 */
export function filePickerAllowed(policy: DevicePolicy | undefined, kioskFlag = false): boolean {
  return policy?.camera?.filePicker ?? !(kioskFlag || policy?.kiosk === true);
}

/**
 * Who may change an agent's connection settings (a bearer token, forwardedProps, a pasted token, a
 * sign-out): the user outside kiosk mode; on a kiosk the administrator (`admin`: with the policy's PIN
 * entered), or nobody at the screen (`policy`: a kiosk whose policy has no PIN; only the policy sets them).
 * What one visitor changed would otherwise be what the next one gets.
 */
export function agentSettingsAccess(kiosk: boolean, adminPin: boolean): 'user' | 'admin' | 'policy' {
  if (!kiosk) return 'user';
  return adminPin ? 'admin' : 'policy';
}

/** How long the agent's own activity may hold the idle countdown off (`idleAgentHoldSeconds`, default 2 minutes). */
export function idleAgentHoldSeconds(policy: DevicePolicy | undefined): number {
  return policy?.idleAgentHoldSeconds ?? idleAgentHoldDefaultSeconds;
}

/**
 * The agents' addresses as the agent list stores them (normalized URLs), or why one is not an address.
 * An http:// address is taken only to this computer or a private network (localhost, private-range IP
 * addresses: the development setting's rule), so `allowInsecureHttp` can allow nothing else.
 */
export function normalizedUrl(address: string): { url: string; display: string; http: boolean } | { problem: string } {
  try {
    const normalized = normalizeAgentAddress(address, { allowLocalHttp: true });
    return { url: normalized.url, display: normalized.display, http: normalized.url.startsWith('http:') };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : 'is not an agent address' };
  }
}

function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

/** One setting the policy forces: its path in `Settings` and the value. */
export interface ForcedSetting {
  /** How people name it: `language`, `appearance.theme`, `developer.allowLocalHttp`, `nfc.kioskScan`. */
  key: 'language' | 'appearance.theme' | 'appearance.textSize' | 'developer.allowLocalHttp' | 'developer.allowPastedTokens' | 'nfc.kioskScan' | 'voice.bargeIn';
  value: string | boolean;
  /** The policy key that forces it. */
  policyKey: string;
}

/** The settings this policy forces (none without a policy). */
export function forcedSettings(policy: DevicePolicy | undefined): ForcedSetting[] {
  if (!policy) return [];
  const forced: ForcedSetting[] = [];
  if (policy.language !== undefined) forced.push({ key: 'language', value: policy.language, policyKey: 'language' });
  if (policy.appearance?.theme !== undefined) forced.push({ key: 'appearance.theme', value: policy.appearance.theme, policyKey: 'appearance.theme' });
  // A kiosk is read standing, at arm's length: large text unless the policy says otherwise (issue #27).
  const textSize = policy.appearance?.textSize ?? (policy.kiosk === true ? 'large' : undefined);
  if (textSize !== undefined)
    forced.push({ key: 'appearance.textSize', value: textSize, policyKey: policy.appearance?.textSize === undefined ? 'kiosk' : 'appearance.textSize' });
  if (developmentForcedOff(policy)) {
    forced.push({ key: 'developer.allowLocalHttp', value: false, policyKey: 'developmentSetting' });
    forced.push({ key: 'developer.allowPastedTokens', value: false, policyKey: 'developmentSetting' });
  }
  if (policy.nfc !== undefined) forced.push({ key: 'nfc.kioskScan', value: policy.nfc.armedScanning, policyKey: 'nfc.armedScanning' });
  if (policy.voice?.bargeIn !== undefined) forced.push({ key: 'voice.bargeIn', value: policy.voice.bargeIn, policyKey: 'voice.bargeIn' });
  return forced;
}

/**
 * The settings in force: the user's (from their settings file) with every key the policy sets
 * replaced by the policy's value. Whatever the user's file says, a forced key comes out as the
 * policy says, so a settings file can never loosen the policy. Pure; the input is not changed.
 */
export function settingsUnderPolicy(settings: Settings, policy: DevicePolicy | undefined): Settings {
  const result = JSON.parse(JSON.stringify(settings)) as Settings;
  for (const { key, value } of forcedSettings(policy)) {
    switch (key) {
      case 'language':
        result.language = value as Settings['language'];
        break;
      case 'appearance.theme':
        result.appearance.theme = value as Settings['appearance']['theme'];
        break;
      case 'appearance.textSize':
        result.appearance.textSize = value as Settings['appearance']['textSize'];
        break;
      case 'developer.allowLocalHttp':
        result.developer.allowLocalHttp = value as boolean;
        break;
      case 'developer.allowPastedTokens':
        result.developer.allowPastedTokens = value as boolean;
        break;
      case 'nfc.kioskScan':
        result.nfc = {
          debounceMs: result.nfc?.debounceMs ?? 2_000,
          readerFeedback: result.nfc?.readerFeedback ?? false,
          ...result.nfc,
          kioskScan: value as boolean,
        };
        break;
      case 'voice.bargeIn':
        result.voice = { consents: result.voice?.consents ?? [], ...result.voice, bargeIn: value as BargeInSetting };
        break;
    }
  }
  return result;
}

/** The value a settings patch gives `key`, if it touches it. */
function patchValue(patch: SettingsPatchLike, key: ForcedSetting['key']): unknown {
  const [group, field] = key.split('.') as [string, string | undefined];
  const part = (patch as Record<string, unknown>)[group];
  if (field === undefined) return part;
  return part !== null && typeof part === 'object' ? (part as Record<string, unknown>)[field] : undefined;
}

type SettingsPatchLike = { language?: unknown; appearance?: unknown; developer?: unknown; nfc?: unknown; voice?: unknown };

/**
 * The forced settings a patch would change (to another value than the policy's): the update is
 * refused with these named. A patch that repeats the forced value (a form sending every field) passes.
 */
export function policyRefusals(patch: SettingsPatchLike, policy: DevicePolicy | undefined): ForcedSetting[] {
  return forcedSettings(policy).filter((forced) => {
    const value = patchValue(patch, forced.key);
    return value !== undefined && value !== forced.value;
  });
}

/** What the policy does, one line per key, for `agentdesk policy check` and the README. */
export function describeDevicePolicy(policy: DevicePolicy): string[] {
  const lines: string[] = [`policy version ${policy.policyVersion}`];
  lines.push(policy.kiosk ? 'kiosk mode: on' : 'kiosk mode: off');
  if (policy.agents) {
    const start = policy.agents.start === undefined ? undefined : normalizedUrl(policy.agents.start);
    lines.push(`agents: locked to ${policy.agents.list.length} (no add, no remove, no rename, no other address, no built-in demo)`);
    for (const agent of policy.agents.list) {
      const url = normalizedUrl(agent.address);
      const isStart = start !== undefined && 'url' in start && 'url' in url && start.url === url.url;
      lines.push(
        `  ${'url' in url ? url.url : agent.address}${agent.name ? ` "${agent.name}"` : ''}${agent.kind === 'agui' ? ' (plain AG-UI)' : ''}${isStart ? ' (start)' : ''}`,
      );
      if (agent.allowInsecureHttp === true)
        lines.push(
          '    allowInsecureHttp: its traffic is unencrypted (http:// without TLS: messages, photos, tags and tokens can be read and changed by anyone on that network)',
        );
      if (agent.forwardedProps !== undefined)
        lines.push(
          `    forwardedProps: ${agent.forwardedProps.length > 200 ? `${agent.forwardedProps.slice(0, 199)}…` : agent.forwardedProps} (set by the policy)`,
        );
    }
    if (policy.agents.start === undefined) lines.push('start agent: none (the home screen)');
  } else lines.push('agents: the user manages the list');
  lines.push(
    policy.idleResetSeconds === undefined
      ? 'idle reset: off'
      : `idle reset: after ${policy.idleResetSeconds} s without input (kiosk mode), then a 10 s countdown`,
  );
  if (policy.idleResetSeconds !== undefined) {
    const hold = idleAgentHoldSeconds(policy);
    lines.push(
      hold === 0
        ? 'idle hold: none (the agent speaking or answering does not hold the countdown off)'
        : `idle hold: the agent speaking or answering holds the countdown off for at most ${hold} s more`,
    );
  }
  lines.push(policy.nfc ? `NFC armed scanning: ${policy.nfc.armedScanning ? 'on' : 'off'} (forced)` : "NFC armed scanning: the user's setting");
  lines.push(`camera: ${policy.camera?.allowed === false ? 'not allowed' : 'allowed'}`);
  lines.push(
    filePickerAllowed(policy)
      ? 'photos from files: allowed ("Choose a picture…" opens the system\'s file dialog)'
      : 'photos from files: not allowed (no file dialog)',
  );
  lines.push(
    `voice: ${policy.voice?.allowed === false ? 'not allowed (no microphone)' : 'allowed'}${policy.voice?.mode ? `, mode ${policy.voice.mode} (forced)` : ''}`,
  );
  for (const forced of forcedSettings(policy)) lines.push(`setting ${forced.key}: ${String(forced.value)} (forced by ${forced.policyKey})`);
  lines.push(
    policy.admin
      ? `admin PIN: set (settings and diagnostics need it; after ${adminPinLockout.freeTries} wrong tries each one locks it, from ${adminPinLockout.firstWaitSeconds} s doubling to ${adminPinLockout.maxWaitSeconds / 60} min)`
      : 'admin PIN: none',
  );
  lines.push(developmentForcedOff(policy) ? 'development setting: forced off' : "development setting: the user's");
  lines.push(policy.deviceKeyFile ? `NFC device key: the file ${policy.deviceKeyFile}` : 'NFC device key: the OS keychain');
  const updates = policy.updates;
  if (!updates?.enabled) lines.push('updates: off');
  else {
    const install = updates.install ?? (policy.kiosk ? 'idle-reset' : 'on-quit');
    const when =
      install === 'maintenance-window'
        ? `inside ${updates.maintenanceWindow} (local time)`
        : install === 'idle-reset'
          ? 'right after an idle reset'
          : 'when AgentDesk is closed';
    lines.push(`updates: from ${updates.url} (channel ${updates.channel ?? 'latest'}, signed feed only), installed ${when}, never during a conversation`);
  }
  return lines;
}

/** The JSON Schema for editors, generated from `devicePolicySchema` (what the checked-in file must equal). */
export function devicePolicyJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(devicePolicySchema, { target: 'draft-2020-12', io: 'input' }), title: 'AgentDesk device policy' };
}
