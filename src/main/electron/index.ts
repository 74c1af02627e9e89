import { startElectronApp } from './app';

// Entry of the Electron main process (out/main/index.js).
void startElectronApp().catch((error: unknown) => {
  process.stderr.write(`AgentDesk could not start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
