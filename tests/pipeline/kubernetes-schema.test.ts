/**
 * The Jobs `servebench plan --format kubernetes` emits, checked against the Kubernetes API's
 * published OpenAPI schema as kubernetes-models ships it (Kubernetes 1.36: the API's definitions
 * compiled into Ajv JSON Schema validators, and the same definitions as TypeScript declarations):
 * - the JSON Schema: types, required fields, enums and formats (Job.validate, Ajv);
 * - unknown fields, which the API server refuses (kubectl's default --validate=strict, the API's
 *   fieldValidation=Strict) and the schema alone lets through: every document is type-checked as an
 *   object literal of the declared IJob, and TypeScript reports any property the API does not have.
 * The plans come from the real CLI (bin/servebench.mjs) on the shipped fleet (GPU types, the CPU
 * lane with its llama.cpp builds, the embedded dry run, new releases) and on the SYNTHETIC test
 * fleet (no hf-cache claim or token secret, a GPU type without node selector). Each check is shown
 * to fail on a planted bad field.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Job } from 'kubernetes-models/batch/v1/Job';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** SYNTHETIC: a made-up digest (no image has been published yet); plans take the harness image by digest. */
const HARNESS = `ghcr.io/servebench/servebench@sha256:${'5e'.repeat(32)}`;

type Doc = Record<string, any>;

/** `servebench plan … --format kubernetes`, through the package's bin, parsed into its documents. */
function planJobs(args: readonly string[]): Doc[] {
  const result = spawnSync(process.execPath, [join(REPO, 'bin', 'servebench.mjs'), 'plan', '--format', 'kubernetes', ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { ...process.env, SERVEBENCH_HARNESS_IMAGE: HARNESS },
    maxBuffer: 64 << 20,
  });
  expect(result.status, result.stderr).toBe(0);
  const docs = parseAllDocuments(result.stdout);
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => d.toJS() as Doc);
}

/** What the OpenAPI schema (Ajv) finds wrong with one document, one line each. */
function schemaErrors(doc: Doc): string[] {
  try {
    new Job(doc as ConstructorParameters<typeof Job>[0]).validate();
    return [];
  } catch (error) {
    return String((error as Error).message).split('\n').filter((line) => line.trim() !== '');
  }
}

/**
 * The properties of each document that the Kubernetes API does not have, as TypeScript reports them
 * against kubernetes-models' IJob (excess property checks of object literals, at every depth), by
 * document index. One program for all the documents.
 */
function unknownFields(docs: readonly Doc[]): Map<number, string[]> {
  const file = join(REPO, 'tests', 'pipeline', '__kubernetes_jobs__.ts');
  const starts: number[] = [];
  let source = "import type { IJob } from 'kubernetes-models/batch/v1/Job';\n";
  docs.forEach((doc, i) => {
    starts.push(source.split('\n').length - 1);
    source += `export const job${i}: IJob = ${JSON.stringify(doc, null, 1)};\n`;
  });
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram({ rootNames: [file], options, host });
  const found = new Map<number, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    // Anything but a finding about one document (a missing module, a broken declaration) fails loudly.
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) throw new Error(`type check: ${message}`);
    const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line;
    let index = starts.length - 1;
    while (index > 0 && starts[index]! > line) index--;
    found.set(index, [...(found.get(index) ?? []), message]);
  }
  return found;
}

function expectValid(docs: readonly Doc[]): void {
  expect(docs.length).toBeGreaterThan(0);
  for (const doc of docs) {
    expect(`${doc['apiVersion']}/${doc['kind']}`).toBe('batch/v1/Job');
    expect(schemaErrors(doc), doc['metadata']?.generateName).toEqual([]);
  }
  expect(Object.fromEntries(unknownFields(docs))).toEqual({});
}

