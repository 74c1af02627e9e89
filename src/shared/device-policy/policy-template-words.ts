/**
 * The words of each device policy key in the Windows templates and the macOS profile (issue #28),
 * and the one thing the schema cannot say: whether a user may have their own value (`perUser`: the
 * key may also be set per user, HKCU or a user's managed preferences; the machine's value wins).
 * Everything else a template says — the registry key, the value's type, the range, the choices, the
 * item fields of a list, the default sentences — comes from the schema (policy-leaves.ts).
 *
 * A key added to the device policy schema needs its entry here (English title; Czech title and
 * Czech help, the English help being the schema's own `.describe()`): the templates' test names the
 * key until it has one. An enum value without a label is shown as the value itself.
 */

export interface PolicyLeafWords {
  title: { en: string; cs: string };
  /** The Czech of the schema's description. */
  helpCs: string;
  /** Labels of an enum's values (default: the value itself, in both languages). */
  values?: Record<string, { en: string; cs: string }>;
  /** A list of objects: the Czech of each item field's description. */
  itemHelpCs?: Record<string, string>;
  /** May also be set for one user (HKCU, a user's managed preferences). Default: the whole machine only. */
  perUser?: true;
}

export const policyGroupWords: Record<string, { en: string; cs: string }> = {
  agents: { en: 'Agents', cs: 'Agenti' },
  nfc: { en: 'NFC', cs: 'NFC' },
  camera: { en: 'Camera', cs: 'Kamera' },
  voice: { en: 'Voice', cs: 'Hlas' },
  appearance: { en: 'Appearance', cs: 'Vzhled' },
  admin: { en: 'Administrator', cs: 'Správce' },
  updates: { en: 'Updates', cs: 'Aktualizace' },
};

