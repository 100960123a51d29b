/**
 * The engine spec: one engines/*.yaml per inference engine, the one definition of how servebench
 * launches it, checks it is up, reads its version and talks to it. The serve command is a template
 * over common parameters, so every engine is launched from the same parameter set.
 */
import { z } from 'zod';
import { usageError } from '../lib/errors.ts';

/** Parameters every engine is launched with; a spec maps each to its own flags. */
export const SERVE_PARAMETERS = [
  'model',
  'served_name',
  'host',
  'port',
  'tensor_parallel',
  'pipeline_parallel',
  'data_parallel',
  'dtype',
  'quantization',
  'max_model_len',
  'kv_cache_dtype',
  'max_num_seqs',
  'gpu_memory_utilization',
  'prefix_caching',
  // One memory budget for every engine, in KV-cache tokens (contract/held-equal.ts): each engine's
  // own memory fraction means something else, so each translates tokens to its own knob.
  'kv_budget_tokens',
  // "neutral": the model's generation config must not change sampling defaults (contract/held-equal.ts).
  'sampling',
  // The release to launch, for an engine whose one command can play several (the sim's
  // --engine-version); docker picks it by image tag and llama.cpp by build instead, so `run`
  // refuses --engine-version for a process launch of an engine without this flag.
  'engine_version',
] as const;
export type ServeParameter = (typeof SERVE_PARAMETERS)[number];

const argList = z
  .array(z.string())
  .describe('argv pieces; "{param}" is replaced by the parameter value, "{a*b}" by the product of two parameters, "{a/N}" by a divided by N rounded up (tokens → blocks of N)');

const FlagSchema = z.union([
  argList.describe('used when the parameter is set'),
  z
    .object({ on: argList, off: argList })
    .strict()
    .describe('for a boolean parameter: the pieces for true and for false (empty list: the default)'),
  z
    .object({
      args: argList,
      values: z.record(z.string(), z.string()).describe("servebench's value → the engine's own spelling; any other value is refused"),
    })
    .strict()
    .describe('for a parameter whose values each engine spells differently (e.g. KV-cache dtypes)'),
  z
    .object({ args: argList, unless: z.enum(SERVE_PARAMETERS) })
    .strict()
    .describe('left out when the parameter named by unless is set, which passes the same flag its own way (llama.cpp: --ctx-size from max_model_len × max_num_seqs gives way to kv_budget_tokens)'),
]);

