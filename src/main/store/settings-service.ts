import { join } from 'node:path';
import { applySettingsPatch, defaultSettings, settingsFileFormat, settingsSchema, type Settings, type SettingsPatch } from '../../shared/settings/settings';
import type { EventBus } from '../ipc/event-bus';
import type { NoticeSink } from './notices';
import { JsonFileStore } from './json-file-store';
import { Listeners } from '../../shared/listeners';

export class SettingsService {
  private readonly listeners = new Listeners();

  private constructor(
    private readonly store: JsonFileStore<typeof settingsSchema>,
    private current: Settings,
    private readonly events: EventBus,
  ) {}

  static async open(userDataDir: string, events: EventBus, notices: NoticeSink): Promise<SettingsService> {
    const store = new JsonFileStore(join(userDataDir, 'settings.json'), settingsSchema, () => structuredClone(defaultSettings), settingsFileFormat);
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new SettingsService(store, value, events);
  }

  get(): Settings {
    return structuredClone(this.current);
  }

  async update(patch: SettingsPatch): Promise<Settings> {
    const next = applySettingsPatch(this.current, patch);
    await this.store.save(next);
    this.current = next;
    this.events.emit('settings.changed', this.get());
    this.listeners.emit();
    return this.get();
  }

  /** Main-side services that act on a change (the renderer gets the `settings.changed` event). */
  onChanged(listener: (settings: Settings) => void): () => void {
    // Each listener gets its own copy, as get() gives.
    return this.listeners.subscribe(() => listener(this.get()));
  }
}
