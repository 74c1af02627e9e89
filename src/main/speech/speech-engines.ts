import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Whether the demo's offline speech can run on this computer (#16): its voice needs Debian's
 * `espeak-ng` (text to speech) and pocketsphinx with its US English model (recognition). Debian 12's
 * pocketsphinx 0.8 installs `pocketsphinx_continuous`; pocketsphinx 5 installs `pocketsphinx`: either
 * counts. The demo's `GET status` says `voice: false` while something is missing, and says what.
 */
export const speechInstallCommand = 'sudo apt-get install espeak-ng pocketsphinx pocketsphinx-en-us';

export interface SpeechEngines {
  available: boolean;
  /** Debian package names of what is missing, in install order. */
  missing: string[];
  installCommand: typeof speechInstallCommand;
  /** What was found: the executables' and the model's paths (for the provider that runs them). */
  found: { tts?: string; recognizer?: string; model?: string };
}

export interface SpeechEngineSearch {
  /** The PATH to search (default: this process's). */
  path?: string;
  /** Where pocketsphinx 0.8 looks for its US English model (default: the Debian and /usr/local locations). */
  modelDirs?: readonly string[];
  platform?: NodeJS.Platform;
}

const ttsBinaries = ['espeak-ng'];
const recognizerBinaries = ['pocketsphinx_continuous', 'pocketsphinx'];
const defaultModelDirs = ['/usr/share/pocketsphinx/model/en-us', '/usr/local/share/pocketsphinx/model/en-us'];

function executableOnPath(names: readonly string[], search: SpeechEngineSearch): string | undefined {
  const platform = search.platform ?? process.platform;
  const extensions = platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  const dirs = (search.path ?? process.env.PATH ?? '').split(platform === 'win32' ? ';' : delimiter).filter((dir) => dir !== '');
  for (const name of names) {
    for (const dir of dirs) {
      for (const extension of extensions) {
        const candidate = join(dir, name + extension);
        try {
          if (!statSync(candidate).isFile()) continue;
          if (platform !== 'win32') accessSync(candidate, constants.X_OK);
          return candidate;
        } catch {
          // not here, or not executable
        }
      }
    }
  }
  return undefined;
}

function firstDirectory(dirs: readonly string[]): string | undefined {
  return dirs.find((dir) => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  });
}

/** Looks now (no cache): a few stat calls. */
export function findSpeechEngines(search: SpeechEngineSearch = {}): SpeechEngines {
  const tts = executableOnPath(ttsBinaries, search);
  const recognizer = executableOnPath(recognizerBinaries, search);
  // pocketsphinx 5 carries its model inside; 0.8 (`pocketsphinx_continuous`) needs pocketsphinx-en-us.
  const needsModel = recognizer !== undefined && recognizer.includes('pocketsphinx_continuous');
  const model = needsModel ? firstDirectory(search.modelDirs ?? defaultModelDirs) : undefined;
  const missing = [
    ...(tts ? [] : ['espeak-ng']),
    ...(recognizer ? [] : ['pocketsphinx']),
    ...(!recognizer || (needsModel && !model) ? ['pocketsphinx-en-us'] : []),
  ];
  return {
    available: missing.length === 0,
    missing,
    installCommand: speechInstallCommand,
    found: { ...(tts ? { tts } : {}), ...(recognizer ? { recognizer } : {}), ...(model ? { model } : {}) },
  };
}

/** A found engine stays found; a missing one is looked for again at most this often (installed meanwhile). */
const recheckMs = 10_000;
let cached: { engines: SpeechEngines; at: number } | undefined;

/** This computer's speech engines, cached (see `recheckMs`). */
export function demoSpeechEngines(now: number = Date.now()): SpeechEngines {
  if (!cached || (!cached.engines.available && now - cached.at >= recheckMs)) cached = { engines: findSpeechEngines(), at: now };
  return cached.engines;
}

/** The sentence a user reads when voice is off because something is missing. */
export function speechUnavailableMessage(engines: SpeechEngines): string {
  return `The demo's voice needs ${engines.missing.join(', ')} on this computer. Install with: ${engines.installCommand}`;
}