describe('Kubernetes Jobs against the Kubernetes API schema (kubernetes-models, Kubernetes 1.36)', () => {
  it('the shipped fleet\'s nightly set: GPU Jobs in the engines\' images, CPU Jobs (the llama.cpp lane with its build, the embedded dry run) in the harness image', () => {
    const docs = planJobs(['--fleet', 'fleet/fleet.yaml', '--nightly']);
    // The GPU matrix and the CPU lane's 6 runs (2 models × cpu-chat-short × 3): 37 Jobs on 2026-12-03.
    expect(docs.length).toBeGreaterThan(30);
    const pods = docs.map((d) => d['spec'].template.spec);
    // The variants this covers: a build init container, GPU limits and node selectors, the securityContexts.
    expect(pods.some((p) => p.initContainers.length === 2)).toBe(true);
    expect(pods.some((p) => p.containers[0].resources?.limits?.['nvidia.com/gpu'] === 4)).toBe(true);
    expect(pods.some((p) => p.containers[0].resources?.limits?.['amd.com/gpu'] === 1)).toBe(true);
    expect(pods.some((p) => p.securityContext?.fsGroup === 1000)).toBe(true);
    expect(pods.every((p) => p.initContainers[0].image === HARNESS)).toBe(true);
    expectValid(docs);
  });

  it('the shipped fleet\'s new releases (a node-llama-cpp release built in the init container) and the test fleet (no caches claimed, no token secret)', () => {
    const released = planJobs(['--fleet', 'fleet/fleet.yaml', '--new', 'tests/fixtures/fleet/detect-new.json']);
    expectValid(released);
    const fixture = planJobs(['--fleet', 'tests/fixtures/fleet/fleet.yaml', '--nightly', '--new', 'tests/fixtures/fleet/detect-new.json']);
    const volumes = fixture.flatMap((d) => d['spec'].template.spec.volumes as Array<{ name: string; emptyDir?: object }>);
    expect(volumes).toContainEqual({ name: 'hf-cache', emptyDir: {} });
    expectValid(fixture);
  });

  it('catches a planted bad field: a wrong type, a missing required field, a value outside an enum, an unknown field at any depth', () => {
    const [job] = planJobs(['--fleet', 'tests/fixtures/fleet/fleet.yaml', '--nightly', '--engine', 'embedded']);
    expect(schemaErrors(job!)).toEqual([]);
    const planted = (edit: (doc: Doc) => void): Doc => {
      const doc = structuredClone(job!);
      edit(doc);
      return doc;
    };
    expect(schemaErrors(planted((d) => (d['spec'].backoffLimit = 'none'))).join('\n')).toMatch(/spec\/backoffLimit must be integer/);
    expect(schemaErrors(planted((d) => delete d['spec'].template.spec.containers[0].name)).join('\n')).toMatch(/containers\/0 must have required property name/);
    expect(schemaErrors(planted((d) => (d['spec'].template.spec.restartPolicy = 'Sometimes'))).join('\n')).toMatch(/restartPolicy must be equal to one of the allowed values/);
    expect(schemaErrors(planted((d) => (d['spec'].template.spec.volumes[0].emptyDir = 'yes'))).join('\n')).toMatch(/volumes\/0\/emptyDir must be object/);
    // The schema lets an unknown field through; the strict check does not (nor does the API server).
    const typos = [
      planted((d) => (d['spec'].ttlSecondsAfterFinish = 60)),
      planted((d) => (d['spec'].template.spec.containers[0].volumeMount = [])),
      planted((d) => (d['spec'].template.spec.initContainers[0].securityContext.runAsNonroot = true)),
      planted((d) => (d['metadata'].label = {})),
    ];
    for (const doc of typos) expect(schemaErrors(doc)).toEqual([]);
    const found = unknownFields([job!, ...typos]);
    expect([...found.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(found.get(1)!.join('\n')).toMatch(/'"?ttlSecondsAfterFinish"?' does not exist in type 'IJobSpec'/);
    expect(found.get(2)!.join('\n')).toMatch(/'"?volumeMount"?' does not exist in type 'IContainer'/);
    expect(found.get(3)!.join('\n')).toMatch(/'"?runAsNonroot"?' does not exist in type 'ISecurityContext'/);
    expect(found.get(4)!.join('\n')).toMatch(/'"?label"?' does not exist in type 'IObjectMeta'/);
  });
});
