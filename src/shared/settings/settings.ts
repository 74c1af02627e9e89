import { z } from 'zod';
import { defaultNfcSettings, nfcSettingsSchema, type NfcSettings } from '../nfc/ipc-schemas';
import type { SavedDocument, SavedFileFormat } from '../storage/saved-file-format';
import { sameTalkieServer, type TalkieServerKey } from '../talkie/manifest';
import { acceleratorSchema } from '../talkie/voice/call-shortcut';

/** Dismissed notices kept at most (the oldest dismissal goes first). */
export const maxDismissedNotices = 50;
/** Talkie servers whose voice consent is kept at most (the oldest goes first). */
export const maxVoiceConsents = 200;

/** What the user can change in Settings. Stored by main in the user-data folder, validated on load. */
export const themeSchema = z.enum(['system', 'light', 'dark']);
export const textSizeSchema = z.enum(['normal', 'large']);
export const languageSchema = z.enum(['system', 'en', 'cs']);
/** How the browser hands a sign-in back: a loopback address (RFC 8252 §7.3) or the app's own scheme (§7.1, desktop app only). */
export const signInRedirectSchema = z.enum(['loopback', 'private-use']);

/**
 * Barge-in for client-owned voice (speech while the agent speaks stops it and cancels its answer):
 * `automatic` is on when the page's audio devices look like headphones or a headset (the rule:
 * src/renderer/voice/barge-in.ts), `on` and `off` say so themselves.
 */
export const bargeInSettingSchema = z.enum(['automatic', 'on', 'off']);
export type BargeInSetting = z.infer<typeof bargeInSettingSchema>;

/** One server's voice consent: its serverId at its origin (the manifest's `issuer`; version 4), and the hosts the user was told. */
const voiceConsentSchema = z.strictObject({
  serverId: z.string().min(1).max(256),
  issuer: z.string().min(1).max(2048),
  signalingHosts: z.array(z.string().min(1).max(253)).min(1).max(20),
});
export type VoiceConsent = z.infer<typeof voiceConsentSchema>;

export const settingsSchema = z.strictObject({
  schemaVersion: z.literal(4),
  language: languageSchema,
  appearance: z.strictObject({
    theme: themeSchema,
    textSize: textSizeSchema,
  }),
  developer: z.strictObject({
    /** The "development setting": http:// to localhost, 127.0.0.1 and private LAN addresses. */
    allowLocalHttp: z.boolean(),
    /** The developer switch that allows pasting a bearer token instead of signing in. */
    allowPastedTokens: z.boolean(),
  }),
  /** Optional so that settings files written before it existed still load. */
  signIn: z.strictObject({ redirect: signInRedirectSchema }).optional(),
  /** NFC scanning (debounce, kiosk policy, reader LED/buzzer). Optional so that older settings files still load; read it through nfcSettingsOf. */
  nfc: nfcSettingsSchema.optional(),
  /** The notices (their text) the user dismissed: they are not shown again, also after a restart. Optional so that older settings files still load. */
  notices: z.strictObject({ dismissed: z.array(z.string().max(2000)).max(maxDismissedNotices) }).optional(),
  /**
   * Talkie 1 voice (§12): the servers (each its serverId at its origin) whose first call the user agreed
   * to, with the speech provider hosts they were told their voice goes to; a server that names another
   * host asks again, and so does a server on another origin that claims the same serverId.
   * Optional so that older settings files still load; read it through `voiceConsentGiven`.
   */
  voice: z
    .strictObject({
      consents: z.array(voiceConsentSchema).max(maxVoiceConsents),
      /** The call's global shortcut (Electron accelerator, canonical form; call-shortcut.ts); absent: the default. Version 2. */
      shortcut: acceleratorSchema.optional(),
      /** Barge-in (client-owned voice); absent: `automatic`. Version 3. */
      bargeIn: bargeInSettingSchema.optional(),
    })
    .optional(),
});

export type Settings = z.infer<typeof settingsSchema>;

/**
 * `settings.json`: a change of `settingsSchema` adds a version and its migration here. Version 2
 * adds `voice.shortcut` (the strict schema of version 1 would refuse such a file, so it is a new
 * version: an older app leaves it untouched); 1 → 2 converts nothing. Version 3 adds
 * `voice.bargeIn` (the same reason); 2 → 3 converts nothing (no value means `automatic`). Version 4
 * keys voice consents by serverId and origin; the consents of 3 name the serverId alone, not the
 * origin whose server the user agreed to, so 3 → 4 drops them (any server can claim a serverId, so no
 * origin can be assumed for one): the next call to each server asks once more.
 */
