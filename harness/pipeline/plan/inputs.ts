/**
 * The inputs of `servebench plan`, read and checked before anything is planned: the fleet file
 * (its schema, then everything it names in other files: engines/, workloads/, fleet/prices.yaml,
 * and whether each engine can run each model and has an image for each GPU type), and the
 * releases `servebench detect` reported. One problem per line: file, field, what to do.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { usageError } from '../../lib/errors.ts';
import { readJsonFile } from '../../lib/io/json-file.ts';
import { ENGINES_DIR, checkEngineFile, listEngineFiles } from '../../measure/engines/spec-file.ts';
import { DEFAULT_PRICES, loadPrices } from '../../store/prices.ts';
import { FleetSchema, VersionSchema, type Fleet } from '../../contract/fleet.ts';
import type { Engine } from '../../contract/engine.ts';
import type { Workload } from '../../contract/workload.ts';
import { formatProblems, type SpecProblem } from '../../lib/specs/yaml-spec.ts';
import { WORKLOADS_DIR, checkSpecFile } from '../../measure/workloads/spec-file.ts';
import { entryLoads, expandPlan, modelProblem, plannedModel, resolveImage } from './plan.ts';
import { describeHeldEqualProblem, entryHeldEqual, heldEqualProblem } from './held-equal.ts';
import { NOTHING_HELD } from '../../contract/held-equal.ts';
import { LATEST, type NewRelease, type Plan, type PlanInputs } from './plan-file.ts';

export interface LoadedFleet {
  readonly fleet: Fleet;
  readonly sha256: string;
  readonly engines: ReadonlyMap<string, Engine>;
  /** Every engine name in engines/. */
  readonly knownEngines: readonly string[];
  readonly workloads: ReadonlyMap<string, Workload>;
}

export interface FleetDirs {
  readonly enginesDir?: string;
  readonly workloadsDir?: string;
  /** The price table compile uses; a missing file skips the price check. */
  readonly pricesFile?: string;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}; remove or fix the spelling`;
  return issue.message;
}

function fail(file: string, problems: readonly SpecProblem[]): never {
  throw usageError(`--fleet: invalid fleet file\n${formatProblems(problems.map((p) => ({ ...p, file })))}`);
}

/**
 * The fleet file checked against its schema only (not the files it names): what detect needs of
 * it (the GPU types, the matrix and the engines' images), without failing on a broken workload spec.
 */
export function readFleetFile(file: string): { fleet: Fleet; text: string } {
  if (!existsSync(file)) throw usageError(`--fleet: no file ${file}; give the fleet file (e.g. fleet/fleet.yaml)`);
  const text = readFileSync(file, 'utf8');
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` (line ${error.linePos[0].line})` : '';
    fail(file, [{ file, field: '(file)', message: `not readable YAML${where}: ${(error as Error).message.split('\n')[0]}` }]);
  }
  const parsed = FleetSchema.safeParse(raw);
  if (!parsed.success) fail(file, parsed.error.issues.map((issue) => ({ file, field: issue.path.join('.') || '(top level)', message: describeIssue(issue) })));
  return { fleet: parsed.data, text };
}

/** The fleet file and the specs it names, or a usage error listing every problem. */
export function loadFleet(file: string, dirs: FleetDirs = {}): LoadedFleet {
  const { fleet, text } = readFleetFile(file);
  const problems: SpecProblem[] = [];
  const problem = (field: string, message: string): void => void problems.push({ file, field, message });

  const engines = new Map<string, Engine>();
  const engineAt = (name: string, field: string): Engine | null => {
    if (engines.has(name)) return engines.get(name)!;
    const path = join(dirs.enginesDir ?? ENGINES_DIR, `${name}.yaml`);
    if (!existsSync(path)) {
      problem(field, `no engine "${name}" in engines/; see \`servebench engines list\``);
      return null;
    }
    const { engine, problems: specProblems } = checkEngineFile(path);
    if (!engine) {
      problem(field, `engine "${name}" has an invalid spec (${specProblems.map((p) => `${p.field}: ${p.message}`).join('; ')}); fix engines/${name}.yaml`);
      return null;
    }
    engines.set(name, engine);
    return engine;
  };
  const workloads = new Map<string, Workload>();
  const workloadAt = (name: string, field: string): void => {
    if (workloads.has(name)) return;
    const path = join(dirs.workloadsDir ?? WORKLOADS_DIR, `${name}.yaml`);
    if (!existsSync(path)) return problem(field, `no workload "${name}" in workloads/; see \`servebench workloads list\``);
    const { workload, problems: specProblems } = checkSpecFile(path);
    if (!workload) return problem(field, `workload "${name}" has an invalid spec (${specProblems.map((p) => `${p.field}: ${p.message}`).join('; ')})`);
    workloads.set(name, workload);
  };

  for (const name of Object.keys(fleet.engines)) engineAt(name, `engines.${name}`);
  const pricesFile = dirs.pricesFile ?? DEFAULT_PRICES;
  if (existsSync(pricesFile)) {
    const priced = new Set(loadPrices(pricesFile).prices.map((p) => p.gpu.toLowerCase()));
    fleet.gpu_types.forEach((type, i) => {
      if (type.price !== null && !priced.has(type.price.toLowerCase())) problem(`gpu_types.${i}.price`, `"${type.price}" is no gpu in ${pricesFile}; add a price there or use one of: ${[...priced].join(', ')}`);
    });
  }
  const types = new Map(fleet.gpu_types.map((t) => [t.id, t]));
  fleet.matrix.forEach((entry, i) => {
    entry.workloads.forEach((ref, j) => workloadAt(typeof ref === 'string' ? ref : ref.name, `matrix.${i}.workloads.${j}`));
    const resolvedHeld = entryHeldEqual(fleet, entry, entryLoads(entry, workloads));
    if ('problem' in resolvedHeld) problem(`matrix.${i}.held_equal`, resolvedHeld.problem);
    const held = 'held' in resolvedHeld ? resolvedHeld.held : NOTHING_HELD;
    entry.engines.forEach((name, j) => {
      const engine = engineAt(name, `matrix.${i}.engines.${j}`);
      if (!engine) return;
      const heldProblem = heldEqualProblem(engine, held);
      if (heldProblem !== null) {
        problem(`matrix.${i}.engines.${j}`, describeHeldEqualProblem(entry, name, heldProblem));
        return;
      }
      entry.models.forEach((model, k) => {
        const reason = modelProblem(engine, plannedModel(model, held));
        if (reason) problem(`matrix.${i}.models.${k}`, `${reason} (engine ${name})`);
      });
      // Each version source this entry can plan must resolve to an image (or a process launch).
      const versions = [...(entry.nightly ? [fleet.engines[name]?.version ?? LATEST] : []), ...(entry.new_versions ? ['0.0.0'] : [])];
      for (const typeId of entry.gpu_types) {
        // npm versions (node-llama-cpp 3.8.1) name no image: they run as servebench's own CPU build only.
        if (entry.new_versions && engine.source.npm !== undefined && types.get(typeId)!.vendor !== 'cpu') {
          problem(`matrix.${i}.gpu_types`, `${typeId}: new releases of ${name} come from npm (${engine.source.npm}) and run as servebench's own CPU build; plan them on a cpu GPU type, or set new_versions: false here`);
          continue;
        }
        for (const version of new Set(versions)) {
          const resolved = resolveImage(engine, fleet.engines[name], types.get(typeId)!, version);
          if ('problem' in resolved) problem(`matrix.${i}.gpu_types`, `${typeId}: ${resolved.problem}`);
        }
      }
    });
  });
  if (problems.length > 0) fail(file, problems);
  const knownEngines = listEngineFiles(dirs.enginesDir ?? ENGINES_DIR).map((f) => basename(f).replace(/\.ya?ml$/, ''));
  return { fleet, sha256: createHash('sha256').update(text).digest('hex'), engines, knownEngines, workloads };
}

