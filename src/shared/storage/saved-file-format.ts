/**
 * The version of a file AgentDesk saves, and how an older file becomes today's (like versioned
 * records: every document says which version of its format it is, and a list of pure migrations
 * turns version n into n + 1 at load). Pure: main's JsonFileStore reads the text and applies this;
 * the format of a file whose schema lives in src/shared lives beside that schema.
 *
 * Reading a saved text gives one of:
 * - `current`: the document, migrated to `format.current` (still to be checked against the schema);
 * - `newer`: a version this app does not know. The caller must not change the file (an older app
 *   would otherwise destroy what a newer one saved);
 * - `damaged`: not JSON, no usable version, or a migration refused it; the caller moves it aside.
 */
export type SavedDocument = Record<string, unknown>;

/**
 * Turns a version-n document into a version-(n + 1) one. Pure: plain JSON in, plain JSON out; throws
 * when it cannot. The version field is set by the runner, not by the migration.
 */
export type Migration = (document: SavedDocument) => SavedDocument;

export interface SavedFileFormat {
  /** The top-level field that holds the version number. */
  versionField: string;
  /** The version this app writes. */
  current: number;
  /** `migrations[n]` turns version n into version n + 1, for every version from the oldest readable one up to `current - 1`. */
  migrations: Readonly<Record<number, Migration>>;
  /**
   * A file from before the version field existed reads as `version` (then migrates from there);
   * `fromText` reads one that is not even JSON. Without it, a file without a version is damaged.
   */
  unversioned?: { version: number; fromText?: (text: string) => SavedDocument | undefined };
}

export type SavedReadResult =
  | { kind: 'current'; document: SavedDocument; fromVersion: number }
  | { kind: 'newer'; version: number; document: SavedDocument }
  | { kind: 'damaged'; problem: string };

/** The oldest version `format` can read: the start of its unbroken chain of migrations up to `current`. */
export function oldestReadableVersion(format: SavedFileFormat): number {
  let version = format.current;
  while (version > 0 && Object.hasOwn(format.migrations, version - 1)) version -= 1;
  return version;
}

export function readSavedDocument(text: string, format: SavedFileFormat): SavedReadResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const legacy = format.unversioned?.fromText?.(text);
    if (legacy === undefined) return { kind: 'damaged', problem: 'it is not valid JSON' };
    return migrate(legacy, format.unversioned!.version, format);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    const legacy = format.unversioned?.fromText?.(text);
    if (legacy !== undefined) return migrate(legacy, format.unversioned!.version, format);
    return { kind: 'damaged', problem: 'it is not a JSON object' };
  }
  const document = parsed as SavedDocument;
  const stated = document[format.versionField];
  if (stated === undefined) {
    if (format.unversioned === undefined) return { kind: 'damaged', problem: `it has no ${format.versionField}` };
    return migrate(document, format.unversioned.version, format);
  }
  if (typeof stated !== 'number' || !Number.isSafeInteger(stated) || stated < 0) {
    return { kind: 'damaged', problem: `${format.versionField} is not a version number` };
  }
  if (stated > format.current) return { kind: 'newer', version: stated, document };
  return migrate(document, stated, format);
}

function migrate(document: SavedDocument, version: number, format: SavedFileFormat): SavedReadResult {
  if (version < oldestReadableVersion(format)) {
    return { kind: 'damaged', problem: `version ${version} is older than this AgentDesk can read (${oldestReadableVersion(format)} to ${format.current})` };
  }
  let migrated = document;
  for (let from = version; from < format.current; from += 1) {
    try {
      migrated = withVersion(format.migrations[from]!(JSON.parse(JSON.stringify(migrated)) as SavedDocument), format.versionField, from + 1);
    } catch (error) {
      return { kind: 'damaged', problem: `it could not be updated from version ${from} (${error instanceof Error ? error.message : 'unknown error'})` };
    }
  }
  return { kind: 'current', document: withVersion(migrated, format.versionField, format.current), fromVersion: version };
}

/** The document with `field` = `version`, as its first key. */
function withVersion(document: SavedDocument, field: string, version: number): SavedDocument {
  const rest = Object.fromEntries(Object.entries(document).filter(([key]) => key !== field));
  return { [field]: version, ...rest };
}