export const EngineSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes, like the file name'),
    display_name: z.string().min(1),
    description: z.string().min(1),
    source: z
      .object({
        repository: z
          .string()
          .regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name on GitHub')
          .nullable()
          .describe('owner/name on GitHub: what detect polls for releases (without npm), and where release links point'),
        npm: z
          .string()
          .regex(/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/, 'an npm package name, e.g. node-llama-cpp')
          .optional()
          .describe(
            "Releases come from this npm package instead of GitHub (llamacpp: node-llama-cpp, whose every release ships a llama.cpp tag's source; the lane builds it with `servebench llamacpp build --node-llama-cpp VERSION`)",
          ),
        docs: z.array(z.string().min(1)).min(1).describe('Where the flags below were checked (URLs, or paths in this repository)'),
      })
      .strict(),
    image: z
      .object({
        repository: z.string().min(1),
        tag: z.string().min(1).describe('Tag template; "{version}" is the release (its tag\'s leading letter dropped: b6125 → 6125, v0.5.4 → 0.5.4)'),
        releases: z
          .string()
          .min(1)
          .optional()
          .describe(
            'A regular expression every release named in the tag must match (as "{version}" takes it): a release of another numbering is refused, not rendered into a tag no registry has (llama.cpp: ^\\d+$, its nightly build numbers; node-llama-cpp\'s 3.21.1 or a vX.Y.Z release has no image)',
          ),
        entrypoint: z
          .string()
          .startsWith('/')
          .optional()
          .describe("The serve program's path inside the image, where it is not on the image's PATH (llama.cpp: /app/llama-server): a docker launch runs it in place of the serve command's first word"),
      })
      .strict()
      .nullable()
      .describe('The official container image, or null when there is none'),
    version: z
      .union([
        z.object({ http: z.string().startsWith('/'), field: z.string().min(1) }).strict(),
        z.object({ command: z.array(z.string()).min(1) }).strict(),
      ])
      .describe('How to read the running version: an HTTP endpoint and JSON field, or a command'),
    serve: z
      .object({
        command: z.array(z.string()).min(1).describe('The program and its fixed arguments (templated)'),
        flags: z.partialRecord(z.enum(SERVE_PARAMETERS), FlagSchema).describe('How each common parameter is passed'),
        joined: z
          .object({
            flag: z.string().min(1),
            separator: z.string().min(1),
            items: z.partialRecord(z.enum(SERVE_PARAMETERS), z.string()),
          })
          .strict()
          .optional()
          .describe('Parameters passed together in one flag (MLC: --overrides "a=1;b=2")'),
        unsupported: z
          .partialRecord(z.enum(SERVE_PARAMETERS), z.string())
          .default({})
          .describe('Parameters the engine has no flag for, and why: setting one is an error, never silently ignored'),
        held_always: z
          .partialRecord(z.enum(SERVE_PARAMETERS), z.string().min(1))
          .default({})
          .describe(
            'Parameters every launch already holds at their one value, and how: a fixed flag of the serve command, or what every request carries (quirks.explicit_body). Asking for one renders nothing more, and the run records it (sampling: neutral)',
          ),
        gpu_args: argList
          .default([])
          .describe(
            'Pieces appended when the run has GPUs (--gpu), for an engine that also runs on the CPU: what puts all its work on them (llama.cpp: every layer offloaded, no fitting, one unified KV pool); a CPU run leaves them out, so releases without them still start there',
          ),
      })
      .strict(),
    local_build: z
      .enum(['llamacpp'])
      .optional()
      .describe('servebench builds this engine itself (servebench llamacpp build): the process launcher runs that build, by --engine-version'),
    config_file: z
      .object({
        flag: z.string().startsWith('-').describe('The serve flag that takes the file (TensorRT-LLM: --extra_llm_api_options)'),
        always: z.record(z.string(), z.unknown()).default({}).describe('Settings the file always holds'),
        items: z
          .partialRecord(
            z.enum(SERVE_PARAMETERS),
            z
              .object({
                key: z.string().regex(/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/, 'a dotted path: kv_cache_config.dtype'),
                values: z.record(z.string(), z.unknown()).optional().describe("servebench's value → the file's; any other value is refused"),
              })
              .strict(),
          )
          .default({})
          .describe('Common parameters set in the file rather than by a flag'),
      })
      .strict()
      .optional()
      .describe('A YAML settings file servebench writes for every launch and passes with its flag'),
    health: z
      .object({
        path: z.string().startsWith('/'),
        status: z.number().int().min(100).max(599).default(200),
        timeout_s: z.number().positive().describe('How long a cold start may take before the run fails'),
      })
      .strict(),
    metrics: z
      .object({
        path: z.string().startsWith('/'),
        flag: z.array(z.string()).default([]).describe('Serve flags that switch the endpoint on (appended to the command); [] when it is always on'),
      })
      .strict()
      .nullable()
      .describe("The engine's Prometheus metrics endpoint, or null when it has none"),
    fatal_log_patterns: z.array(z.string()).describe('Regular expressions: a matching server log line fails the run at once'),
    quirks: z
      .object({
        ignore_eos: z.enum(['body', 'debug_config', 'unsupported']).describe('How to force the output length'),
        explicit_body: z.record(z.string(), z.unknown()).default({}).describe('Fields always sent, because its defaults differ'),
      })
      .strict(),
  })
  .strict()
  // detect maps an npm version to the llama.cpp it bundles by reading node-llama-cpp's tarball: no other package has that layout.
  .refine((engine) => engine.source.npm === undefined || engine.local_build === 'llamacpp', {
    message: 'source.npm is read as node-llama-cpp releases (each bundles a llama.cpp tag): only an engine with local_build: llamacpp takes it; remove source.npm or add local_build: llamacpp',
    path: ['source', 'npm'],
  });

export type Engine = z.infer<typeof EngineSchema>;
export type ServeParameters = Partial<Record<ServeParameter, string | number | boolean>>;

/**
 * A release as tag templates take it: servebench names releases without their tag's leading
 * letter (detect reads b6125 as 6125, v0.5.4 as 0.5.4), and a release given by its tag is read the
 * same way, so `--engine-version b6125` cannot render "bb6125".
 */
export function imageRelease(version: string): string {
  return /^[A-Za-z]\d/.test(version) ? version.slice(1) : version;
}

/** An image tag template with every "{version}" filled in: the one rule for run, plan and detect. */
export function renderImageTag(template: string, version: string): string {
  return template.replaceAll('{version}', imageRelease(version));
}

/** Why the engine's official image cannot be at this release (its releases pattern), or null. */
export function officialImageProblem(engine: Engine, version: string): string | null {
  const pattern = engine.image?.releases;
  if (pattern === undefined || new RegExp(pattern).test(imageRelease(version))) return null;
  return `${engine.name}'s official image (${engine.image!.repository}:${engine.image!.tag}) exists only for releases matching ${pattern}; "${version}" is not one (engines/${engine.name}.yaml image.releases)`;
}

/** The engine's official image at a release ("repository:tag"), or null when it has none; a release its image cannot have is refused. */
export function officialImage(engine: Engine, version: string): string | null {
  const problem = officialImageProblem(engine, version);
  if (problem !== null) throw usageError(problem);
  return engine.image === null ? null : `${engine.image.repository}:${renderImageTag(engine.image.tag, version)}`;
}
