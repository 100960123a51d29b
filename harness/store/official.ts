/**
 * Which runs the official statistics are made of. Official means made by the project's own
 * pipeline (`source: official`: the nightly, or its lane commands run by the maintainers) of a
 * release the committed release list knows. Everything else (a community pull request, or a
 * version nobody can check) is shown apart with its badge and aggregated on its own rows: nine
 * half-speed community copies of an official release once moved its median enough for `regress`
 * to report 26 regressions and `alert` to open an issue against a real llama.cpp release, and a
 * made-up community version replaced the official row of its engine.
 *
 * A null engine_version_known (a run with no version to check, e.g. one that failed at launch)
 * is not "unverified": only a version checked and not found is.
 */
export const OFFICIAL_RUN_SQL = `(source = 'official' AND engine_version_known IS NOT FALSE)`;
