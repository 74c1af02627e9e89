import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { jpegFrameSize, markerName, observationJpegProblems, readJpegSegments } from '../../../src/main/photo/jpeg-markers';
import { commentSegment, exifSegment, insertAfterSoi, iptcSegment } from './fixtures';

describe('JPEG marker reader', () => {
  it('walks a baseline JPEG and finds its frame size', async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    expect(readJpegSegments(jpeg).map((segment) => markerName(segment.marker))).toEqual([
      'SOI',
      'DQT',
      'DQT',
      'SOF0',
      'DHT',
      'DHT',
      'DHT',
      'DHT',
      'SOS',
      'EOI',
    ]);
    expect(jpegFrameSize(jpeg)).toEqual({ width: 40, height: 30 });
    expect(observationJpegProblems(jpeg)).toEqual([]);
  });

  it('names every metadata segment, progressive frames and trailing bytes as problems', async () => {
    const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .jpeg()
      .toBuffer();
    const tagged = insertAfterSoi(jpeg, [exifSegment({ orientation: 6 }), iptcSegment('x'), commentSegment('y')]);
    expect(observationJpegProblems(tagged)).toEqual(['unexpected APP1 segment', 'unexpected APP13 segment', 'unexpected COM segment']);
    const icc = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    expect(observationJpegProblems(icc)).toContain('unexpected APP2 segment');
    const progressive = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .jpeg({ progressive: true })
      .toBuffer();
    expect(observationJpegProblems(progressive)).toEqual(expect.arrayContaining(['unexpected SOF2 segment', 'not exactly one baseline frame (SOF0)']));
    expect(observationJpegProblems(Buffer.concat([jpeg, Buffer.from([0])]))).toEqual(['bytes after EOI']);
    expect(observationJpegProblems(jpeg.subarray(0, jpeg.length - 2))).toEqual(['not a JPEG: no EOI marker']);
    expect(observationJpegProblems(Buffer.from('nope'))).toEqual(['not a JPEG: no SOI marker']);
  });
});
