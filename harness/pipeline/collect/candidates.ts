/**
 * collect's reading side: every file under --from, each *.json checked as a result by the store's
 * validator (and its signature sidecar with it), the rest sorted into logs (left alone quietly)
 * and strays (reported with their fix).
 *
 * Where the files come from does not matter, only that they are in one folder, nested however:
 * GitHub Actions artifacts downloaded into it (one folder per job, server logs next to the
 * results), a Kubernetes results claim copied out of a helper pod (`kubectl cp`: the claim holds
 * results/<date>/… as the runs wrote them, perhaps a lost+found), or a SLURM job's shared folder
 * (the fleet's results_dir, and the job logs of log_dir next to it). Every *.json is taken for a
 * result (but a signature sidecar, <result>.json.sigstore.json, which is checked with its result and
 * written next to it); logs are counted and left; anything else is reported as stray (file, problem, fix),
 * which does not fail the collect: an unfinished write's temp file, an NFS placeholder, an
 * archive, a link (never followed).
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { resultRelativePath } from '../../contract/result-path.ts';
import type { RunResult } from '../../contract/result.ts';
import { checkResultText, type ResultProblem } from '../../store/check-result.ts';
import { readResultText } from '../../store/result-files.ts';
import { checkSignatureSidecar, isSignatureFile, orphanSignatureProblem, resultPathOfSignature, signaturePathOf } from '../../store/signature-sidecar.ts';
import { fileSizeProblem } from '../../store/store-limits.ts';
import { PLAN_FORMAT } from '../plan/plan-file.ts';

/** A valid result found under --from, with the place in results/ its content dictates. */
export interface Candidate {
  readonly file: string;
  readonly text: string;
  readonly result: RunResult;
  readonly sha256: string;
  readonly path: string;
  /** Its signature sidecar's text (checked: a bundle over these bytes), written next to it in results/. */
  readonly signature: string | null;
}

function posix(path: string): string {
  return path.split(sep).join('/');
}

/** Files that belong next to results and are left alone quietly: logs (server, job, SLURM's %x-%j.out), engine settings, job scripts, notes. */
const LOG_FILE = /\.(log|out|err|txt|ya?ml|md|sbatch|sh)$|^\.gitkeep$/i;
/** writeNewFileAtomic's temp name: the result was never linked into place (the writer was killed). */
const UNFINISHED_WRITE = /^\..+\.json\.[0-9a-f]+\.tmp$/;
const ARCHIVE = /\.(gz|tgz|zst|xz|bz2|zip|tar)$/i;
/** What `servebench plan --out` writes: a copy of it next to the results is not a result. */
const PLAN_FILES = new Set(['plan.json', 'matrix.json', 'lanes.json']);

/** Why a file under --from that is no *.json is reported, or null when it is a log, left alone quietly. */
function strayProblem(file: string, entry: Dirent): ResultProblem | null {
  const name = entry.name;
  if (entry.isSymbolicLink()) {
    return { file, path: '', message: '[not-a-result] a symbolic link (links are never followed)', fix: 'copy the files it points to under --from (kubectl cp, rsync -a and cp -r copy the files), or give that folder as --from' };
  }
  if (!entry.isFile()) return { file, path: '', message: '[not-a-result] not a regular file', fix: 'collect reads regular *.json files only; leave it out of --from' };
  if (UNFINISHED_WRITE.test(name)) {
    return { file, path: '', message: '[not-a-result] an unfinished result write (the run was killed while writing its result)', fix: 'that attempt left no result; its job is reported missing if nothing else accounts for it; delete the file' };
  }
  if (name.startsWith('.nfs')) return { file, path: '', message: '[not-a-result] an NFS placeholder of a file deleted while still open', fix: 'it goes away when the process holding it exits; delete it then' };
  if (LOG_FILE.test(name)) return null;
  if (ARCHIVE.test(name)) return { file, path: '', message: '[not-a-result] an archive: the results in it are not read', fix: 'unpack it under --from (collect reads *.json files only)' };
  return { file, path: '', message: '[not-a-result] not a result file (collect reads *.json files; logs are left alone)', fix: 'results are the *.json files `servebench run` writes; move anything else out of --from' };
}