export const settingsFileFormat: SavedFileFormat = {
  versionField: 'schemaVersion',
  current: 4,
  migrations: { 1: (document) => document, 2: (document) => document, 3: withoutVoiceConsents },
};

function withoutVoiceConsents(document: SavedDocument): SavedDocument {
  const voice = document.voice;
  if (voice === null || typeof voice !== 'object' || Array.isArray(voice)) return document;
  return { ...document, voice: { ...voice, consents: [] } };
}

export const defaultSettings: Settings = {
  schemaVersion: 4,
  language: 'system',
  appearance: { theme: 'system', textSize: 'normal' },
  developer: { allowLocalHttp: false, allowPastedTokens: false },
  signIn: { redirect: 'loopback' },
  nfc: { ...defaultNfcSettings },
};

export const settingsPatchSchema = z.strictObject({
  language: languageSchema.optional(),
  appearance: settingsSchema.shape.appearance.partial().optional(),
  developer: settingsSchema.shape.developer.partial().optional(),
  signIn: z.strictObject({ redirect: signInRedirectSchema }).optional(),
  nfc: nfcSettingsSchema.partial().optional(),
  /** Replaces the list of dismissed notices. */
  notices: settingsSchema.shape.notices,
  /** Remembers the user's consent to one server's voice calls (replacing that server's earlier one). */
  voiceConsent: voiceConsentSchema.optional(),
  /** The call's global shortcut; null goes back to the default. */
  voiceShortcut: acceleratorSchema.nullable().optional(),
  /** Barge-in (client-owned voice). Named by its path, as a device policy names what it forces. */
  voice: z.strictObject({ bargeIn: bargeInSettingSchema }).optional(),
});

export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export function applySettingsPatch(current: Settings, patch: SettingsPatch): Settings {
  return {
    ...current,
    language: patch.language ?? current.language,
    appearance: { ...current.appearance, ...patch.appearance },
    developer: { ...current.developer, ...patch.developer },
    signIn: { redirect: patch.signIn?.redirect ?? current.signIn?.redirect ?? 'loopback' },
    nfc: { ...nfcSettingsOf(current), ...patch.nfc },
    ...((patch.notices ?? current.notices) ? { notices: patch.notices ?? current.notices } : {}),
    ...withVoice(current.voice, patch),
  };
}

function withVoice(current: Settings['voice'], patch: SettingsPatch): Pick<Settings, 'voice'> {
  if (!patch.voiceConsent && patch.voiceShortcut === undefined && patch.voice === undefined) return current ? { voice: current } : {};
  const consents = patch.voiceConsent ? withConsent(current?.consents ?? [], patch.voiceConsent) : (current?.consents ?? []);
  const shortcut = patch.voiceShortcut === undefined ? current?.shortcut : (patch.voiceShortcut ?? undefined);
  const bargeIn = patch.voice?.bargeIn ?? current?.bargeIn;
  return { voice: { consents, ...(shortcut === undefined ? {} : { shortcut }), ...(bargeIn === undefined ? {} : { bargeIn }) } };
}

function withConsent(consents: readonly VoiceConsent[], consent: VoiceConsent): VoiceConsent[] {
  return [...consents.filter((entry) => !sameTalkieServer(entry, consent)), consent].slice(-maxVoiceConsents);
}

/** The user agreed to this server's (its serverId at its origin) voice calls, told every host its audio may go to now (Talkie 1 §12). */
export function voiceConsentGiven(settings: Settings, server: TalkieServerKey, signalingHosts: readonly string[]): boolean {
  const consent = settings.voice?.consents.find((entry) => sameTalkieServer(entry, server));
  return consent !== undefined && signalingHosts.every((host) => consent.signalingHosts.includes(host));
}

/** The barge-in setting in force: a settings file without one means `automatic`. */
export function bargeInSettingOf(settings: Settings): BargeInSetting {
  return settings.voice?.bargeIn ?? 'automatic';
}

/** The NFC settings in force: a settings file written before they existed has none, which means the defaults. */
export function nfcSettingsOf(settings: Settings): NfcSettings {
  return settings.nfc ?? { ...defaultNfcSettings };
}
