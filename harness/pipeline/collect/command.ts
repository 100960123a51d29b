/**
 * `servebench collect`: the nightly's collect step. The jobs' result files, in one folder (GitHub
 * artifacts downloaded into it, a Kubernetes results claim copied out, a SLURM job's shared
 * results folder), go into results/ (checked, at their content-derived paths, never over another
 * file); the plan's jobs that left no result are named, and with --detect-state the new releases
 * they were planned for go back to pending in detect's state. Text or JSON on stdout, Markdown for
 * $GITHUB_STEP_SUMMARY with --summary.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { booleanOption, parseCommandArgs, stringOption, type CommandSpec, type Command, processIo, type CommandIo } from '../../lib/cli/options.ts';
import { EXIT, usageError } from '../../lib/errors.ts';
import { formatProblemLine } from '../../store/problem-output.ts';
import { RESULTS_OPTION } from '../../store/store-options.ts';
import { collectResults, type CollectReport } from './collect.ts';
import { loadPlanFile } from './plan-input.ts';
import { collectMarkdown } from './markdown.ts';

const spec: CommandSpec = {
  name: 'collect',
  summary: "put the nightly jobs' result files into results/ (checked, never overwriting) and name the planned jobs that left none",
  usage: 'servebench collect --from DIR [--plan FILE [--since TIME] [--detect-state FILE]] [--results DIR] [--summary FILE] [--require-all] [--json]',
  options: [
    {
      name: 'from',
      value: 'DIR',
      help: "The folder the results are in, nested however: the jobs' artifacts downloaded into it, a Kubernetes results claim copied out (kubectl cp), a SLURM job's shared results folder. Every *.json below it is taken for a result (a <result>.json.sigstore.json signature goes with its result); logs (.log, .out, .err, .txt, .yaml) are left alone; other files are reported as stray.",
    },
    { name: 'plan', value: 'FILE', help: 'The plan.json of `servebench plan --out DIR`: its jobs without a result are listed (without it, nothing is compared).' },
    {
      name: 'since',
      value: 'TIME',
      help: 'Only results created at or after TIME (ISO 8601 with its zone, or a day) account for the plan\'s jobs: for a claim or shared folder that keeps the nights before, give the time the night was submitted. Older results are still collected (needs --plan).',
    },
    {
      name: 'detect-state',
      value: 'FILE',
      help: 'The `servebench detect` state (fleet/detect-state.json): each new release a missing job (trigger "new") was planned for is put back to pending there, so the next detect reports it again (needs --plan).',
    },
    RESULTS_OPTION,
    { name: 'summary', value: 'FILE', help: 'Also append the report as Markdown to FILE (e.g. "$GITHUB_STEP_SUMMARY").' },
    { name: 'require-all', help: 'Exit with status 1 when a planned job left no result.' },
    { name: 'json', help: 'Print the report as JSON instead of text.' },
  ],
  epilog: [
    'Each file is checked as `servebench validate` checks it and written (atomically) at results/<date>/<engine>/<model>/<hardware>/<workload>-<hash>.json, the path its content dictates.',
    'The same file already there is fine (a re-run writes nothing); a different file at that path, a run_id already in results/, or one run_id with two different files is a conflict: nothing is overwritten or written.',
    'A planned job is accounted for by a result collected (or already present) now that matches it (engine, version, model and parameters, workload and load, GPU type): its recorded --engine-version V matches only the jobs pinned to V, none only the "latest" jobs; a result without hardware (GPUs unreadable) matches a CPU job, else, last, a GPU job of its configuration; a failed run counts, a missing one is never filled in.',
    'With --detect-state FILE, each (engine, version) that a missing job planned for a new release (trigger "new") was to measure is made pending again in FILE (no longer seen; reason "no result from N planned jobs on <day>"), written atomically: detect re-checks pending versions on every poll (a 304 too) and reports them new again. A release whose jobs all left a result stays seen; a "latest" job never changes the state; an engine the state does not hold is left alone (reported).',
    'Stray files under --from (a temp file of a write that was killed, an NFS placeholder, an archive, a link, a copy of the plan) are listed with the fix and left alone; they do not change the exit status. A folder that cannot be read is a problem: results may be in it.',
    'Exit status: 0 all collected; 1 invalid files or conflicts (a folder that cannot be read counts as invalid), or (with --require-all) missing jobs; 2 bad usage (no --from folder, a checkout as --from, an unreadable plan, a bad --since).',
  ].join('\n'),
};

export interface CollectIo extends Pick<CommandIo, 'stdout' | 'stderr'> {
  /** The clock (the day put-back reasons name); default the system's. */
  readonly now?: () => Date;
}

