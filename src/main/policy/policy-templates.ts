import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { devicePolicyJsonSchema, devicePolicySchema, devicePolicyVersion, type DevicePolicy } from '../../shared/device-policy/device-policy';
import { canonicalJson } from '../../shared/device-policy/policy-layers';
import { policyTree, type PolicyLeaf, type PolicyTree } from '../../shared/device-policy/policy-leaves';
import { policyGroupWords, policyLeafWords, type PolicyLeafWords } from '../../shared/device-policy/policy-template-words';
import { macBundleId } from './managed-preferences';
import { escapeXml, plistXml, type PlistValue } from './plist';
import { registryLocation, registryType } from './registry-policy';

/**
 * The device policy's templates for the operating systems' own management (issue #28), generated
 * from the one zod schema: the Windows ADMX with its English and Czech ADML (Group Policy, Intune's
 * imported administrative templates), and a macOS configuration profile (Jamf, Intune, Apple Business
 * Manager). Every key of the schema is one ADMX policy writing where the registry reader looks
 * (`registryLocation`), with the schema's choices and ranges; the words are the schema's description
 * (English) and policy-template-words.ts (titles, Czech). `agentdesk policy export` writes them;
 * `scripts/write-policy-resources.ts` keeps resources/policy/ equal to a fresh generation.
 */

export type Language = 'en' | 'cs';
export const admlLocales: Record<Language, string> = { en: 'en-US', cs: 'cs-CZ' };
export const admxFileName = 'AgentDesk.admx';
export const admlFileName = 'AgentDesk.adml';

export interface TemplateSource {
  /** The policy schema (default: the device policy's). */
  schema?: z.ZodType;
  words?: Record<string, PolicyLeafWords>;
  groupWords?: Record<string, { en: string; cs: string }>;
}

export interface AdmxTemplates {
  admx: string;
  adml: Record<Language, string>;
}

