import type { IpcErrorCode } from '../../shared/ipc/errors';

/**
 * Every user-facing string of the renderer, in one place. `en` is the source catalogue; `cs` must
 * have exactly the same keys (a missing one fails the typecheck). Placeholders are written
 * `{name}` and filled by `format()`; every placeholder of an English string must also appear in
 * its translation (a unit test checks this).
 */
export const en = {
  'app.name': 'AgentDesk',

  'shell.skipToContent': 'Skip to content',
  'shell.settings': 'Settings',
  'shell.connectionLost': 'Connection to AgentDesk was lost. Restart the app.',
  'shell.noticesTitle': 'Notice from start-up',
  'shell.dismissNotices': 'Dismiss',
  'shell.dismissNoticesLabel': 'Dismiss the start-up notice',

  'missing.title': 'AgentDesk is not connected',
  'missing.body': 'AgentDesk must be opened with npm start (or by starting the AgentDesk app). This page cannot reach the app on its own.',
  'missing.hint':
    'Run npm start in the AgentDesk folder, or start the AgentDesk app again. A saved link or bookmark does not work, because the address changes every time the app starts.',

  'home.title': 'Your agents',
  'home.loading': 'Loading your agents…',
  'home.loadFailed': 'Your agents could not be loaded.',
  'home.retry': 'Try again',
  'home.empty': 'No agents yet. Add one by its address, or try the built-in demo.',
  'home.listLabel': 'Added agents',
  'home.remove': 'Remove',
  'home.removeNamed': 'Remove {name}',
  'home.removed': 'Removed {name}',
  'home.removeFailed': '{name} could not be removed.',

  'add.title': 'Add an agent',
  'add.label': 'Agent address',
  'add.placeholder': 'crm.example.com',
  'add.hint': 'The address you got from the agent’s provider, for example crm.example.com.',
  'add.submit': 'Add',
  'add.busy': 'Adding…',
  'add.added': 'Added {name}',

  'demo.title': 'Built-in demo',
  'demo.body': 'A demo agent lets you try chat, voice, NFC tags and photos without an account.',
  'demo.unavailable': 'The demo agent is not part of this version yet.',
  'demo.open': 'Open demo',

  'hardware.title': 'Hardware',
  'hardware.nfc': 'NFC readers',
  'hardware.cameras': 'Cameras',
  'hardware.microphones': 'Microphones',
  'hardware.checking': 'Checking…',
  'hardware.notAvailable': 'Not available',
  'hardware.nfcReady': 'Ready',
  'hardware.nfcNoReaders': 'No reader connected.',
  'hardware.readerConnected': '{name} – connected',
  'hardware.readerDisconnected': '{name} – not connected',
  'hardware.found': 'Found: {count}',
  'hardware.noneFound': 'None found.',
  'hardware.cameraNumbered': 'Camera {number}',
  'hardware.microphoneNumbered': 'Microphone {number}',
  'hardware.labelsHint': 'Device names appear after you allow the camera or microphone in a conversation.',

  'settings.title': 'Settings',
  'settings.back': 'Back',
  'settings.loading': 'Loading settings…',
  'settings.loadFailed': 'Settings could not be loaded.',
  'settings.retry': 'Try again',
  'settings.saved': 'Saved',
  'settings.language.legend': 'Language',
  'settings.language.label': 'Display language',
  'settings.language.description': 'The language of menus, buttons and messages.',
  'settings.language.system': 'System default',
  'settings.language.en': 'English',
  'settings.language.cs': 'Čeština',
  'settings.appearance.legend': 'Appearance',
  'settings.theme.legend': 'Theme',
  'settings.theme.description': 'System follows the light or dark mode of your computer.',
  'settings.theme.system': 'System',
  'settings.theme.light': 'Light',
  'settings.theme.dark': 'Dark',
  'settings.textSize.legend': 'Text size',
  'settings.textSize.description': 'Large text is easier to read on a touch screen or from a distance.',
  'settings.textSize.normal': 'Normal',
  'settings.textSize.large': 'Large',
  'settings.developer.legend': 'Developer',
  'settings.developer.description': 'For building and testing agents. Leave these off for everyday use.',
  'settings.allowLocalHttp.label': 'Allow http:// to this computer and the local network (development only)',
  'settings.allowLocalHttp.description': 'Lets you add agents at localhost, 127.0.0.1 and private network addresses without encryption.',
  'settings.allowPastedTokens.label': 'Allow pasting access tokens instead of signing in (developer switch)',
  'settings.allowPastedTokens.description': 'A pasted token gives full access to the account; use it only with your own test accounts.',
  'settings.about.title': 'About',
  'settings.about.line': '{name} {version} · {shell}',
  'settings.about.shell.electron': 'desktop app',
  'settings.about.shell.web': 'web shell',
  'settings.about.unavailable': 'Version information is not available.',

  'error.invalid_request': 'The request was not valid.',
  'error.forbidden_sender': 'This page is not allowed to talk to AgentDesk.',
  'error.internal': 'Something went wrong inside AgentDesk. The details are in its log.',
  'error.invalid_response': 'AgentDesk gave an unexpected answer.',
  'error.invalid_address': 'This address cannot be used.',
  'error.insecure_scheme': 'Unencrypted http:// is only allowed for development.',
  'error.already_exists': 'This agent is already in your list.',
  'error.not_found': 'That item no longer exists.',
  'error.unsafe_url': 'Only https:// links can be opened.',
  'error.no_user_gesture': 'A link can only be opened right after a click or a key press.',
  'error.no_browser': 'No web browser could be started.',
  'error.disconnected': 'The connection to AgentDesk was lost. Restart the app.',
  'error.unknown': 'Something went wrong.',
};

