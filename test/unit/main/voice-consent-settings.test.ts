import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applySettingsPatch,
  defaultSettings,
  maxVoiceConsents,
  settingsFileFormat,
  settingsSchema,
  voiceConsentGiven,
} from '../../../src/shared/settings/settings';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();
const crm = { serverId: 'crm.example.com', issuer: 'https://crm.example.com' };

describe('settings: consent to a Talkie server’s voice calls (Talkie 1 §12)', () => {
  it('is kept per server (serverId at its origin) in settings.json, with the hosts the user was told, and survives a restart', async () => {
    const dir = await tempDir();
    const app = await startTestServices(dir);
    const consent = { ...crm, signalingHosts: ['api.openai.com'] };
    expect(await app.call('settings.update', { patch: { voiceConsent: consent } })).toMatchObject({ ok: true, value: { voice: { consents: [consent] } } });
    const saved = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as unknown;
    expect(saved).toMatchObject({ schemaVersion: settingsFileFormat.current, voice: { consents: [consent] } });
    await app.dispose();
    const again = await startTestServices(dir);
    const settings = await again.call('settings.get', {});
    expect(settings.ok && voiceConsentGiven(settings.value, crm, ['api.openai.com'])).toBe(true);
  });

  it('asks again for another server, for a server on another origin that claims the same serverId, or when the server names a host the user was not told', () => {
    const settings = applySettingsPatch(defaultSettings, { voiceConsent: { ...crm, signalingHosts: ['api.openai.com'] } });
    expect(voiceConsentGiven(settings, crm, ['api.openai.com'])).toBe(true);
    expect(voiceConsentGiven(settings, { serverId: 'other.example.com', issuer: crm.issuer }, ['api.openai.com'])).toBe(false);
    expect(voiceConsentGiven(settings, { serverId: crm.serverId, issuer: 'http://127.0.0.1:8080' }, ['api.openai.com'])).toBe(false);
    expect(voiceConsentGiven(settings, crm, ['api.openai.com', 'speech.elsewhere.example'])).toBe(false);
    expect(voiceConsentGiven(defaultSettings, crm, ['api.openai.com'])).toBe(false);
    // A new consent for the same server replaces the old one; one for the same serverId elsewhere is another's; other patches keep them all.
    const renewed = applySettingsPatch(settings, { voiceConsent: { ...crm, signalingHosts: ['speech.elsewhere.example'] } });
    expect(renewed.voice?.consents).toEqual([{ ...crm, signalingHosts: ['speech.elsewhere.example'] }]);
    const elsewhere = applySettingsPatch(renewed, {
      voiceConsent: { serverId: crm.serverId, issuer: 'http://127.0.0.1:8080', signalingHosts: ['api.openai.com'] },
    });
    expect(elsewhere.voice?.consents).toHaveLength(2);
    expect(voiceConsentGiven(elsewhere, crm, ['api.openai.com'])).toBe(false);
    expect(applySettingsPatch(renewed, { language: 'cs' }).voice).toEqual(renewed.voice);
  });

  it('keeps at most the newest consents, and a settings file without any still loads', () => {
    let settings = defaultSettings;
    for (let i = 0; i <= maxVoiceConsents; i++)
      settings = applySettingsPatch(settings, { voiceConsent: { serverId: `s${i}.example`, issuer: `https://s${i}.example`, signalingHosts: ['h.example'] } });
    expect(settings.voice?.consents).toHaveLength(maxVoiceConsents);
    expect(settings.voice?.consents[0]?.serverId).toBe('s1.example');
    expect(settingsSchema.safeParse(settings).success).toBe(true);
    expect(settingsSchema.safeParse(defaultSettings).success).toBe(true);
    expect('voice' in defaultSettings).toBe(false);
  });
});
