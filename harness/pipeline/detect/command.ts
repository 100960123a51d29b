/**
 * `servebench detect`: poll each engine's GitHub releases and official image tags once, and
 * report the new (engine, version, image) as JSON on stdout; the state file remembers what was
 * reported so the next poll reports only what came after.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { booleanOption, listOption, numberOption, parseCommandArgs, stringOption, type CommandSpec, type Command, processIo, type CommandIo } from '../../lib/cli/options.ts';
import { ENGINES_DIR, listEngineFiles, loadEngine } from '../../measure/engines/spec-file.ts';
import { EXIT } from '../../lib/errors.ts';
import { writeFileAtomic } from '../../lib/io/atomic-write.ts';
import { detect, type DetectReport } from './detect.ts';
import { DEFAULT_STATE_FILE, loadDetectState, saveDetectState } from './state.ts';
import { DEFAULT_GITHUB_API, GITHUB_API_ENV, githubClient } from '../http/github-http.ts';
import { readFleetFile } from '../plan/inputs.ts';
import { defaultPolicy, type HttpPolicy } from '../http/http-conditional.ts';
import { parseRegistryOverrides, registryClient, REGISTRY_OVERRIDE_ENV } from '../http/registry-tags.ts';
import { DEFAULT_NPM_REGISTRY, npmClient, NPM_REGISTRY_ENV } from '../http/npm-registry.ts';
import type { BundleLookup } from './detect-npm.ts';
import { appendReleases, readReleasesFile, serializeReleases } from '../../contract/releases.ts';
import { releasesOfReport } from './releases.ts';

/** Read when it exists (detect runs from the checkout), so a plain `servebench detect` checks the fleet's images too. */
const DEFAULT_FLEET_FILE = 'fleet/fleet.yaml';

