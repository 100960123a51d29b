/**
 * `servebench verify FILES or FOLDERS… [--require-signature] [--repo-url URL] [--trusted-root FILE] [--json]`:
 * checks result files offline as a reader, an engine maintainer or the submission check would
 * (verify.ts), one line per file, with the exit status InferenceX's `verify` uses.
 */
import { relative, resolve, sep } from 'node:path';
import type { TrustMaterial } from '@sigstore/verify';
import { repositoryUrlFromEnv } from '../contract/repository-url.ts';
import { booleanOption, parseCommandLine, processIo, stringOption, type Command, type CommandSpec } from '../lib/cli/options.ts';
import { usageError } from '../lib/errors.ts';
import { formatProblemLine, githubAnnotation } from './problem-output.ts';
import { expandPositionals } from './result-targets.ts';
import { RESULTS_OPTION } from './store-options.ts';
import { verifyExitCode, verifyFiles, type FileReport } from './verify.ts';
import { loadTrust, nightlyIdentity, SIGNING_REF, SIGNING_WORKFLOW } from './verify-signature.ts';

const spec: CommandSpec = {
  name: 'verify',
  summary: "check result files offline: everything validate checks, the content hash in the name, and the signature of official results (the nightly workflow's, on main)",
  usage: 'servebench verify FILES or FOLDERS… [--require-signature] [--repo-url URL] [--trusted-root FILE] [--json]',
  options: [
    { ...RESULTS_OPTION, help: 'The results folder: a file inside it is also checked to sit at the path its content dictates.' },
    { name: 'require-signature', help: 'An official result must carry the nightly workflow\'s signature ("official, unsigned" is then a policy failure).' },
    { name: 'repo-url', value: 'URL', help: `The repository whose ${SIGNING_WORKFLOW} on ${SIGNING_REF} signs official results (default: $SERVEBENCH_REPO_URL, else the GitHub Actions run's repository, else the checkout's origin remote). Never taken from a result.` },
    { name: 'trusted-root', value: 'FILE', help: "A Sigstore trusted_root.json to verify against (default: the public-good instance's, as the installed @sigstore/tuf ships it; no network)." },
    { name: 'json', help: 'Machine-readable output: {files: [{file, status, provenance, signer?, problems}]}.' },
  ],
  epilog: [
    'A folder stands for every result file under it, recursively; a signature sidecar (<result>.json.sigstore.json) for its result.',
    'Status per file: valid; invalid (a check fails, or the signature does not verify over the bytes); policy (a valid signature by another repository, workflow, branch or issuer; a signed community file; with --require-signature an official result without the signature); bad-input (unreadable, or not a result).',
    'Provenance: "official, signed", "official, unsigned" (official, made outside the nightly workflow, e.g. the CPU lane run by hand) or "community".',
    'Not checked offline: that the trust root is current (Sigstore rotates it through TUF; pass a fresh one with --trusted-root).',
    'Exit status: the first that applies: 2 bad input (a path missing or unreadable, a file that is not a result, bad usage), 1 invalid, 3 policy failure; else 0.',
  ].join('\n'),
};

function line(report: FileReport): string {
  return `${report.file}: ${report.status}${report.provenance === null ? '' : ` (${report.provenance})`}`;
}

export const verifyCommand: Command = {
  spec,
  async run(argv, io = processIo()) {
    const { options, positionals } = parseCommandLine(spec, argv);
    if (positionals.length === 0) throw usageError('verify: name the result files or folders to verify; see `servebench verify --help`');
    const resultsDir = resolve(stringOption(spec, options, 'results')!);
    const repository = stringOption(spec, options, 'repo-url') ?? repositoryUrlFromEnv(io.env);
    const expected = repository === null ? null : nightlyIdentity(repository);
    const trustedRoot = stringOption(spec, options, 'trusted-root') ?? null;
    let trust: TrustMaterial | undefined;
    if (trustedRoot !== null) trust = loadTrust(trustedRoot);
    const { targets, problems } = expandPositionals('verify', resultsDir, positionals);
    const reports = await verifyFiles(targets, { expected, requireSignature: booleanOption(options, 'require-signature'), trust: () => (trust ??= loadTrust(null)) });
    // What a folder holds besides results (an orphan signature, a link) is a file of its own that fails.
    const byFile = new Map<string, FileReport>();
    for (const problem of problems) {
      const report = byFile.get(problem.file);
      byFile.set(problem.file, { file: problem.file, status: 'invalid', provenance: null, problems: [...(report?.problems ?? []), problem] });
    }
    const all = [...reports, ...byFile.values()];
    if (booleanOption(options, 'json')) {
      io.stdout(`${JSON.stringify({ files: all }, null, 2)}\n`);
    } else {
      for (const report of all) {
        io.stdout(`${line(report)}\n`);
        for (const problem of report.problems) io.stderr(`${formatProblemLine(problem)}\n`);
      }
      const counts = (['valid', 'invalid', 'policy', 'bad-input'] as const).map((status) => [status, all.filter((r) => r.status === status).length] as const).filter(([, n]) => n > 0);
      io.stderr(`${all.length} file${all.length === 1 ? '' : 's'}: ${counts.map(([status, n]) => `${n} ${status}`).join(', ')}\n`);
    }
    if (io.env['GITHUB_ACTIONS'] === 'true' && !booleanOption(options, 'json')) {
      // As validate: results-folder paths get the folder in front; files given from outside it are named as given.
      const prefix = `${relative(process.cwd(), resultsDir).split(sep).join('/')}/`;
      const outside = new Set(targets.filter((t) => t.placed === false).map((t) => t.relativePath));
      for (const problem of all.flatMap((r) => r.problems)) io.stdout(`${githubAnnotation(problem, outside.has(problem.file) ? '' : prefix)}\n`);
    }
    return verifyExitCode(all);
  },
};
