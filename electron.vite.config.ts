import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { Plugin } from 'vite';

/**
 * Client-owned voice's voice activity detector (@ricky0123/vad-web) loads its Silero model, its
 * AudioWorklet and onnxruntime-web's WebAssembly at run time: they are copied into the renderer's own
 * files under vad/ (src/renderer/voice/vad.ts points there), never fetched from a CDN.
 */
function vadAssets(): Plugin {
  const require = createRequire(import.meta.url);
  const vadDist = dirname(require.resolve('@ricky0123/vad-web'));
  const ortDist = dirname(require.resolve('onnxruntime-web'));
  const files: [string, string][] = [
    [join(vadDist, 'silero_vad_v5.onnx'), 'silero_vad_v5.onnx'],
    [join(vadDist, 'vad.worklet.bundle.min.js'), 'vad.worklet.bundle.min.js'],
    [join(ortDist, 'ort-wasm-simd-threaded.wasm'), 'ort-wasm-simd-threaded.wasm'],
    [join(ortDist, 'ort-wasm-simd-threaded.mjs'), 'ort-wasm-simd-threaded.mjs'],
  ];
  return {
    name: 'agentdesk-vad-assets',
    generateBundle() {
      for (const [from, name] of files) this.emitFile({ type: 'asset', fileName: `vad/${name}`, source: readFileSync(from) });
    },
  };
}

/**
 * One build for every runtime:
 * - main:     out/main/index.js (Electron app), out/main/webshell.js (the same services under plain Node)
 *             out/main/cli.js (the agentdesk command), out/main/nfc-reader.js (the NFC reader process) and
 *             out/main/speech-engine.js (the speech engine process)
 * - preload:  out/preload/index.cjs, CommonJS because sandboxed preloads cannot load ES modules;
 *             zod and @ag-ui/core are bundled in (a sandboxed preload can require nothing but electron;
 *             test/unit/built-electron.test.ts loads the built file with nothing else to require)
 * - renderer: out/renderer (index.html + hashed assets)
 */
export default defineConfig({
  main: {
    build: {
      // nfc-pcsc is an optional dependency with a native addon: it must stay outside the bundle.
      externalizeDeps: { include: ['nfc-pcsc'] },
      rolldownOptions: {
        input: {
          index: resolve('src/main/electron/index.ts'),
          webshell: resolve('src/main/webshell/main.ts'),
          cli: resolve('src/main/cli/main.ts'),
          // The NFC reader service, run as its own process (utilityProcess in Electron, a Node child elsewhere).
          'nfc-reader': resolve('src/main/nfc/reader-process.ts'),
          // The speech engine process (sherpa-onnx loads the user's imported recognizer or voice there: a corrupt one aborts that process, not main).
          'speech-engine': resolve('src/main/speech/engine-process.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: { exclude: ['zod', '@ag-ui/core'] },
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [react(), vadAssets()],
    build: {
      // electron-vite leaves bundles unminified; the page's script is parsed on every start, so the
      // renderer is minified (2.0 MB → see README "Figures"): a smaller parse is most of the cold first screen.
      minify: true,
      rolldownOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