/** The ADMX policy name of a leaf: `voice.bargeIn` → `VoiceBargeIn`. */
export function admxPolicyName(key: string): string {
  return key
    .split(/[.\-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

const namespace = 'AgentDesk.Policies.AgentDesk';
const rootCategory = 'AgentDesk';
const supportedOn = 'SUPPORTED_AgentDesk_PolicyVersion1';

/** The sentences every template says the same way, in each language. */
const sentences = {
  boolean: {
    en: "Enabled: true. Disabled: false. Not configured: not set here (the default, or the user's own setting).",
    cs: 'Povoleno: true. Zakázáno: false. Nenakonfigurováno: zde nenastaveno (platí výchozí hodnota nebo nastavení uživatele).',
  },
  notSet: { en: 'Disabled or Not configured: not set here.', cs: 'Zakázáno nebo Nenakonfigurováno: zde nenastaveno.' },
  integer: { en: (min: number, max: number) => `A whole number from ${min} to ${max}.`, cs: (min: number, max: number) => `Celé číslo od ${min} do ${max}.` },
  enum: { en: 'One of the choices.', cs: 'Jedna z nabízených možností.' },
  string: { en: (max: number) => `Text of at most ${max} characters.`, cs: (max: number) => `Text o nejvýše ${max} znacích.` },
  list: { en: (max: string) => `One entry per line${max}, in this order.`, cs: (max: string) => `Jedna položka na řádek${max}, v tomto pořadí.` },
  listMax: { en: (max: number) => ` (at most ${max})`, cs: (max: number) => ` (nejvýše ${max})` },
  objects: {
    en: (example: string) => `Each entry is one JSON object, such as ${example}, with these fields:`,
    cs: (example: string) => `Každá položka je jeden objekt JSON, například ${example}, s těmito poli:`,
  },
  needed: { en: 'needed', cs: 'povinné' },
  requires: {
    en: (titles: string) => `Needs ${titles} set as well: without it the policy is refused.`,
    cs: (titles: string) => `Vyžaduje také nastavení ${titles}: bez něj se zásady odmítnou.`,
  },
  perUser: {
    en: "May be set for the computer or for a user; the computer's value wins.",
    cs: 'Lze nastavit pro počítač i pro uživatele; hodnota počítače má přednost.',
  },
  registry: {
    en: (hive: string, key: string, value: string) => `Registry: ${hive}\\${key}, ${value}.`,
    cs: (hive: string, key: string, value: string) => `Registr: ${hive}\\${key}, ${value}.`,
  },
  registryValue: { en: (name: string, type: string) => `value ${name} (${type})`, cs: (name: string, type: string) => `hodnota ${name} (${type})` },
  registryList: { en: 'values 1, 2, 3 … (REG_SZ)', cs: 'hodnoty 1, 2, 3 … (REG_SZ)' },
  json: { en: (key: string) => `In a policy file or a macOS profile: ${key}.`, cs: (key: string) => `V souboru zásad nebo profilu macOS: ${key}.` },
  supported: { en: `AgentDesk, device policy version ${devicePolicyVersion}`, cs: `AgentDesk, zásady zařízení verze ${devicePolicyVersion}` },
  product: { en: 'AgentDesk', cs: 'AgentDesk' },
  description: {
    en: 'The AgentDesk device policy: kiosk mode, the locked agent list, camera, voice, language, updates.',
    cs: 'Zásady zařízení AgentDesk: režim kiosku, uzamčený seznam agentů, kamera, hlas, jazyk, aktualizace.',
  },
} as const;

/** A key's words, or an error that names the key and the file to add them to. */
function wordsOf(leaf: PolicyLeaf, words: Record<string, PolicyLeafWords>): PolicyLeafWords {
  const entry = Object.hasOwn(words, leaf.key) ? words[leaf.key] : undefined;
  if (!entry)
    throw new Error(
      `policy key ${leaf.key} has no words in src/shared/device-policy/policy-template-words.ts (a title in English and Czech, its help in Czech)`,
    );
  if (leaf.items?.kind === 'object') {
    for (const property of leaf.items.properties) {
      if (!entry.itemHelpCs?.[property.name])
        throw new Error(`policy key ${leaf.key}: its item field "${property.name}" has no Czech help (itemHelpCs) in policy-template-words.ts`);
    }
  }
  return entry;
}

function groupTitle(key: string, language: Language, groupWords: Record<string, { en: string; cs: string }>): string {
  const entry = Object.hasOwn(groupWords, key) ? groupWords[key] : undefined;
  if (!entry) throw new Error(`policy group ${key} has no words in src/shared/device-policy/policy-template-words.ts (policyGroupWords)`);
  return entry[language];
}

/** The value label of an enum choice: its words, or the value itself. */
function valueLabel(words: PolicyLeafWords, value: string, language: Language): string {
  return words.values?.[value]?.[language] ?? value;
}

/** The string id of an enum choice. */
function valueId(name: string, value: string): string {
  return `${name}_${value.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function explain(leaf: PolicyLeaf, tree: PolicyTree, words: Record<string, PolicyLeafWords>, language: Language): string {
  const own = wordsOf(leaf, words);
  const help = language === 'en' ? leaf.description : own.helpCs;
  const parts = [help];
  switch (leaf.kind) {
    case 'boolean':
      parts.push(sentences.boolean[language]);
      break;
    case 'integer':
      parts.push(`${sentences.integer[language](leaf.minimum ?? 0, leaf.maximum ?? 4_294_967_295)} ${sentences.notSet[language]}`);
      break;
    case 'enum':
      parts.push(`${sentences.enum[language]} ${sentences.notSet[language]}`);
      break;
    case 'string':
      parts.push(`${sentences.string[language](leaf.maxLength!)} ${sentences.notSet[language]}`);
      break;
    case 'list': {
      parts.push(`${sentences.list[language](leaf.maxItems === undefined ? '' : sentences.listMax[language](leaf.maxItems))} ${sentences.notSet[language]}`);
      if (leaf.items?.kind === 'object') {
        const example = `{${leaf.items.properties
          .filter((property) => property.required)
          .map((property) => `"${property.name}": "…"`)
          .join(', ')}}`;
        const fields = leaf.items.properties.map((property) => {
          const text = language === 'en' ? property.description : own.itemHelpCs![property.name]!;
          return `- ${property.name}${property.required ? ` (${sentences.needed[language]})` : ''}: ${text}`;
        });
        parts.push([sentences.objects[language](example), ...fields].join('\n'));
      }
      break;
    }
  }
  const group = tree.groups.find((candidate) => candidate.key === leaf.path.slice(0, -1).join('.'));
  const needs = (group?.required ?? []).filter((name) => name !== leaf.path[leaf.path.length - 1]).map((name) => `${group!.key}.${name}`);
  if (needs.length > 0) {
    const titles = needs
      .map(
        (key) =>
          `“${
            wordsOf(
              tree.leaves.find((candidate) => candidate.key === key)!,
              words,
            ).title[language]
          }” (${key})`,
      )
      .join(', ');
    parts.push(sentences.requires[language](titles));
  }
  if (own.perUser) parts.push(sentences.perUser[language]);
  const location = registryLocation(leaf);
  const hive = own.perUser ? 'HKLM | HKCU' : 'HKLM';
  parts.push(
    sentences.registry[language](
      hive,
      location.key,
      'list' in location ? sentences.registryList[language] : sentences.registryValue[language](location.valueName, registryType(leaf)),
    ),
  );
  parts.push(sentences.json[language](leaf.key));
  return parts.join('\n\n');
}

/** The ADMX and its ADML (English, Czech) for a policy schema. Throws for a key without its words, naming it. */
export function admxTemplates(source: TemplateSource = {}): AdmxTemplates {
  const tree = policyTree(source.schema ?? devicePolicySchema);
  const words = source.words ?? policyLeafWords;
  const groupWords = source.groupWords ?? policyGroupWords;
  const names = new Map<string, string>();
  for (const leaf of tree.leaves) {
    const name = admxPolicyName(leaf.key);
    if (leaf.kind === 'string' && leaf.maxLength === undefined)
      throw new Error(`policy key ${leaf.key}: a string needs its longest length in the schema (.max(n)): the template's text box is bounded by it`);
    if (names.has(name)) throw new Error(`policy keys ${names.get(name)} and ${leaf.key} would share the ADMX name ${name}`);
    names.set(name, leaf.key);
    wordsOf(leaf, words);
  }
  const groups = [...new Set(tree.leaves.filter((leaf) => leaf.path.length > 1).map((leaf) => leaf.path[0]!))];
  const categoryOf = (leaf: PolicyLeaf) => (leaf.path.length > 1 ? `${rootCategory}_${admxPolicyName(leaf.path[0]!)}` : rootCategory);

  const policies = tree.leaves.map((leaf) => {
    const name = admxPolicyName(leaf.key);
    const location = registryLocation(leaf);
    const scope = wordsOf(leaf, words).perUser ? 'Both' : 'Machine';
    const head = `    <policy name="${name}" class="${scope}" displayName="$(string.${name})" explainText="$(string.${name}_Explain)"${leaf.kind === 'boolean' ? '' : ` presentation="$(presentation.${name})"`} key="${escapeXml(location.key)}"${'valueName' in location && leaf.kind === 'boolean' ? ` valueName="${escapeXml(location.valueName)}"` : ''}>`;
    const common = [`      <parentCategory ref="${categoryOf(leaf)}" />`, `      <supportedOn ref="${supportedOn}" />`];
    let body: string[];
    const valueName = 'valueName' in location ? escapeXml(location.valueName) : '';
    switch (leaf.kind) {
      case 'boolean':
        body = ['      <enabledValue><decimal value="1" /></enabledValue>', '      <disabledValue><decimal value="0" /></disabledValue>'];
        break;
      case 'integer':
        body = [
          '      <elements>',
          `        <decimal id="${name}" valueName="${valueName}" minValue="${leaf.minimum ?? 0}" maxValue="${leaf.maximum ?? 4_294_967_295}" required="true" />`,
          '      </elements>',
        ];
        break;
      case 'enum':
        body = [
          '      <elements>',
          `        <enum id="${name}" valueName="${valueName}" required="true">`,
          ...leaf.values!.map(
            (value) => `          <item displayName="$(string.${valueId(name, value)})"><value><string>${escapeXml(value)}</string></value></item>`,
          ),
          '        </enum>',
          '      </elements>',
        ];
        break;
      case 'string':
        body = [
          '      <elements>',
          `        <text id="${name}" valueName="${valueName}" maxLength="${leaf.maxLength!}" required="true" />`,
          '      </elements>',
        ];
        break;
      case 'list':
        body = ['      <elements>', `        <list id="${name}" key="${escapeXml(location.key)}" valuePrefix="" />`, '      </elements>'];
        break;
    }
    return [head, ...common, ...body, '    </policy>'].join('\n');
  });

  const admx = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<!-- Generated by `agentdesk policy export` from the AgentDesk device policy schema (src/shared/device-policy/device-policy.ts). Do not edit. -->',
    '<policyDefinitions xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" revision="1.0" schemaVersion="1.0" xmlns="http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions">',
    '  <policyNamespaces>',
    `    <target prefix="agentdesk" namespace="${namespace}" />`,
    '  </policyNamespaces>',
    '  <resources minRequiredRevision="1.0" />',
    '  <supportedOn>',
    '    <definitions>',
    `      <definition name="${supportedOn}" displayName="$(string.${supportedOn})" />`,
    '    </definitions>',
    '  </supportedOn>',
    '  <categories>',
    `    <category name="${rootCategory}" displayName="$(string.${rootCategory})" />`,
    ...groups.map(
      (group) =>
        `    <category name="${rootCategory}_${admxPolicyName(group)}" displayName="$(string.${rootCategory}_${admxPolicyName(group)})"><parentCategory ref="${rootCategory}" /></category>`,
    ),
    '  </categories>',
    '  <policies>',
    ...policies,
    '  </policies>',
    '</policyDefinitions>',
    '',
  ].join('\n');

  const adml = (language: Language): string => {
    const strings: [string, string][] = [
      [rootCategory, sentences.product[language]],
      [supportedOn, sentences.supported[language]],
      ...groups.map((group): [string, string] => [`${rootCategory}_${admxPolicyName(group)}`, groupTitle(group, language, groupWords)]),
    ];
    const presentations: string[] = [];
    for (const leaf of tree.leaves) {
      const name = admxPolicyName(leaf.key);
      const own = wordsOf(leaf, words);
      const title = own.title[language];
      strings.push([name, title], [`${name}_Explain`, explain(leaf, tree, words, language)]);
      if (leaf.kind === 'enum') for (const value of leaf.values!) strings.push([valueId(name, value), valueLabel(own, value, language)]);
      const label = escapeXml(title);
      if (leaf.kind === 'integer')
        presentations.push(
          `      <presentation id="${name}"><decimalTextBox refId="${name}" defaultValue="${leaf.minimum ?? 0}">${label}</decimalTextBox></presentation>`,
        );
      if (leaf.kind === 'enum')
        presentations.push(`      <presentation id="${name}"><dropdownList refId="${name}" noSort="true">${label}</dropdownList></presentation>`);
      if (leaf.kind === 'string')
        presentations.push(`      <presentation id="${name}"><textBox refId="${name}"><label>${label}</label></textBox></presentation>`);
      if (leaf.kind === 'list') presentations.push(`      <presentation id="${name}"><listBox refId="${name}">${label}</listBox></presentation>`);
    }
    return [
      '<?xml version="1.0" encoding="utf-8"?>',
      '<!-- Generated by `agentdesk policy export` from the AgentDesk device policy schema. Do not edit. -->',
      '<policyDefinitionResources xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" revision="1.0" schemaVersion="1.0" xmlns="http://schemas.microsoft.com/GroupPolicy/2006/07/PolicyDefinitions">',
      `  <displayName>${escapeXml(sentences.product[language])}</displayName>`,
      `  <description>${escapeXml(sentences.description[language])}</description>`,
      '  <resources>',
      '    <stringTable>',
      ...strings.map(([id, text]) => `      <string id="${id}">${escapeXml(text)}</string>`),
      '    </stringTable>',
      '    <presentationTable>',
      ...presentations,
      '    </presentationTable>',
      '  </resources>',
      '</policyDefinitionResources>',
      '',
    ].join('\n');
  };
  return { admx, adml: { en: adml('en'), cs: adml('cs') } };
}

/** A UUID derived from content (the same policy gives the same profile, so a regenerated file is unchanged). */
function derivedUuid(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32).split('');
  hex[12] = '5';
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const text = hex.join('').toUpperCase();
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
}

