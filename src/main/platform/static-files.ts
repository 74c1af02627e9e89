import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wav': 'audio/wav',
  // The voice activity detector's model and onnxruntime-web's WebAssembly (renderer/vad/, see electron.vite.config.ts).
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
};

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

/**
 * Reads one file of the built renderer for a URL path, or undefined when there is none.
 * The path is decoded, normalized and must stay inside `root` (no `..`, no dot-files,
 * no encoded separators); `/` is index.html.
 */
export async function readStaticFile(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  if (relative.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = normalize(join(root, relative));
  if (!file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) return undefined;
  try {
    const info = await stat(file);
    if (!info.isFile()) return undefined;
    return { body: await readFile(file), contentType: contentTypes[extname(file)] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