const ReleaseSchema = z
  .object({
    engine: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'an engine name'),
    version: VersionSchema,
    tag: z.string().nullable().optional(),
    image: z.string().regex(/^\S+$/, 'an image reference without spaces').nullable().optional(),
    release_url: z.string().nullable().optional(),
    published_at: z.string().nullable().optional(),
    // The fleet's other images of the release, as detect checked them (absent from an older detect's output).
    images: z
      .array(
        z
          .object({
            image: z.string().regex(/^\S+$/, 'an image reference without spaces'),
            published: z.boolean(),
            key: z.string().optional(),
            gpu_types: z.array(z.string()).optional(),
          })
          .loose(),
      )
      .optional(),
    images_only: z.boolean().optional(),
  })
  .loose();

/** `servebench detect --json` output: only its `new` array is read. */
const DetectOutputSchema = z.object({ new: z.array(ReleaseSchema) }).loose();

export function loadNewReleases(file: string): NewRelease[] {
  const fix = 'give the JSON `servebench detect` wrote';
  if (!existsSync(file)) throw usageError(`--new: no file ${file}; ${fix}`);
  return readJsonFile(file, DetectOutputSchema, { flag: '--new', fix, describe: describeIssue }).new;
}

/** What to plan of a loaded fleet: everything of PlanInputs that the fleet file does not give. */
export type PlanSelection = Omit<PlanInputs, 'fleet' | 'fleetFile' | 'fleetSha256' | 'engines' | 'knownEngines' | 'workloads'>;

/** The plan of a fleet file loaded with loadFleet, for a selection (nightly set, releases, filters). */
export function planLoadedFleet(file: string, loaded: LoadedFleet, selection: PlanSelection): Plan {
  return expandPlan({ fleet: loaded.fleet, fleetFile: file, fleetSha256: loaded.sha256, engines: loaded.engines, knownEngines: loaded.knownEngines, workloads: loaded.workloads, ...selection });
}
