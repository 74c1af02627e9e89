import { readFileSync } from 'node:fs';

/** The Linux distribution's ID and ID_LIKE words from /etc/os-release (for the smart-card service fix); [] elsewhere. */
export function linuxDistroIds(path = '/etc/os-release'): string[] {
  if (process.platform !== 'linux') return [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8').slice(0, 16_384);
  } catch {
    return [];
  }
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^(ID|ID_LIKE)=("?)([^"\n]*)\2\s*$/.exec(line.trim());
    if (match)
      ids.push(
        ...match[3]!
          .toLowerCase()
          .split(/\s+/)
          .filter((word) => /^[a-z0-9._-]{1,40}$/.test(word)),
      );
  }
  return ids.slice(0, 8);
}
