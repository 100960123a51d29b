/**
 * workload.spec_sha256: the sha256 of the effective scenario as the result records it (JSON as
 * JSON.stringify writes it, after the redaction every result goes through), so anyone can
 * recompute it from the file alone. `servebench run` and `load` write it (run-load.ts); validate recomputes it (harness/store/workload-claims.ts); a shipped scenario's
 * hash is this of its workloads/*.yaml as the schema reads it.
 */
import { createHash } from 'node:crypto';
import { redactValue } from './credentials.ts';

export function workloadSpecSha256(spec: unknown): string {
  return createHash('sha256').update(JSON.stringify(redactValue(spec))).digest('hex');
}