function textReport(report: CollectReport): string {
  const bad = new Set(report.invalid.map((p) => p.file)).size;
  const lines = [
    `collect: ${report.found} result file${report.found === 1 ? '' : 's'} under ${report.from} (${report.ignored} other file${report.ignored === 1 ? '' : 's'} ignored${report.stray.length > 0 ? `, ${report.stray.length} stray` : ''}): ${report.collected.length} collected, ${report.already_present.length} already in results, ${report.duplicates.length} duplicate${report.duplicates.length === 1 ? '' : 's'}, ${bad} invalid, ${report.conflicts.length} conflict${report.conflicts.length === 1 ? '' : 's'}`,
    ...report.collected.map((c) => `  collected  ${c.path}  (${c.engine} ${c.version ?? '(no version)'}, ${c.status})`),
    ...report.already_present.map((c) => `  present    ${c.path}`),
    ...report.duplicates.map((d) => `  duplicate  ${d.file} (same bytes as ${d.same_as})`),
    ...report.invalid.map((p) => `  invalid    ${formatProblemLine(p)}`),
    ...report.conflicts.map((p) => `  conflict   ${formatProblemLine(p)}`),
    ...report.stray.map((p) => `  stray      ${formatProblemLine(p)}`),
  ];
  if (report.plan !== null) {
    lines.push(`plan ${report.plan.plan_id}: ${report.plan.jobs} job${report.plan.jobs === 1 ? '' : 's'}, ${report.missing.length} without a result${report.plan.since ? ` created since ${report.plan.since}` : ''}`);
    lines.push(...report.missing.map((m) => `  missing    ${m.name}  ${m.engine} ${m.version} · ${m.model} tp${m.tp} · ${m.gpu_type} · ${m.workload}`));
  }
  const state = report.detect_state;
  if (state !== null) {
    lines.push(`detect state ${state.file}: ${state.put_back.length} new release${state.put_back.length === 1 ? '' : 's'} put back to pending${state.written ? '' : ' (file unchanged)'}`);
    lines.push(...state.put_back.map((p) => `  pending    ${p.engine} ${p.version}: ${p.reason}`));
    lines.push(...state.not_put_back.map((p) => `  not put back  ${p.engine} ${p.version}: ${p.reason}`));
  }
  // Names come from files anyone could have uploaded: no terminal escape sequences.
  return `${lines.join('\n').replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]+/g, ' ')}\n`;
}

export async function runCollect(argv: readonly string[], io: CollectIo): Promise<number> {
  const raw = parseCommandArgs(spec, argv);
  const from = stringOption(spec, raw, 'from');
  if (from === undefined) throw usageError("collect: --from DIR is required (the folder the results are in: the jobs' downloaded artifacts, a results claim copied out, a SLURM shared results folder)");
  const planFile = stringOption(spec, raw, 'plan');
  const plan = planFile === undefined ? null : loadPlanFile(resolve(planFile));
  const requireAll = booleanOption(raw, 'require-all');
  const detectState = stringOption(spec, raw, 'detect-state');
  if (detectState !== undefined && plan === null) throw usageError('--detect-state needs --plan: the new releases put back are those of the planned jobs that left no result');
  const since = stringOption(spec, raw, 'since');
  if (since !== undefined && plan === null) throw usageError('--since needs --plan: it says which results account for the planned jobs');
  const report = await collectResults({
    from: resolve(from),
    resultsDir: resolve(stringOption(spec, raw, 'results')!),
    plan,
    since: since ?? null,
    detectState: detectState === undefined ? null : resolve(detectState),
    ...(io.now ? { now: io.now } : {}),
  });

  const summary = stringOption(spec, raw, 'summary');
  // Appended: the step summary file collects every step's Markdown.
  if (summary !== undefined) appendFileSync(summary, collectMarkdown(report, requireAll));
  if (booleanOption(raw, 'json')) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(textReport(report));

  const failed = report.invalid.length > 0 || report.conflicts.length > 0 || (requireAll && report.missing.length > 0);
  if (failed && !booleanOption(raw, 'json')) {
    const reasons = [
      ...(report.invalid.length > 0 ? ['invalid files were not collected'] : []),
      ...(report.conflicts.length > 0 ? ['conflicting files were not collected'] : []),
      ...(requireAll && report.missing.length > 0 ? [`${report.missing.length} planned job${report.missing.length === 1 ? '' : 's'} left no result (--require-all)`] : []),
    ];
    io.stderr(`servebench collect: ${reasons.join('; ')}\n`);
  }
  return failed ? EXIT.thresholdExceeded : EXIT.ok;
}

export const collectCommand: Command = {
  spec,
  run: (argv, io = processIo()) => runCollect(argv, io),
};