export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;

export const cs: Catalogue = {
  'app.name': 'AgentDesk',

  'shell.skipToContent': 'Přeskočit na obsah',
  'shell.settings': 'Nastavení',
  'shell.connectionLost': 'Spojení s aplikací AgentDesk bylo ztraceno. Spusťte aplikaci znovu.',
  'shell.noticesTitle': 'Upozornění při spuštění',
  'shell.dismissNotices': 'Zavřít',
  'shell.dismissNoticesLabel': 'Zavřít upozornění při spuštění',

  'missing.title': 'AgentDesk není připojen',
  'missing.body': 'AgentDesk je potřeba otevřít příkazem npm start (nebo spuštěním aplikace AgentDesk). Tato stránka se k aplikaci sama připojit nedokáže.',
  'missing.hint':
    'Spusťte npm start ve složce AgentDesk nebo znovu spusťte aplikaci AgentDesk. Uložený odkaz ani záložka nefungují, protože se adresa při každém spuštění mění.',

  'home.title': 'Vaši agenti',
  'home.loading': 'Načítám vaše agenty…',
  'home.loadFailed': 'Vaše agenty se nepodařilo načíst.',
  'home.retry': 'Zkusit znovu',
  'home.empty': 'Zatím žádní agenti. Přidejte agenta podle jeho adresy nebo vyzkoušejte vestavěné demo.',
  'home.listLabel': 'Přidaní agenti',
  'home.remove': 'Odebrat',
  'home.removeNamed': 'Odebrat {name}',
  'home.removed': 'Odebráno: {name}',
  'home.removeFailed': '{name} se nepodařilo odebrat.',

  'add.title': 'Přidat agenta',
  'add.label': 'Adresa agenta',
  'add.placeholder': 'crm.example.com',
  'add.hint': 'Adresa, kterou jste dostali od poskytovatele agenta, například crm.example.com.',
  'add.submit': 'Přidat',
  'add.busy': 'Přidávám…',
  'add.added': 'Přidáno: {name}',

  'demo.title': 'Vestavěné demo',
  'demo.body': 'Ukázkový agent, se kterým si vyzkoušíte chat, hlas, NFC štítky a fotografie bez účtu.',
  'demo.unavailable': 'Ukázkový agent zatím není součástí této verze.',
  'demo.open': 'Otevřít demo',

  'hardware.title': 'Hardware',
  'hardware.nfc': 'Čtečky NFC',
  'hardware.cameras': 'Kamery',
  'hardware.microphones': 'Mikrofony',
  'hardware.checking': 'Zjišťuji…',
  'hardware.notAvailable': 'Není k dispozici',
  'hardware.nfcReady': 'Připraveno',
  'hardware.nfcNoReaders': 'Není připojena žádná čtečka.',
  'hardware.readerConnected': '{name} – připojeno',
  'hardware.readerDisconnected': '{name} – nepřipojeno',
  'hardware.found': 'Nalezeno: {count}',
  'hardware.noneFound': 'Nic nenalezeno.',
  'hardware.cameraNumbered': 'Kamera {number}',
  'hardware.microphoneNumbered': 'Mikrofon {number}',
  'hardware.labelsHint': 'Názvy zařízení se zobrazí, až v konverzaci povolíte kameru nebo mikrofon.',

  'settings.title': 'Nastavení',
  'settings.back': 'Zpět',
  'settings.loading': 'Načítám nastavení…',
  'settings.loadFailed': 'Nastavení se nepodařilo načíst.',
  'settings.retry': 'Zkusit znovu',
  'settings.saved': 'Uloženo',
  'settings.language.legend': 'Jazyk',
  'settings.language.label': 'Jazyk aplikace',
  'settings.language.description': 'Jazyk nabídek, tlačítek a zpráv.',
  'settings.language.system': 'Podle systému',
  'settings.language.en': 'English',
  'settings.language.cs': 'Čeština',
  'settings.appearance.legend': 'Vzhled',
  'settings.theme.legend': 'Motiv',
  'settings.theme.description': 'Možnost Podle systému se řídí světlým nebo tmavým režimem počítače.',
  'settings.theme.system': 'Podle systému',
  'settings.theme.light': 'Světlý',
  'settings.theme.dark': 'Tmavý',
  'settings.textSize.legend': 'Velikost písma',
  'settings.textSize.description': 'Velké písmo se lépe čte na dotykové obrazovce nebo z dálky.',
  'settings.textSize.normal': 'Normální',
  'settings.textSize.large': 'Velké',
  'settings.developer.legend': 'Pro vývojáře',
  'settings.developer.description': 'Pro vývoj a testování agentů. Při běžném používání je nechte vypnuté.',
  'settings.allowLocalHttp.label': 'Povolit http:// k tomuto počítači a do místní sítě (jen pro vývoj)',
  'settings.allowLocalHttp.description': 'Umožní přidat agenty na localhost, 127.0.0.1 a soukromých síťových adresách bez šifrování.',
  'settings.allowPastedTokens.label': 'Povolit vložení přístupového tokenu místo přihlášení (vývojářský přepínač)',
  'settings.allowPastedTokens.description': 'Vložený token dává plný přístup k účtu; používejte ho jen s vlastními testovacími účty.',
  'settings.about.title': 'O aplikaci',
  'settings.about.line': '{name} {version} · {shell}',
  'settings.about.shell.electron': 'desktopová aplikace',
  'settings.about.shell.web': 'webové prostředí',
  'settings.about.unavailable': 'Informace o verzi nejsou k dispozici.',

  'error.invalid_request': 'Požadavek nebyl platný.',
  'error.forbidden_sender': 'Tato stránka nesmí komunikovat s aplikací AgentDesk.',
  'error.internal': 'V aplikaci AgentDesk se něco pokazilo. Podrobnosti jsou v jejím protokolu.',
  'error.invalid_response': 'AgentDesk vrátil neočekávanou odpověď.',
  'error.invalid_address': 'Tuto adresu nelze použít.',
  'error.insecure_scheme': 'Nešifrované http:// je povoleno jen pro vývoj.',
  'error.already_exists': 'Tento agent už ve vašem seznamu je.',
  'error.not_found': 'Tato položka už neexistuje.',
  'error.unsafe_url': 'Otevřít lze jen odkazy https://.',
  'error.no_user_gesture': 'Odkaz lze otevřít jen hned po kliknutí nebo stisku klávesy.',
  'error.no_browser': 'Nepodařilo se spustit webový prohlížeč.',
  'error.disconnected': 'Spojení s aplikací AgentDesk bylo ztraceno. Spusťte aplikaci znovu.',
  'error.unknown': 'Něco se pokazilo.',
};

export type Language = 'en' | 'cs';

export const catalogues: Readonly<Record<Language, Catalogue>> = { en, cs };

export type MessageParams = Readonly<Record<string, string | number>>;

/** Fills `{name}` placeholders; a placeholder without a value is left as it is. */
export function format(template: string, params?: MessageParams): string {
  if (!params) return template;
  return template.replace(/\{([a-zA-Z0-9_]+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** The placeholders a template uses, for example `['name']` for `'Added {name}'`. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((match) => match[1] ?? '');
}

export function translate(language: Language, key: MessageKey, params?: MessageParams): string {
  return format(catalogues[language][key], params);
}

/** `system` follows the browser: Czech when `navigator.language` starts with `cs`, else English. */
export function resolveLanguage(setting: 'system' | Language, navigatorLanguage: string | undefined): Language {
  if (setting !== 'system') return setting;
  return navigatorLanguage?.toLowerCase().startsWith('cs') ? 'cs' : 'en';
}

/** The catalogue key for an IPC error code; every code has one (checked by the typecheck). */
export function errorKey(code: IpcErrorCode): MessageKey {
  const key: `error.${IpcErrorCode}` = `error.${code}`;
  return key satisfies MessageKey;
}