/** The payload type and identifiers of AgentDesk's configuration profile. */
export const profileIdentifiers = { payloadType: macBundleId, payload: `${macBundleId}.policy`, profile: `${macBundleId}.profile` } as const;

/**
 * A macOS configuration profile carrying `policy` (its payload type is AgentDesk's bundle id, so macOS
 * writes the policy to /Library/Managed Preferences/dev.agentdesk.app.plist). Device scope.
 */
export function mobileconfig(policy: DevicePolicy): string {
  const content: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(policy)) if (key !== '$schema') content[key] = value;
  const fingerprint = canonicalJson(content);
  const payload: Record<string, PlistValue> = {
    PayloadType: profileIdentifiers.payloadType,
    PayloadIdentifier: profileIdentifiers.payload,
    PayloadUUID: derivedUuid('payload', fingerprint),
    PayloadVersion: 1,
    PayloadDisplayName: 'AgentDesk device policy',
    PayloadEnabled: true,
    ...(content as Record<string, PlistValue>),
  };
  const profile: Record<string, PlistValue> = {
    PayloadContent: [payload],
    PayloadDisplayName: 'AgentDesk device policy',
    PayloadDescription: `The AgentDesk device policy (version ${devicePolicyVersion}), as a file at the system location would set it. Generated by agentdesk policy export --mobileconfig.`,
    PayloadIdentifier: profileIdentifiers.profile,
    PayloadType: 'Configuration',
    PayloadUUID: derivedUuid('profile', fingerprint),
    PayloadVersion: 1,
    PayloadScope: 'System',
  };
  return plistXml(profile);
}

