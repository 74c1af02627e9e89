import { deflateSync } from 'node:zlib';
import { pngChunk } from '../platform/png-chunks';

export { crc32 } from '../platform/png-chunks';

/** The demo's built-in brand logo, assembled by hand so no binary file ships: a teal square with a white dot. */

type Rgb = readonly [number, number, number];

/** An 8-bit RGB PNG of `size`×`size`: `background` with a centred disc of `dot` (radius size/4). */
export function logoPng(size = 64, background: Rgb = [0x0b, 0x7a, 0x75], dot: Rgb = [0xff, 0xff, 0xff]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  header[10] = 0; // deflate
  header[11] = 0; // adaptive filtering
  header[12] = 0; // no interlace
  const stride = 1 + size * 3;
  const raw = Buffer.alloc(stride * size);
  const centre = (size - 1) / 2;
  const radius = size / 4;
  for (let y = 0; y < size; y++) {
    raw[y * stride] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const colour = (x - centre) ** 2 + (y - centre) ** 2 <= radius ** 2 ? dot : background;
      raw.set(colour, y * stride + 1 + x * 3);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}
