import { join } from 'node:path';
import { policyRefusals, settingsUnderPolicy, type DevicePolicy } from '../../shared/device-policy/device-policy';
import { ServiceError } from '../../shared/base/errors';
import {
  applySettingsPatch,
  defaultSettings,
  settingsFileFormat,
  settingsSchema,
  type Settings,
  type SettingsPatch,
  type VoiceConsent,
} from '../../shared/settings/settings';
import type { EventBus } from '../ipc/event-bus';
import type { NoticeSink } from './notices';
import { JsonFileStore } from './json-file-store';
import { Listeners } from '../../shared/base/listeners';

/**
 * The user's settings (`settings.json`) under the device policy: `get()` is always the settings in
 * force (every key the policy sets forced, whatever the file says: `settingsUnderPolicy`), and an
 * update that would change a forced key is refused (`not_allowed`, naming it). The file keeps the
 * user's own values, so they come back if the administrator removes the policy.
 */
export class SettingsService {
  private readonly listeners = new Listeners();

  private constructor(
    private readonly store: JsonFileStore<typeof settingsSchema>,
    /** As the user set them (the file). */
    private current: Settings,
    private readonly events: EventBus,
    private readonly policy: DevicePolicy | undefined,
    private readonly policyFile: string | undefined,
  ) {}

  static async open(
    userDataDir: string,
    events: EventBus,
    notices: NoticeSink,
    devicePolicy?: { policy: DevicePolicy; file: string },
  ): Promise<SettingsService> {
    const store = new JsonFileStore(join(userDataDir, 'settings.json'), settingsSchema, () => structuredClone(defaultSettings), settingsFileFormat);
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new SettingsService(store, value, events, devicePolicy?.policy, devicePolicy?.file);
  }

  /** The settings in force. */
  get(): Settings {
    return settingsUnderPolicy(this.current, this.policy);
  }

  async update(patch: SettingsPatch): Promise<Settings> {
    const refused = policyRefusals(patch, this.policy);
    if (refused.length > 0) {
      const keys = refused.map((forced) => forced.key).join(', ');
      throw new ServiceError('not_allowed', `The administrator's device policy (${this.policyFile ?? 'policy'}) sets ${keys}; it cannot be changed here.`);
    }
    const next = applySettingsPatch(this.current, patch);
    await this.store.save(next);
    this.current = next;
    this.events.emit('settings.changed', this.get());
    this.listeners.emit();
    return this.get();
  }

  /** The voice consents given (per Talkie server), as they are now. */
  voiceConsents(): VoiceConsent[] {
    return structuredClone(this.current.voice?.consents ?? []);
  }

  /**
   * The kiosk's reset: the voice consents back to `consents` (what they were when the kiosk started),
   * so the next visitor is told where their voice goes as the last one was. Nothing is saved when unchanged.
   */
  async restoreVoiceConsents(consents: readonly VoiceConsent[]): Promise<void> {
    if (JSON.stringify(this.current.voice?.consents ?? []) === JSON.stringify(consents)) return;
    const next: Settings = { ...this.current, voice: { ...this.current.voice, consents: structuredClone([...consents]) } };
    await this.store.save(next);
    this.current = next;
    this.events.emit('settings.changed', this.get());
    this.listeners.emit();
  }

  /** Main-side services that act on a change (the renderer gets the `settings.changed` event). */
  onChanged(listener: (settings: Settings) => void): () => void {
    // Each listener gets its own copy, as get() gives.
    return this.listeners.subscribe(() => listener(this.get()));
  }
}
