/**
 * `servebench sign [FILES or FOLDERS…] [--base GIT_REF] [--fulcio-url URL] [--rekor-url URL] [--json]`:
 * signs official results with Sigstore's keyless signing, in the nightly workflow: the identity is
 * the workflow's own (GitHub Actions' OIDC token, which a job with `permissions: id-token: write`
 * can ask for; SIGSTORE_ID_TOKEN also works), Fulcio certifies it for a key that lives only in this
 * process, Rekor logs the signature. The bundle goes to a sidecar next to the result
 * (<result>.json.sigstore.json), written whole or not at all and never over another: results and
 * their signatures are immutable.
 *
 * Only what validate accepts and says `source: official` is signed: the signature is the workflow
 * saying "the pipeline made this file", so a file it did not make (a community result) is refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_FULCIO_URL, DEFAULT_REKOR_URL, sign } from 'sigstore';
import { booleanOption, parseCommandLine, processIo, stringOption, type Command, type CommandSpec } from '../lib/cli/options.ts';
import { EXIT, usageError } from '../lib/errors.ts';
import { writeNewFileAtomic } from '../lib/io/atomic-write.ts';
import type { ResultProblem } from './check-result.ts';
import { diffAgainstBase } from './immutability.ts';
import type { BatchFile } from './parse-batch.ts';
import { formatProblemLine } from './problem-output.ts';
import { expandPositionals, resultsOfAdded } from './result-targets.ts';
import { signaturePathOf } from './signature-sidecar.ts';
import { parseFiles } from './store.ts';
import { RESULTS_OPTION } from './store-options.ts';

const spec: CommandSpec = {
  name: 'sign',
  summary: "sign official results with the workflow's own identity (Sigstore keyless: GitHub Actions' OIDC token), a signature sidecar next to each",
  usage: 'servebench sign [FILES or FOLDERS…] [--results DIR] [--base GIT_REF] [--fulcio-url URL] [--rekor-url URL] [--json]',
  options: [
    RESULTS_OPTION,
    { name: 'base', value: 'GIT_REF', help: 'Sign the result files added to --results since this commit (committed or not), e.g. HEAD after collect.' },
    { name: 'fulcio-url', value: 'URL', help: 'The Fulcio certificate authority.', default: DEFAULT_FULCIO_URL },
    { name: 'rekor-url', value: 'URL', help: 'The Rekor transparency log.', default: DEFAULT_REKOR_URL },
    { name: 'json', help: 'Machine-readable output: {signed, already_signed, problems}.' },
  ],
  epilog: [
    'Runs in the nightly workflow (a job with `permissions: id-token: write`); elsewhere set SIGSTORE_ID_TOKEN to an OIDC token Fulcio accepts. The signature names whoever ran it: `servebench verify` accepts only the nightly workflow of this repository on main.',
    'A file validate refuses, a community result, or one already signed is not signed (the last is no problem).',
    'Exit status: 0 every file signed or already signed, 1 some file refused (one line each), 2 bad usage, no identity token, or Fulcio/Rekor unreachable (files signed before that keep their signatures).',
  ].join('\n'),
};

export const signCommand: Command = {
  spec,
  async run(argv, io = processIo()) {
    const { options, positionals } = parseCommandLine(spec, argv);
    const resultsDir = resolve(stringOption(spec, options, 'results')!);
    const base = stringOption(spec, options, 'base');
    if ((positionals.length > 0) === (base !== undefined)) throw usageError('sign: name the result files or folders to sign, or give --base GIT_REF (the files added since), not both');
    const problems: ResultProblem[] = [];
    let targets: BatchFile[];
    if (base !== undefined) {
      const diff = diffAgainstBase(resultsDir, base);
      const added = resultsOfAdded(resultsDir, [...diff.added, ...diff.addedSignatures]);
      problems.push(...diff.problems, ...added.problems);
      targets = added.files.map((file) => ({ relativePath: file, absolutePath: resolve(resultsDir, file) }));
    } else {
      const named = expandPositionals('sign', resultsDir, positionals);
      problems.push(...named.problems);
      targets = named.targets;
    }
    const { verdicts } = await parseFiles(targets, null);
    const problemsOf = new Map(verdicts.map((v) => [v.relativePath, v.problems]));
    const signed: string[] = [];
    const alreadySigned: string[] = [];
    for (const target of targets) {
      const file = target.relativePath;
      const refused = problemsOf.get(file) ?? [];
      if (refused.length > 0) {
        problems.push(...refused);
        continue;
      }
      // Exactly the bytes validate read: the signature is over the file as stored.
      const bytes = readFileSync(target.absolutePath);
      const source = (JSON.parse(bytes.toString('utf8')) as { source?: string }).source ?? 'community';
      if (source !== 'official') {
        problems.push({ file, path: 'source', message: `[sign-official-only] a ${source} result: the nightly workflow signs the results it made (source: official) only`, fix: 'leave it unsigned; community results are checked by their content' });
        continue;
      }
      // validate refused a sidecar that is malformed or over other bytes: one still there signs this file.
      if (existsSync(signaturePathOf(target.absolutePath))) {
        alreadySigned.push(file);
        continue;
      }
      let bundle: unknown;
      try {
        bundle = await sign(bytes, { fulcioURL: stringOption(spec, options, 'fulcio-url')!, rekorURL: stringOption(spec, options, 'rekor-url')! });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw usageError(`sign: ${file}: no signature could be made (${reason.slice(0, 300)}); sign runs in the nightly workflow with \`permissions: id-token: write\` (or with SIGSTORE_ID_TOKEN set), and needs Fulcio and Rekor reachable${signed.length > 0 ? `; ${signed.length} file(s) signed before this one keep their signatures` : ''}`);
      }
      await writeNewFileAtomic(signaturePathOf(target.absolutePath), `${JSON.stringify(bundle, null, 2)}\n`);
      signed.push(file);
    }
    if (booleanOption(options, 'json')) {
      io.stdout(`${JSON.stringify({ signed, already_signed: alreadySigned, problems }, null, 2)}\n`);
    } else {
      for (const file of signed) io.stdout(`signed ${file}\n`);
      for (const file of alreadySigned) io.stdout(`already signed ${file}\n`);
      for (const problem of problems) io.stderr(`${formatProblemLine(problem)}\n`);
      io.stderr(`${signed.length} signed, ${alreadySigned.length} already signed, ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
    }
    return problems.length > 0 ? EXIT.thresholdExceeded : EXIT.ok;
  },
};
