import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';

/**
 * One JSON document in the user-data folder.
 * - Load validates against the schema; a file that is not JSON or does not match is moved aside
 *   (`<name>.corrupt-<time>-<random>`) and the defaults are used, with a notice for the user. Never a crash.
 * - Save writes a temporary file in the same folder, flushes it to disk, then renames it over the
 *   old one, so a crash or power loss leaves either the old or the new document, never half of one.
 * - Saves are serialized: the last one wins and none interleave.
 */
export class JsonFileStore<S extends z.ZodType> {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly schema: S,
    private readonly defaults: () => z.output<S>,
  ) {}

  async load(): Promise<{ value: z.output<S>; notice?: string }> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { value: this.defaults() };
      throw error;
    }
    let problem: string | undefined;
    try {
      const parsed = this.schema.safeParse(JSON.parse(text));
      if (parsed.success) return { value: parsed.data };
      const issue = parsed.error.issues[0];
      // Bounded: an issue quotes what the file holds (a long unknown key, say), and notices are short.
      problem = clip(`${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}`, 200);
    } catch {
      problem = 'it is not valid JSON';
    }
    // The time, and a random part: two bad files moved aside in the same millisecond keep both copies.
    const aside = `${this.path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
    await rename(this.path, aside);
    return {
      value: this.defaults(),
      notice: `${basename(this.path)} could not be read (${problem}). It was moved to ${aside} and defaults are in use.`,
    };
  }

  /** Rejects (and writes nothing) when the value does not match the schema. */
  async save(value: z.output<S>): Promise<void> {
    const checked = this.schema.parse(value) as z.output<S>;
    const text = `${JSON.stringify(checked, null, 2)}\n`;
    const write = this.queue.then(() => this.writeAtomically(text));
    this.queue = write.catch(() => undefined);
    await write;
  }

  private async writeAtomically(text: string): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temporary = join(dir, `.${basename(this.path)}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.path);
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
