import type { HandlerTable } from '../ipc/handler-table';
import type { Notices } from '../store/notices';
import type { SettingsService } from '../store/settings-service';
import { openExternalLink, type OpenExternal } from './external-links';
import type { MediaPermissions } from './media-permissions';
import type { UiMemory } from './ui-memory';

/** The app's own methods: `app.info`, `ui.*` (what the window remembers), `settings.*`, `external.open`, `media.*`. */
export function appHandlers(deps: {
  version: string;
  shell: 'electron' | 'web';
  notices: Notices;
  settings: SettingsService;
  uiMemory: UiMemory;
  openExternal: OpenExternal;
  media: MediaPermissions;
}): HandlerTable<'app' | 'ui' | 'settings' | 'external' | 'media'> {
  const { notices, settings, uiMemory, media } = deps;
  return {
    'ui.restore': () => uiMemory.restore(),
    'ui.saveScreen': ({ screen }) => uiMemory.saveScreen(screen),
    'ui.saveDraft': ({ key, text }) => uiMemory.saveDraft(key, text),
    'app.info': () => ({ name: 'AgentDesk', version: deps.version, shell: deps.shell, platform: process.platform, notices: notices.list() }),
    'settings.get': () => settings.get(),
    'settings.update': ({ patch }) => settings.update(patch),
    'external.open': async ({ url }) => {
      await openExternalLink(url, deps.openExternal);
      return { opened: true as const };
    },
    'media.arm': ({ kinds }) => ({ armed: media.arm(kinds) }),
    'media.disarm': ({ kinds }) => ({ armed: media.disarm(kinds) }),
  };
}
