import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { photo } from '../../../src/main/cli/photo';
import type { Io } from '../../../src/main/cli/output';
import { useTempDirs } from '../../support/temp-dir';
import { cameraJpeg, markerCounts, pngClaiming } from './fixtures';

function capture(): Io & { out: Io['out']; lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => void lines.push(line), err: (line) => void errors.push(line) };
}

describe('agentdesk photo <file> [--json] [--out PATH]', () => {
  const tempDir = useTempDirs();

  it('prints the observation facts as JSON and writes the JPEG with --out', async () => {
    const dir = await tempDir();
    const input = join(dir, 'camera.jpg');
    const output = join(dir, 'out.jpg');
    await writeFile(input, await cameraJpeg({ width: 2000, height: 1500 }));
    const io = capture();
    expect(await photo(input, { json: true, out: output }, io)).toBe(0);
    expect(io.lines).toHaveLength(1);
    const result = JSON.parse(io.lines[0]!) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(['byteCount', 'sha256', 'pixelWidth', 'pixelHeight', 'quality', 'encodes']);
    expect(result).toMatchObject({ pixelWidth: 768, pixelHeight: 1024 });
    const written = await readFile(output);
    expect(written.length).toBe(result.byteCount);
    expect(written.length).toBeLessThanOrEqual(61_440);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(written).digest('hex')).toBe(result.sha256);
    expect(markerCounts(written)).toEqual({ app: 0, com: 0, soi: 1 });
    expect((await sharp(written).metadata()).orientation).toBeUndefined();
  }, 30_000);

  it('prints a readable summary without --json', async () => {
    const dir = await tempDir();
    const input = join(dir, 'small.png');
    await writeFile(
      input,
      await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3366cc' } })
        .png()
        .toBuffer(),
    );
    const io = capture();
    expect(await photo(input, { json: false }, io)).toBe(0);
    expect(io.lines[0]).toMatch(/^320×200 JPEG, \d+ bytes \(limit 61440\), quality 95, 2 encodes$/);
    expect(io.lines[1]).toMatch(/^sha256 [0-9a-f]{64}$/);
  });

  it('exits 1 with a clear message for a refused picture (text and JSON)', async () => {
    const dir = await tempDir();
    const gif = join(dir, 'a.gif');
    await writeFile(
      gif,
      await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
        .gif()
        .toBuffer(),
    );
    const text = capture();
    expect(await photo(gif, { json: false }, text)).toBe(1);
    expect(text.errors).toEqual(['GIF pictures cannot be used. Choose a JPEG, PNG or WebP picture.']);
    const bomb = join(dir, 'bomb.png');
    await writeFile(bomb, pngClaiming(60_000, 60_000));
    const json = capture();
    expect(await photo(bomb, { json: true, out: join(dir, 'never.jpg') }, json)).toBe(1);
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ ok: false, code: 'too_many_pixels' });
    await expect(readFile(join(dir, 'never.jpg'))).rejects.toThrow(/ENOENT/);
  });

  it('exits 2 for a missing file, a folder, or --out onto the input', async () => {
    const dir = await tempDir();
    const io = capture();
    expect(await photo(join(dir, 'missing.jpg'), { json: false }, io)).toBe(2);
    expect(io.errors[0]).toMatch(/^Cannot read .*missing\.jpg: ENOENT\.$/);
    expect(await photo(dir, { json: false }, io)).toBe(2);
    expect(io.errors[1]).toMatch(/is not a file/);
    const input = join(dir, 'x.jpg');
    await writeFile(input, 'x');
    expect(await photo(input, { json: true, out: input }, io)).toBe(2);
    expect(JSON.parse(io.lines[0]!)).toMatchObject({ ok: false, code: 'usage' });
  });
});
