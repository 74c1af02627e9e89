import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySettingsPatch, defaultSettings, maxVoiceConsents, settingsSchema, voiceConsentGiven } from '../../../src/shared/settings/settings';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

const tempDir = useTempDirs();

describe('settings: consent to a Talkie server’s voice calls (§12)', () => {
  it('is kept per serverId in settings.json, with the hosts the user was told, and survives a restart', async () => {
    const dir = await tempDir();
    const app = await startTestServices(dir);
    const consent = { serverId: 'crm.example.com', signalingHosts: ['api.openai.com'] };
    expect(await app.call('settings.update', { patch: { voiceConsent: consent } })).toMatchObject({ ok: true, value: { voice: { consents: [consent] } } });
    const saved = JSON.parse(await readFile(join(dir, 'settings.json'), 'utf8')) as unknown;
    expect(saved).toMatchObject({ schemaVersion: 3, voice: { consents: [consent] } });
    await app.dispose();
    const again = await startTestServices(dir);
    const settings = await again.call('settings.get', {});
    expect(settings.ok && voiceConsentGiven(settings.value, 'crm.example.com', ['api.openai.com'])).toBe(true);
  });

  it('asks again for another server, or when the server names a host the user was not told', () => {
    const settings = applySettingsPatch(defaultSettings, { voiceConsent: { serverId: 'crm.example.com', signalingHosts: ['api.openai.com'] } });
    expect(voiceConsentGiven(settings, 'crm.example.com', ['api.openai.com'])).toBe(true);
    expect(voiceConsentGiven(settings, 'other.example.com', ['api.openai.com'])).toBe(false);
    expect(voiceConsentGiven(settings, 'crm.example.com', ['api.openai.com', 'speech.elsewhere.example'])).toBe(false);
    expect(voiceConsentGiven(defaultSettings, 'crm.example.com', ['api.openai.com'])).toBe(false);
    // A new consent for the same server replaces the old one; other patches keep them all.
    const renewed = applySettingsPatch(settings, { voiceConsent: { serverId: 'crm.example.com', signalingHosts: ['speech.elsewhere.example'] } });
    expect(renewed.voice?.consents).toEqual([{ serverId: 'crm.example.com', signalingHosts: ['speech.elsewhere.example'] }]);
    expect(applySettingsPatch(renewed, { language: 'cs' }).voice).toEqual(renewed.voice);
  });

  it('keeps at most the newest consents, and a settings file without any still loads', () => {
    let settings = defaultSettings;
    for (let i = 0; i <= maxVoiceConsents; i++) settings = applySettingsPatch(settings, { voiceConsent: { serverId: `s${i}.example`, signalingHosts: ['h.example'] } });
    expect(settings.voice?.consents).toHaveLength(maxVoiceConsents);
    expect(settings.voice?.consents[0]?.serverId).toBe('s1.example');
    expect(settingsSchema.safeParse(settings).success).toBe(true);
    expect(settingsSchema.safeParse(defaultSettings).success).toBe(true);
    expect('voice' in defaultSettings).toBe(false);
  });
});