export const policyLeafWords: Record<string, PolicyLeafWords> = {
  kiosk: {
    title: { en: 'Kiosk mode', cs: 'Režim kiosku' },
    helpCs: 'Režim kiosku. Problém se zásadami pak místo odmítnutí spuštění ukáže chybovou obrazovku. Výchozí: vypnuto.',
  },
  'agents.list': {
    title: { en: 'Locked agent list', cs: 'Uzamčený seznam agentů' },
    helpCs:
      'Agenti v tomto pořadí. Seznam je uzamčený: uživatelé nemohou agenty přidávat, odebírat ani přejmenovávat a nemohou otevřít žádnou jinou adresu (ani vestavěné demo).',
    itemHelpCs: {
      address: 'Adresa agenta tak, jak ji bere „Přidat agenta“: hostitel, adresa https://, adresa manifestu Talkie nebo karty agenta A2A.',
      name: 'Jméno, které ukazují seznamy (místo vlastního jména agenta nebo jeho adresy).',
      kind: '"agui": adresa je prostý koncový bod AG-UI (POST + SSE). Výchozí "auto": přečte se manifest Talkie a karta A2A.',
      allowInsecureHttp:
        'true: adresa http:// tohoto agenta se používá bez TLS, záměrně (vlastní server dílny v místní síti), ať vývojářské nastavení říká cokoli; jen pro tohoto agenta. Jen pro adresu http:// na tomto počítači nebo v soukromé síti (localhost, 127.x, 10.x, 172.16–31.x, 192.168.x, fc00::/7): jeho provoz včetně tokenů jde po té síti nešifrovaně.',
      forwardedProps:
        'Prostí agenti AG-UI ("kind": "agui"): forwardedProps, které posílá každý běh, jako text objektu JSON (např. "{\\"iacCode\\":{\\"cwd\\":\\"/srv/workshop\\"}}"). Nastavené zde je v aplikaci nikdo nezmění.',
    },
  },
  'agents.start': {
    title: { en: 'Start agent', cs: 'Úvodní agent' },
    helpCs: 'Adresa (jednoho agenta z uzamčeného seznamu), která se otevře při spuštění.',
  },
  idleResetSeconds: {
    title: { en: 'Idle reset (seconds)', cs: 'Reset po nečinnosti (sekundy)' },
    helpCs:
      'Kiosk: po tolika sekundách bez vstupu se ukáže 10s odpočet, který zruší jakýkoli dotyk; pak skončí všechna sezení, co po nich zbylo, se smaže a vrátí se úvodní obrazovka.',
  },
  idleAgentHoldSeconds: {
    title: { en: 'Idle hold while the agent is busy (seconds)', cs: 'Odklad resetu, když agent pracuje (sekundy)' },
    helpCs:
      'Kiosk: dokud agent sám pracuje (mluví nebo čte nahlas, běží odpověď), odpočet počká, nejvýš o tolik sekund po idleResetSeconds; pak se ukáže i tak. Sezení drží vstup (dotyk, klávesa, štítek, návštěvník mluvící v hovoru). Výchozí 120; 0: činnost agenta odpočet nikdy neodloží.',
  },
  'nfc.armedScanning': {
    title: { en: 'NFC scanning kept armed', cs: 'Snímání NFC stále připravené' },
    helpCs: 'Nechat snímání NFC připravené, dokud je okno aktivní (Nastavení → Snímání NFC → snímání v kiosku).',
  },
  'camera.allowed': {
    title: { en: 'Camera allowed', cs: 'Povolit kameru' },
    helpCs: 'false: kamera se nikdy neotevře (fotky ze souborů zůstávají možné).',
  },
  'camera.filePicker': {
    title: { en: 'Photos from files', cs: 'Fotky ze souborů' },
    helpCs:
      'Fotky vybrané ze souborů („Vybrat obrázek…“, který otevře systémový dialog souborů, a obrázky přetažené do okna). Výchozí: v režimu kiosku false, jinak true.',
  },
  'voice.allowed': {
    title: { en: 'Voice allowed', cs: 'Povolit hlas' },
    helpCs: 'false: mikrofon se nikdy neotevře, takže žádné hlasové hovory.',
  },
  'voice.mode': {
    title: { en: 'Voice mode', cs: 'Režim hlasu' },
    helpCs: 'Režim, který hovory používají; druhý režim se nenabízí.',
    values: { 'hands-free': { en: 'Hands-free', cs: 'Bez použití rukou' }, 'push-to-talk': { en: 'Push to talk', cs: 'Mluvit při stisku' } },
  },
  'voice.bargeIn': {
    title: { en: 'Interrupt the agent by speaking', cs: 'Přerušit agenta mluvením' },
    helpCs: 'Vynutí Nastavení → Řeč → přerušení agenta mluvením (hlas na straně klienta): "automatic" (zapnuto se sluchátky nebo headsetem), "on" nebo "off".',
    values: {
      automatic: { en: 'Automatic (with headphones or a headset)', cs: 'Automaticky (se sluchátky nebo headsetem)' },
      on: { en: 'On', cs: 'Zapnuto' },
      off: { en: 'Off', cs: 'Vypnuto' },
    },
    perUser: true,
  },
  language: {
    title: { en: 'Interface language', cs: 'Jazyk rozhraní' },
    helpCs: 'Vynucený jazyk rozhraní.',
    values: { system: { en: 'As the system', cs: 'Podle systému' }, en: { en: 'English', cs: 'Angličtina' }, cs: { en: 'Czech', cs: 'Čeština' } },
    perUser: true,
  },
  'appearance.theme': {
    title: { en: 'Theme', cs: 'Motiv' },
    helpCs: 'Vynucený motiv.',
    values: { system: { en: 'As the system', cs: 'Podle systému' }, light: { en: 'Light', cs: 'Světlý' }, dark: { en: 'Dark', cs: 'Tmavý' } },
    perUser: true,
  },
  'appearance.textSize': {
    title: { en: 'Text size', cs: 'Velikost textu' },
    helpCs: 'Vynucená velikost textu.',
    values: { normal: { en: 'Normal', cs: 'Běžná' }, large: { en: 'Large', cs: 'Velká' } },
    perUser: true,
  },
  'admin.pinHash': {
    title: { en: 'Admin PIN (hash)', cs: 'PIN správce (hash)' },
    helpCs: 'PIN správce jako solený hash scrypt ve formátu PHC ($scrypt$ln=15,r=8,p=1$sůl$hash). Vytvořte ho příkazem `agentdesk policy hash-pin`.',
  },
  developmentSetting: {
    title: { en: 'Development setting', cs: 'Vývojové nastavení' },
    helpCs:
      '"forced-off": vývojové nastavení (http:// na místní adresy) a vložené tokeny zůstanou vypnuté. Výchozí: "forced-off" v režimu kiosku, jinak "user".',
    values: { 'forced-off': { en: 'Forced off', cs: 'Vynuceně vypnuto' }, user: { en: "The user's", cs: 'Podle uživatele' } },
  },
  deviceKeyFile: {
    title: { en: 'NFC device key file', cs: 'Soubor klíče zařízení NFC' },
    helpCs: 'Soubor klíče zařízení NFC (32 bajtů, čitelný jen uživatelem aplikace), použitý místo klíčenky systému. Absolutní cesta.',
  },
  'updates.enabled': {
    title: { en: 'Updates', cs: 'Aktualizace' },
    helpCs: 'Aktualizovat AgentDesk ze zdroje níže (true), nebo aktualizace nikdy nehledat (false).',
  },
  'updates.url': {
    title: { en: 'Update feed', cs: 'Zdroj aktualizací' },
    helpCs:
      'Zdroj: složka https:// se soubory latest*.yml od electron-builderu (každý podepsaný: vedle něj .yml.sig) a s instalátory, které jmenují, vše na tomto hostiteli. Nutný, když jsou aktualizace zapnuté.',
  },
  'updates.publicKey': {
    title: { en: 'Update signing key', cs: 'Klíč podpisu aktualizací' },
    helpCs:
      'Veřejný klíč Ed25519, kterým jsou podepsané soubory .yml ze zdroje: base64 DER na jednom řádku (openssl pkey -pubout -outform DER | base64). Nutný, když jsou aktualizace zapnuté.',
  },
  'updates.channel': {
    title: { en: 'Update channel', cs: 'Kanál aktualizací' },
    helpCs: 'Kanál vydání, pro který se zdroj čte. Výchozí "latest".',
  },
  'updates.install': {
    title: { en: 'When updates are installed', cs: 'Kdy se aktualizace instalují' },
    helpCs:
      'Kdy se stažená a zkontrolovaná aktualizace nainstaluje, nikdy ne během konverzace: "on-quit" při zavření AgentDesku (výchozí mimo kiosk), "idle-reset" hned po resetu kiosku po nečinnosti (výchozí v kiosku), "maintenance-window" v okně údržby, jakmile se 10 minut nic nedělo.',
    values: {
      'on-quit': { en: 'When AgentDesk is closed', cs: 'Při zavření AgentDesku' },
      'idle-reset': { en: "Right after a kiosk's idle reset", cs: 'Hned po resetu kiosku po nečinnosti' },
      'maintenance-window': { en: 'In the maintenance window', cs: 'V okně údržby' },
    },
  },
  'updates.maintenanceWindow': {
    title: { en: 'Maintenance window', cs: 'Okno údržby' },
    helpCs: 'Pro instalaci "maintenance-window": "HH:MM-HH:MM" v místním čase počítače; může přecházet přes půlnoc ("23:00-05:00").',
  },
};