/** The policy a profile's payload carries (its Payload… keys left out): what the round trip must give back. */
export function policyOfProfile(profile: PlistValue): Record<string, unknown> | undefined {
  if (typeof profile !== 'object' || profile === null || Array.isArray(profile) || profile instanceof Date || profile instanceof Uint8Array) return undefined;
  const content = profile.PayloadContent;
  if (!Array.isArray(content)) return undefined;
  const payload = content.find(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      !Array.isArray(item) &&
      !(item instanceof Date) &&
      !(item instanceof Uint8Array) &&
      item.PayloadType === profileIdentifiers.payloadType,
  );
  if (!payload || typeof payload !== 'object' || Array.isArray(payload) || payload instanceof Date || payload instanceof Uint8Array) return undefined;
  return Object.fromEntries(Object.entries(payload).filter(([key]) => !/^Payload[A-Z]/.test(key)));
}

/** The files resources/policy/ holds, by path under it, as generated now (the script writes them; a test compares). */
export function policyResourceFiles(example: DevicePolicy): Record<string, string> {
  const templates = admxTemplates();
  return {
    'agentdesk-policy.schema.json': `${JSON.stringify(devicePolicyJsonSchema(), null, 2)}\n`,
    [`admx/${admxFileName}`]: templates.admx,
    [`admx/${admlLocales.en}/${admlFileName}`]: templates.adml.en,
    [`admx/${admlLocales.cs}/${admlFileName}`]: templates.adml.cs,
    'example-kiosk-policy.mobileconfig': mobileconfig(example),
  };
}