/** A plan's own files (plan.json, matrix.json, lanes.json) copied next to the results: reported, not taken for results. */
function planFileProblem(file: string, name: string, text: string): ResultProblem | null {
  if (!PLAN_FILES.has(name)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  const isPlan = record['format'] === PLAN_FORMAT;
  if (!isPlan && !Array.isArray(record['include'])) return null;
  return { file, path: '', message: isPlan ? '[not-a-result] a plan (`servebench plan --out`), not a result' : '[not-a-result] a GitHub Actions matrix of `servebench plan --out`, not a result', fix: isPlan ? 'give it with --plan; keep the plan folder out of --from' : 'keep the plan folder out of --from' };
}

/**
 * Every file under `from` (recursively, links not followed): *.json files checked as results,
 * logs counted, the rest reported as stray. A folder that cannot be read is a problem (results
 * may be in it); a filesystem's lost+found is skipped.
 */
export function readCandidates(from: string, publishedStore: boolean): { candidates: Candidate[]; invalid: ResultProblem[]; stray: ResultProblem[]; found: number; ignored: number } {
  const candidates: Candidate[] = [];
  const invalid: ResultProblem[] = [];
  const stray: ResultProblem[] = [];
  let found = 0;
  let ignored = 0;
  const entries: Array<{ entry: Dirent; file: string }> = [];
  const walk = (dir: string, prefix: string): void => {
    let listed: Dirent[];
    try {
      listed = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      invalid.push({ file: prefix === '' ? '.' : prefix.slice(0, -1), path: '', message: `[unreadable] cannot read the folder: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, fix: 'give collect read access to it (a claim mounted with another owner: copy it out with kubectl cp first), or remove it' });
      return;
    }
    for (const entry of listed) {
      const file = `${prefix}${entry.name}`;
      if (entry.isDirectory()) {
        // ext4's lost+found at a volume's root (a results claim): never results, often unreadable.
        if (entry.name === 'lost+found') ignored += 1;
        else walk(join(dir, entry.name), `${file}/`);
        continue;
      }
      entries.push({ entry, file });
    }
  };
  walk(from, '');
  entries.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const signatures = new Set<string>();
  for (const { entry, file } of entries) {
    // A signature travels with its result; it is checked with it below.
    if (isSignatureFile(entry.name)) {
      if (entry.isFile()) signatures.add(file);
      else stray.push(strayProblem(file, entry)!);
      continue;
    }
    if (!entry.name.endsWith('.json')) {
      const problem = strayProblem(file, entry);
      if (problem === null) ignored += 1;
      else stray.push(problem);
      continue;
    }
    found += 1;
    // An artifact is untrusted: a link could point anywhere on the collecting machine.
    if (!entry.isFile()) {
      invalid.push({ file, path: '', message: entry.isSymbolicLink() ? '[not-a-result] a symbolic link' : '[not-a-result] not a regular file', fix: 'upload the result files `servebench run` wrote, not links to them' });
      continue;
    }
    const absolute = join(from, file);
    let text: string;
    try {
      // Sized before it is read: an artifact may be huge.
      const read = readResultText(absolute);
      if ('tooLarge' in read) {
        invalid.push(fileSizeProblem(file, read.tooLarge));
        continue;
      }
      text = read.text;
    } catch (error) {
      invalid.push({ file, path: '', message: `[unreadable] cannot read: ${(error as Error).message}`, fix: 'check the file permissions' });
      continue;
    }
    const planFile = planFileProblem(file, entry.name, text);
    if (planFile !== null) {
      found -= 1;
      stray.push(planFile);
      continue;
    }
    // The content is checked here; its place in results/ is derived from it below, so the
    // validator's path check holds by construction.
    const checked = checkResultText(file, text, null, { publishedStore });
    if (!checked.result) {
      invalid.push(...checked.problems);
      continue;
    }
    const signature = checkSignatureSidecar(file, absolute, checked.sha256);
    if (signature.problems.length > 0) {
      invalid.push(...signature.problems);
      continue;
    }
    const signatureText = signature.present ? readFileSync(signaturePathOf(absolute), 'utf8') : null;
    candidates.push({ file, text, result: checked.result, sha256: checked.sha256, path: posix(resultRelativePath(checked.result, text, checked.sha256)), signature: signatureText });
  }
  const jsonFiles = new Set(entries.map((e) => e.file));
  for (const file of signatures) if (!jsonFiles.has(resultPathOfSignature(file))) stray.push(orphanSignatureProblem(file));
  return { candidates, invalid, stray, found, ignored };
}
