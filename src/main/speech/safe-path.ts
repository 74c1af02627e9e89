import { posix } from 'node:path';

/** Windows' reserved device names, with or without an extension. */
const reservedName = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/** The longest path of a model's file AgentDesk keeps (in its folder, and in speech-model.json). */
export const maxModelPathChars = 1024;

/**
 * `a/b/c.onnx` → the same, checked: relative, no `..`, no empty or `.` parts after normalising, and no
 * part that Windows would take as something else (`:` streams, `<>"|?*`, control characters, a trailing
 * dot or space, a device name), at most `maxModelPathChars` long. The one rule for a path inside a
 * speech model's folder: an archive's entries, a chosen folder's files, and what speech-model.json says.
 */
export function safeRelative(name: string): string | undefined {
  const normal = posix.normalize(name.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (normal === '' || normal === '.' || normal.startsWith('/') || /^[A-Za-z]:/.test(normal) || normal.length > maxModelPathChars) return undefined;
  const parts = normal.split('/');
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (parts.some((part) => part === '..' || part === '' || /[<>:"|?*\u0000-\u001f]/.test(part) || /[. ]$/.test(part) || reservedName.test(part))) return undefined;
  return normal;
}
