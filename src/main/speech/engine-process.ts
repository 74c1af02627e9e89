import { parentLink, runEngineWorker } from './engine-worker';
import { loadSherpaModel } from './sherpa-engine';

/**
 * Entry point of the speech engine process (#17): sherpa-onnx loads the imported model here, never
 * in main. The same file runs as an Electron utilityProcess and as a Node child process; built as
 * out/main/speech-engine.js, run from source with `node --import tsx` in tests.
 */
const link = parentLink();
if (!link) {
  process.stderr.write('The speech engine process is started by AgentDesk (it needs a message channel to main).\n');
  process.exit(2);
}
runEngineWorker(link, loadSherpaModel);
