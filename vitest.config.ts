import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/**
 * Three projects, one runner:
 * - unit:     shared + main under plain Node (real files, real sockets on 127.0.0.1)
 * - renderer: React components in jsdom against a fake API built from the real contract
 * - e2e:      the built app in Debian's Chromium through the web shell (needs `npm run build`)
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: { name: 'unit', environment: 'node', include: ['test/unit/**/*.test.ts'], exclude: ['test/unit/renderer/**'] },
      },
      {
        plugins: [react()],
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/unit/renderer/**/*.test.{ts,tsx}'],
          setupFiles: ['test/unit/renderer/setup.ts'],
          // A test's first render transforms the screens it opens (seconds when both cores are busy).
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
