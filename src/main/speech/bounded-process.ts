import { spawn } from 'node:child_process';

/**
 * Runs a speech engine (espeak-ng, pocketsphinx) as a child process for the demo voice (#16): arguments
 * as an array (never a shell), input on stdin, stdout collected up to a limit, killed after a timeout.
 */
export type EngineFailure = 'missing' | 'timeout' | 'too_large' | 'failed';

export class SpeechEngineError extends Error {
  constructor(
    readonly reason: EngineFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SpeechEngineError';
  }
}

export interface BoundedRunOptions {
  readonly input?: Uint8Array | string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

const stderrKeep = 2048;

export function runBounded(file: string, args: readonly string[], options: BoundedRunOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const fail = (error: SpeechEngineError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new SpeechEngineError('timeout', `${file} did not finish within ${options.timeoutMs} ms`)), options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      fail(
        error.code === 'ENOENT' ? new SpeechEngineError('missing', `${file} is not installed`) : new SpeechEngineError('failed', `${file}: ${error.message}`),
      );
    });
    child.stdout.on('data', (data: Buffer) => {
      size += data.length;
      if (size > options.maxOutputBytes) fail(new SpeechEngineError('too_large', `${file} wrote more than ${options.maxOutputBytes} bytes`));
      else chunks.push(data);
    });
    child.stderr.on('data', (data: Buffer) => {
      if (stderr.length < stderrKeep * 4) stderr += data.toString('utf8');
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks));
      else {
        const detail = stderr
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.startsWith('ALSA lib'))
          .slice(-3)
          .join(' ')
          .slice(-stderrKeep);
        reject(new SpeechEngineError('failed', `${file} exited with ${code ?? signal}${detail ? `: ${detail}` : ''}`));
      }
    });
    // The child may exit before reading all of stdin (EPIPE): its exit code tells what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