const spec: CommandSpec = {
  name: 'detect',
  summary: "poll each engine's releases (GitHub, or npm for llama.cpp) and official image tags once; print the new (engine, version, image) as JSON",
  usage: 'servebench detect [--engine NAME]... [--engines-dir DIR] [--fleet FILE] [--state FILE] [--releases FILE] [--dry-run] [--include-prereleases] [--out FILE] [--max-wait S] [--github-api URL] [--registry-url HOST=URL]...',
  options: [
    { name: 'engine', value: 'NAME', multiple: true, help: 'Poll only this engine (repeatable; default: every engine in engines/ that has a source.repository or source.npm).' },
    { name: 'engines-dir', value: 'DIR', help: "Folder of engine specs (default: the repository's engines/)." },
    { name: 'fleet', value: 'FILE', help: `The fleet file, whose engines.<name>.images (e.g. ROCm builds) are checked too (default: ${DEFAULT_FLEET_FILE} when it exists; without one, only the official images).` },
    { name: 'state', value: 'FILE', help: 'Versions already reported, versions waiting for their image, and ETags; rewritten atomically after the poll.', default: DEFAULT_STATE_FILE },
    { name: 'releases', value: 'FILE', help: 'The known-release list validate and compile read (a version not in it is "unverified", never ranked): every release reported new is appended, rewritten atomically (default: releases.json beside --state, i.e. fleet/releases.json).' },
    { name: 'dry-run', help: 'Poll and report, but leave the state file and the release list as they are.' },
    { name: 'include-prereleases', help: 'Count GitHub prereleases (and, for repositories that only tag, tags like 1.0.0rc1) as versions.' },
    { name: 'out', value: 'FILE', help: 'Also write the JSON report to FILE (atomically).' },
    { name: 'max-wait', value: 'S', help: 'Longest rate-limit wait to sit out; a longer one fails, naming the reset time.', default: '60' },
    { name: 'github-api', value: 'URL', help: `GitHub REST API base (default: $${GITHUB_API_ENV}, else ${DEFAULT_GITHUB_API}).` },
    { name: 'registry-url', value: 'HOST=URL', multiple: true, help: `Reach registry HOST (docker.io, ghcr.io, nvcr.io, …) at URL instead, e.g. a mirror or a test fake (repeatable; also $${REGISTRY_OVERRIDE_ENV}=HOST=URL,…).` },
  ],
  epilog: [
    'Versions come from GitHub releases (drafts never, prereleases with --include-prereleases), or from tags when a repository has no releases. A tag names a version as itself or less one leading letter: v0.11.0 → 0.11.0, b6123 → 6123; other tags (gateway-v0.2.0) are skipped.',
    'A version is new once its image tag (the engine\'s image.tag template) exists: the Docker Hub API for Docker Hub images, the OCI distribution API with an anonymous token for the others. Until then it is pending: reported under "pending", kept in the state and re-checked on every poll.',
    'With a fleet file, the images it runs instead of the official one for a new release (engines.<name>.images, rendered with the version; those of GPU types a new_versions entry runs the engine on) are checked too, and listed per version under "images" with "published". A missing one does not hold the release back: it is reported new (plan skips the GPU types whose image is missing), listed under "awaiting_images" and kept pending in the state (also seen) for it; once every such image is out, it is reported new again with "images_only": true, and plan runs just those GPU types.',
    "An engine seen for the first time (no entry in the state) reports only its newest release; the others are recorded as seen, so the fleet benchmarks the current release, not years of history.",
    `An engine with source.npm (llamacpp: node-llama-cpp) is read from the npm registry instead ($${NPM_REGISTRY_ENV}, else ${DEFAULT_NPM_REGISTRY}; its packument, conditional on its ETag): each new stable version from 3.0 is fetched once (npm pack) to read the llama.cpp tag it bundles, reported as "version" (what llamacpp build --node-llama-cpp and run --engine-version take) with that "tag" and "npm": {package, bundle_commit}; a version bundling a tag an earlier one bundled is recorded as seen, with a note. No image is checked: the CPU lane builds it.`,
    'GITHUB_TOKEN, when set, is sent to the GitHub API (5,000 requests an hour instead of 60). Unchanged listings cost a 304 (If-None-Match with the stored ETag).',
    'Output: {checked_at, new: [{engine, version, tag, release_url, published_at, image, images: [{key, gpu_types, image, published}], images_only?}], pending: [… reason], awaiting_images: [… pending_images, since, reason], errors: [{engine, message}], notes: [{engine, message}]} on stdout; a summary on stderr. "image" is the official image; "key" is the fleet\'s (a GPU type id or a vendor).',
    'Exit status: 0 every engine polled, 1 some engine could not be polled (the others are reported and saved), 2 bad usage.',
  ].join('\n'),
};

export interface DetectDeps extends Partial<CommandIo> {
  /** Waits, backoff and clock for the HTTP calls (tests make them instant). */
  readonly policy?: Partial<HttpPolicy>;
  readonly now?: () => Date;
  /** Reads the llama.cpp tag a node-llama-cpp version bundles (default: npm pack of the version). */
  readonly bundles?: BundleLookup;
}

