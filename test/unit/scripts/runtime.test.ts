import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The tests run on the Node the app runs on (Electron 45 embeds Node 24): `npm test` continues on
 * node_modules/.bin/node whatever Node started it, and the scripts that start there (the installing
 * part of npm start and npm test, .ci/run's system-packages) still run on an older Node (>= 20.19).
 */
const root = new URL('../../..', import.meta.url).pathname;
const packageJson = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };

describe('the runtime of the tests', () => {
  it("is the app's Node major, the one the package says it needs and brings", () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBe(24);
    expect(packageJson.engines.node).toBe('>=24');
    expect(packageJson.devDependencies.node?.split('.')[0]).toBe('24');
  });

  it("the scripts that install it still start on the machine's older Node", (context) => {
    const older = ['/usr/bin/node', '/bin/node'].find((path) => existsSync(path));
    const version = older === undefined ? undefined : spawnSync(older, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (older === undefined || version === undefined || Number(version.slice(1).split('.')[0]) >= 24) {
      console.log(`skipped: no Node older than 24 on this machine (${version ?? 'none'}) to start the scripts with`);
      return context.skip();
    }
    for (const script of ['scripts/lib/setup.mjs', 'scripts/test.mjs', 'scripts/start.mjs', 'scripts/system-packages.mjs', 'bin/agentdesk.mjs']) {
      const checked = spawnSync(older, ['--check', `${root}${script}`], { encoding: 'utf8' });
      expect(checked.stderr, `${script} on ${version}`).toBe('');
      expect(checked.status, `${script} on ${version}`).toBe(0);
    }
  });
});
