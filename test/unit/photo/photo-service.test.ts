import { inspect } from 'node:util';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PhotoError } from '../../../src/main/photo/photo-errors';
import { PhotoService, photoInputFromRequest, photoServiceLimits } from '../../../src/main/photo/photo-service';
import { memoryLogger } from '../../support/logger';
import { photoLikeJpeg, photoLikeRgba } from './fixtures';

let jpeg: Buffer;
beforeAll(async () => {
  jpeg = await photoLikeJpeg(900, 600, { seed: 8, detail: 0.2 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A copy each time: staging zeroes the request's bytes once they are processed. */
const fileRequest = () => ({ kind: 'file' as const, bytes: Uint8Array.from(jpeg) });

describe('PhotoService: staged photos are held once, briefly, by an opaque id', () => {
  it('stage → a preview of exactly the processed bytes, and the facts', async () => {
    const photos = new PhotoService({ log: memoryLogger() });
    const staged = await photos.stageRequest(fileRequest());
    expect(staged.photoId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect([staged.pixelWidth, staged.pixelHeight]).toEqual([900, 600]);
    expect(staged.preview.startsWith('data:image/jpeg;base64,')).toBe(true);
    const previewBytes = Buffer.from(staged.preview.slice('data:image/jpeg;base64,'.length), 'base64');
    expect(previewBytes.length).toBe(staged.byteCount);
    expect((await sharp(previewBytes).metadata()).format).toBe('jpeg');

    const taken = photos.take(staged.photoId);
    expect(taken?.byteCount).toBe(staged.byteCount);
    expect(Buffer.from(taken!.jpeg).equals(previewBytes)).toBe(true);
    // Once only.
    expect(photos.take(staged.photoId)).toBeUndefined();
    expect(photos.size).toBe(0);
  });

  it('discard forgets a photo and zeroes its bytes; discarding again is harmless', async () => {
    const photos = new PhotoService({ log: memoryLogger() });
    const staged = await photos.stageRequest(fileRequest());
    const held = (photos as unknown as { entries: Map<string, { photo: { jpeg: Uint8Array } }> }).entries.get(staged.photoId)!.photo.jpeg;
    expect(held.some((byte) => byte !== 0)).toBe(true);
    expect(photos.discard(staged.photoId)).toBe(true);
    expect(held.every((byte) => byte === 0)).toBe(true);
    expect(photos.discard(staged.photoId)).toBe(false);
    expect(photos.take(staged.photoId)).toBeUndefined();
    expect(photos.discard('not-an-id')).toBe(false);
  });

  it('discardAll (session end or failure) releases everything', async () => {
    const photos = new PhotoService({ log: memoryLogger() });
    const ids = [(await photos.stageRequest(fileRequest())).photoId, (await photos.stageRequest(fileRequest())).photoId];
    expect(photos.discardAll()).toBe(2);
    for (const id of ids) expect(photos.take(id)).toBeUndefined();
    expect(photos.size).toBe(0);
  });

  it('holds at most four: a fifth releases the oldest', async () => {
    const photos = new PhotoService({ log: memoryLogger() });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await photos.stageRequest(fileRequest())).photoId);
    expect(photos.size).toBe(photoServiceLimits.maxStaged);
    expect(photos.take(ids[0]!)).toBeUndefined();
    expect(photos.take(ids[4]!)).toBeDefined();
  });

  it('a staged photo expires after ten minutes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const photos = new PhotoService({ log: memoryLogger() });
    const kept = await photos.stageRequest(fileRequest());
    const expiring = await photos.stageRequest(fileRequest());
    expect(photos.take(kept.photoId)).toBeDefined();
    vi.advanceTimersByTime(10 * 60 * 1000 + 1);
    expect(photos.size).toBe(0);
    expect(photos.take(expiring.photoId)).toBeUndefined();
  });

  it('the original file or frame is zeroed once processed, refused or not', async () => {
    const photos = new PhotoService({ log: memoryLogger() });
    const bytes = Buffer.from(jpeg);
    await photos.stage({ kind: 'file', bytes });
    expect(bytes.every((byte) => byte === 0)).toBe(true);
    const rgba = await photoLikeRgba(64, 48);
    await photos.stage({ kind: 'frame', rgba, width: 64, height: 48 });
    expect(rgba.every((byte) => byte === 0)).toBe(true);
    const refused = Buffer.from('GIF89a and so on');
    await expect(photos.stage({ kind: 'file', bytes: refused })).rejects.toBeInstanceOf(PhotoError);
    expect(refused.every((byte) => byte === 0)).toBe(true);
  });
});

describe('no image bytes in logs or diagnostics', () => {
  it('staging, taking, refusing and discarding log ids, sizes and codes only', async () => {
    const log = memoryLogger();
    const photos = new PhotoService({ log });
    const request = fileRequest();
    const staged = await photos.stageRequest(request);
    const second = await photos.stageRequest({ kind: 'frame', width: 64, height: 48, rgba: Uint8Array.from(await photoLikeRgba(64, 48)) });
    const diagnostics = JSON.stringify(photos.diagnostics());
    const taken = photos.take(staged.photoId)!;
    await photos.stageRequest({ kind: 'file', bytes: Uint8Array.from(Buffer.from('GIF89a and so on')) }).catch(() => undefined);
    await photos.stageRequest({ kind: 'file', bytes: Uint8Array.from(jpeg.subarray(0, 5000)) }).catch(() => undefined);
    photos.discard(second.photoId);

    const logged = [...log.lines, diagnostics, inspect(photos, { depth: 0 })].join('\n');
    expect(log.lines.some((line) => line.includes(staged.photoId))).toBe(true);
    expect(diagnostics).toContain(staged.photoId);
    // Pieces of every byte string that exists: the input (base64 and raw), the output (base64, raw, hex hash).
    expect(request.bytes.every((byte) => byte === 0)).toBe(true);
    const needles = [
      jpeg.toString('base64').slice(100, 140),
      staged.preview.slice(40, 80),
      taken.base64.slice(-60, -20),
      taken.sha256.slice(0, 16),
      Buffer.from(taken.jpeg.subarray(200, 232)).toString('latin1'),
      Buffer.from(taken.jpeg.subarray(200, 216)).toString('hex'),
      jpeg.subarray(300, 332).toString('latin1'),
    ];
    for (const needle of needles) expect(logged).not.toContain(needle);
    expect(log.lines.join('\n')).toMatch(/refused a file \(unsupported_format\)/);
    expect(log.lines.join('\n')).toMatch(/refused a file \(corrupt_image\)/);
    expect(log.lines.join('\n')).toMatch(/released .* \(discarded\)/);
  });
});

describe('request bytes: bounded', () => {
  it('takes the largest request (24 MiB) as it is, and refuses one byte more with a clear PhotoError', () => {
    const largest = new Uint8Array(photoServiceLimits.maxRequestBytes);
    const input = photoInputFromRequest({ kind: 'file', bytes: largest });
    expect(input.kind === 'file' && input.bytes).toBe(largest);
    expect(() => photoInputFromRequest({ kind: 'file', bytes: new Uint8Array(photoServiceLimits.maxRequestBytes + 1) })).toThrow(/larger than 24 MB/);
    expect(() => photoInputFromRequest({ kind: 'frame', width: 4096, height: 4096, rgba: new Uint8Array(photoServiceLimits.maxRequestBytes + 1) })).toThrow(
      PhotoError,
    );
  });

  it('hands a frame to the pipeline without copying it', () => {
    const rgba = Uint8Array.of(1, 2, 3, 4);
    const frame = photoInputFromRequest({ kind: 'frame', width: 1, height: 1, rgba });
    expect(frame).toEqual({ kind: 'frame', width: 1, height: 1, rgba: Uint8Array.of(1, 2, 3, 4) });
    expect(frame.kind === 'frame' && frame.rgba).toBe(rgba);
  });
});
