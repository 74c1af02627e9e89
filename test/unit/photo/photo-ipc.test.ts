import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../support/logger';
import { startTestServices, type TestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';
import { photoLikeJpeg, pngClaiming } from './fixtures';

/** photo.stage / photo.discard through the real dispatcher and contract (needs the contract entries). */
describe('photo IPC', () => {
  const tempDir = useTempDirs();
  const started: TestServices[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((services) => services.dispose()));
  });
  const services = async (log = memoryLogger()) => {
    const value = await startTestServices(await tempDir(), { log });
    started.push(value);
    return value;
  };

  it('stages a file and a frame, previews them, discards them; the log holds no bytes', async () => {
    const log = memoryLogger();
    const app = await services(log);
    const jpeg = await photoLikeJpeg(1600, 1200, { seed: 5, detail: 0.2 });
    const staged = await app.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(jpeg) });
    expect(staged.ok).toBe(true);
    if (!staged.ok) return;
    expect(staged.value).toMatchObject({ pixelWidth: 1024, pixelHeight: 768 });
    const previewBytes = Buffer.from(staged.value.preview.split(',')[1]!, 'base64');
    expect((await sharp(previewBytes).metadata()).format).toBe('jpeg');
    expect(app.photos.size).toBe(1);

    const rgba = Buffer.alloc(64 * 48 * 4, 255);
    const frame = await app.call('photo.stage', { kind: 'frame', width: 64, height: 48, rgba: Uint8Array.from(rgba) });
    expect(frame.ok && frame.value.pixelWidth).toBe(64);

    expect(await app.call('photo.discard', { photoId: staged.value.photoId })).toEqual({ ok: true, value: { discarded: true } });
    expect(await app.call('photo.discard', { photoId: staged.value.photoId })).toEqual({ ok: true, value: { discarded: false } });
    await app.dispose();
    expect(app.photos.size).toBe(0);
    for (const line of log.lines) expect(line).not.toContain(staged.value.preview.slice(30, 70));
  });

  it('refusals are invalid_image with a message for people', async () => {
    const app = await services();
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    expect(await app.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(gif) })).toEqual({
      ok: false,
      error: { code: 'invalid_image', message: 'GIF pictures cannot be used. Choose a JPEG, PNG or WebP picture.', path: '/bytes' },
    });
    const bomb = await app.call('photo.stage', { kind: 'file', bytes: Uint8Array.from(pngClaiming(60_000, 60_000)) });
    expect(!bomb.ok && bomb.error.code).toBe('invalid_image');
    const mismatch = await app.call('photo.stage', { kind: 'frame', width: 10, height: 10, rgba: new Uint8Array(12) });
    expect(!mismatch.ok && mismatch.error).toMatchObject({ code: 'invalid_image', path: '/rgba' });
  });

  it('the contract refuses what is not bytes, too large, or out of bounds before main reads anything', async () => {
    const app = await services();
    for (const payload of [
      { kind: 'file', bytes: 'AAAA' },
      { kind: 'file', bytes: [1, 2, 3] },
      { kind: 'file', bytes: { 0: 1, length: 1 } },
      { kind: 'file', bytes: new Uint8ClampedArray(4) },
      { kind: 'file', bytes: new Uint8Array(0) },
      { kind: 'frame', width: 0, height: 10, rgba: new Uint8Array(4) },
      { kind: 'frame', width: 5000, height: 10, rgba: new Uint8Array(4) },
      { kind: 'file', bytes: new Uint8Array(4), name: 'x.jpg' },
      { kind: 'gif', bytes: new Uint8Array(4) },
    ]) {
      const result = await app.call('photo.stage', payload);
      expect(!result.ok && result.error.code, String(Object.values(payload))).toBe('invalid_request');
    }
    const tooLong = await app.call('photo.stage', { kind: 'file', bytes: new Uint8Array(24 * 1024 * 1024 + 1) });
    expect(!tooLong.ok && tooLong.error).toMatchObject({ code: 'invalid_request', message: 'photo.stage: /bytes: at most 25165824 bytes', path: '/bytes' });
    expect((await app.call('photo.discard', { photoId: '../etc' })).ok).toBe(false);
  });
});
