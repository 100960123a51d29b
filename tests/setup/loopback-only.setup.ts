/**
 * The unit project's setup file: the loopback guard in the test worker (tests/setup/loopback-only.mjs),
 * and a test that tried to reach another host fails, even where the code under test caught the
 * refusal and carried on (a retry loop, a fallback): the attempt itself is the fault.
 */
import { afterEach, expect } from 'vitest';
import { takeRefusedConnections } from './loopback-only.mjs';

afterEach(() => {
  expect(takeRefusedConnections(), 'connections off this machine, refused (the unit tests stay on loopback)').toEqual([]);
});
