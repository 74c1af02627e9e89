import { configure } from '@testing-library/react';

/**
 * How long a `findBy…`/`waitFor` waits before it fails: Testing Library's 1 s is a bound, not a
 * figure, and with both cores busy (the full suite beside another run) an arm-and-render round trip
 * through the fake main once took longer. A test that waits for something that never comes still
 * fails, only later.
 */
configure({ asyncUtilTimeout: 5_000 });