export async function runDetect(argv: readonly string[], deps: DetectDeps = {}): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const { env, stdout, stderr } = { ...processIo(), ...deps };
  const maxWaitS = numberOption(spec, raw, 'max-wait', { min: 0 })!;
  const policy: HttpPolicy = { ...defaultPolicy, ...deps.policy, maxWaitS };
  const registryOverrides = parseRegistryOverrides(listOption(raw, 'registry-url'), env);
  const enginesDir = resolve(stringOption(spec, raw, 'engines-dir') ?? ENGINES_DIR);
  const names = listOption(raw, 'engine');
  const engines = names.length > 0 ? names.map((name) => loadEngine(name, enginesDir)) : listEngineFiles(enginesDir).map((file) => loadEngine(file, enginesDir));
  const stateFile = resolve(stringOption(spec, raw, 'state')!);
  const state = loadDetectState(stateFile);
  const dryRun = booleanOption(raw, 'dry-run');
  const fleetFlag = stringOption(spec, raw, 'fleet');
  const fleetFile = fleetFlag !== undefined ? resolve(fleetFlag) : existsSync(DEFAULT_FLEET_FILE) ? resolve(DEFAULT_FLEET_FILE) : null;
  const fleet = fleetFile === null ? null : readFleetFile(fleetFile).fleet;

  const outcome = await detect({
    engines,
    state,
    github: githubClient(policy, env, stringOption(spec, raw, 'github-api')),
    registries: registryClient(registryOverrides, policy),
    includePrereleases: booleanOption(raw, 'include-prereleases'),
    fleet,
    npm: npmClient(policy, env),
    ...(deps.bundles ? { bundles: deps.bundles } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });

  const json = `${JSON.stringify(outcome.report, null, 2)}\n`;
  const outFile = stringOption(spec, raw, 'out');
  if (outFile !== undefined) writeFileAtomic(resolve(outFile), json);
  // The state and the list of known releases are committed together by the nightly, so they live side by side.
  const releasesFile = resolve(stringOption(spec, raw, 'releases') ?? join(dirname(stateFile), 'releases.json'));
  const releases = appendReleases(readReleasesFile(releasesFile, { flag: '--releases', missingIsEmpty: true }), releasesOfReport(outcome.report), (engine) => `servebench detect: the releases it reported for ${engine}`);
  if (!dryRun) {
    saveDetectState(stateFile, outcome.state);
    if (releases.added.length > 0) writeFileAtomic(releasesFile, serializeReleases(releases.file));
  }
  stdout(json);
  const appended = releases.added.length === 0 ? 'no new known release' : `${releases.added.length} known release${releases.added.length === 1 ? '' : 's'} ${dryRun ? 'not appended (--dry-run)' : `appended to ${releasesFile}`} (${releases.added.map((r) => `${r.engine} ${r.release.version}`).join(', ')})`;
  const lastLine = `${dryRun ? 'state not written (--dry-run)' : `state written to ${stateFile}`}; ${appended}; ${fleetFile === null ? `no fleet file (${DEFAULT_FLEET_FILE}): official images only` : `fleet images from ${fleetFile}`}`;
  stderr(summary(outcome.report, engines.length - outcome.skipped.length, outcome.skipped, lastLine));
  // 1, as for a broken threshold: the poll finished and what it found is reported, but it is incomplete.
  return outcome.report.errors.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
}

export const detectCommand: Command = {
  spec,
  run: (argv, io) => runDetect(argv, io ?? {}),
};

function summary(report: DetectReport, polled: number, skipped: readonly string[], stateLine: string): string {
  const lines = [
    `detect: ${polled} engine${polled === 1 ? '' : 's'} polled${skipped.length > 0 ? `, skipped (no repository): ${skipped.join(', ')}` : ''}; ${report.new.length} new, ${report.pending.length} pending, ${report.errors.length} error${report.errors.length === 1 ? '' : 's'}${report.awaiting_images.length > 0 ? `, ${report.awaiting_images.length} awaiting images` : ''}${report.notes.length > 0 ? `, ${report.notes.length} note${report.notes.length === 1 ? '' : 's'}` : ''}`,
    ...report.new.map((v) => `  new      ${v.engine} ${v.version}  ${v.images_only ? `fleet images only: ${v.images.map((i) => i.image).join(', ')}` : v.npm ? `bundles ${v.tag} (npm ${v.npm.package}, bundle ${v.npm.bundle_commit.slice(0, 10)})` : (v.image ?? '(no image)')}  ${v.release_url}`),
    ...report.pending.map((v) => `  pending  ${v.engine} ${v.version}  ${v.reason}`),
    ...report.awaiting_images.map((v) => `  awaiting ${v.engine} ${v.version}  ${v.reason}`),
    ...report.errors.map((e) => `  error    ${e.engine}: ${e.message}`),
    ...report.notes.map((n) => `  note     ${n.engine}: ${n.message}`),
    stateLine,
  ];
  return `${lines.join('\n')}\n`;
}
