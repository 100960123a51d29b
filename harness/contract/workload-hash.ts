/**
 * workload.spec_sha256: the sha256 of the effective scenario as the result records it (JSON as
 * JSON.stringify writes it, after the redaction every result goes through), so anyone can
 * recompute it from the file alone. `servebench run` and `load` write it (run-load.ts); validate recomputes it (harness/store/workload-claims.ts); a shipped scenario's
 * hash is this of its workloads/*.yaml as the schema reads it.
 */
import { createHash } from 'node:crypto';
import { findCredentials, redactValue } from './credentials.ts';

export function workloadSpecSha256(spec: unknown): string {
  // findCredentials names every place redactValue changes: with none, the copy is the spec itself
  // (validate hashes every file's spec, and the copy was most of it).
  const redacted = findCredentials(spec).length === 0 ? spec : redactValue(spec);
  return createHash('sha256').update(JSON.stringify(redacted)).digest('hex');
}
