/**
 * Why a picture was refused. Codes are stable (tests, the CLI's --json, the IPC error's path);
 * messages are for people. Neither ever contains image bytes or a file name.
 */
export const photoErrorCodes = [
  /** Nothing was given (a zero-byte file, a frame without pixels). */
  'empty_input',
  /** The file is larger than AgentDesk reads (24 MiB). */
  'file_too_large',
  /** Not a JPEG, PNG or WebP picture (GIF, BMP, TIFF, SVG, HEIC, PDF, text, random bytes …). */
  'unsupported_format',
  /** The picture claims more pixels than AgentDesk decodes (a decompression bomb, or a huge scan). */
  'too_many_pixels',
  /** The bytes start like a picture but cannot be decoded (truncated, damaged, forged). */
  'corrupt_image',
  /** A camera frame whose pixel data does not match its stated width and height, or is too large. */
  'frame_size_mismatch',
  /** Even at the lowest quality and a smaller size, the JPEG would not fit 61,440 bytes. */
  'too_large_after_compression',
] as const;

export type PhotoErrorCode = (typeof photoErrorCodes)[number];

export class PhotoError extends Error {
  constructor(
    readonly code: PhotoErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PhotoError';
  }
}
