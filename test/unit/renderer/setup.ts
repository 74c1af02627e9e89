import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

/**
 * Every renderer test file's set-up (vitest.config.ts `setupFiles`).
 *
 * Without vitest globals Testing Library cannot register its own cleanup: a file that did not call it
 * left its hooks mounted, and an interval of one (useClientListening's level meter) fired after jsdom
 * was gone ("window is not defined", an unhandled error in a full run). Every test unmounts here.
 */
afterEach(() => cleanup());

/**
 * How long a `findBy…`/`waitFor` waits before it fails: Testing Library's 1 s is a bound, not a
 * figure, and with both cores busy (the full suite beside another run) an arm-and-render round trip
 * through the fake main once took longer. A test that waits for something that never comes still
 * fails, only later.
 */
configure({ asyncUtilTimeout: 5_000 });
