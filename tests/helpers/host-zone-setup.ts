/**
 * Setup file of the unit projects (vitest.config.ts): each runs under the host zone its `TZ`
 * names, set for the test worker by the project (Node applies a `TZ` assigned at run time). A
 * worker process serves files of several projects, so this checks that the zone really is the
 * project's before any test runs: a zone that did not apply would let every zone-dependent test
 * pass under the wrong zone, unnoticed.
 */
const wanted = process.env.TZ;
const actual = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (!wanted || (actual !== wanted && !(wanted === 'UTC' && actual === 'Etc/UTC'))) {
  throw new Error(`this unit project runs under TZ=${wanted ?? '(unset)'}, but the host zone is ${actual}`);
}
