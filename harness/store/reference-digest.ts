/**
 * What the check of a result reads besides the result: the known-release lists, the hardware
 * table, the model sizes, the engine specs' names and the shipped scenarios' hashes. A compile's
 * cached verdicts and rows (engine_version_known, workload_spec_shipped) are only valid for the
 * reference data they were made with, so the store's cache version and the snapshot's inputs
 * digest must include this digest: a release appended by detect re-reads the results.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { releasesFilePaths } from '../contract/releases.ts';
import { WORKLOADS_DIR } from '../lib/specs/spec-folders.ts';
import { listSpecFiles } from '../lib/specs/yaml-spec.ts';
import { engineNames } from './engine-names.ts';
import { HARDWARE_FILE } from './hardware-limits.ts';
import { MODEL_SIZES } from './model-sizes.ts';
import { shippedSpecHash } from './workload-claims.ts';

export function referenceDigest(env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash('sha256');
  for (const file of releasesFilePaths(env)) hash.update(`releases\0${readFileSync(file, 'utf8')}\0`);
  hash.update(`hardware\0${readFileSync(HARDWARE_FILE, 'utf8')}\0`);
  hash.update(`models\0${JSON.stringify([...MODEL_SIZES])}\0`);
  hash.update(`engines\0${[...engineNames()].sort().join(',')}\0`);
  for (const file of listSpecFiles(WORKLOADS_DIR)) {
    const name = basename(file).replace(/\.ya?ml$/, '');
    hash.update(`workload\0${name}\0${shippedSpecHash(name) ?? ''}\0`);
  }
  return hash.digest('hex').slice(0, 12);
}
