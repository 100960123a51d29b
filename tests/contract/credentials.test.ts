/**
 * The credential rules results are recorded and validated by: each form a secret takes in an argv,
 * a URL, a header, a variable, a log line or a field is redacted and found (with its JSON path);
 * legitimate content (flags about tokens, model names, hashes, workloads, engine commands, the
 * prompt corpus) is left alone; redaction is idempotent, so what the recorder wrote passes validate.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findCredentials, isSecretName, redactArgv, redactText, redactUrl, redactValue, REDACTED } from '../../harness/contract/credentials.ts';
import { listWorkloadFiles, loadWorkload } from '../../harness/measure/workloads/spec-file.ts';
import { listEngineFiles, loadEngine } from '../../harness/measure/engines/spec-file.ts';
import { renderServeCommand } from '../../harness/measure/engines/render.ts';
import { RunResultSchema } from '../../harness/contract/result.ts';
import { syntheticResult } from '../../bench/lib/synthetic-results.ts';

const HF = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';

/** Each case: the argv given, the argv recorded. */
const REDACTED_ARGV: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
  ['userinfo in a URL', ['--endpoint', 'http://bob:hunter2@127.0.0.1:8000/v1'], ['--endpoint', 'http://127.0.0.1:8000/v1']],
  ['userinfo in --flag=url', ['--endpoint=https://bob:hunter2@h.example/v1'], ['--endpoint=https://h.example/v1']],
  ['a user alone (a token as the user name)', ['git', 'clone', 'https://ghtoken@github.com/o/r'], ['git', 'clone', 'https://github.com/o/r']],
  ['secret query and fragment parameters', ['--endpoint', 'https://h/v1?api_key=k1&x=1&X-Amz-Signature=s1#access_token=t1'], ['--endpoint', `https://h/v1?api_key=${REDACTED}&x=1&X-Amz-Signature=${REDACTED}#access_token=${REDACTED}`]],
  ['?token= and ?key= and ?sig=', ['https://h/a?token=t&key=k&sig=s'], [`https://h/a?token=${REDACTED}&key=${REDACTED}&sig=${REDACTED}`]],
  ['--api-key value', ['--api-key', 'sekrit'], ['--api-key', REDACTED]],
  ['--api-key=value', ['--api-key=sekrit'], [`--api-key=${REDACTED}`]],
  ['--hf-token, --token, --password, --admin-api-key', ['--hf-token', 'x1', '--token=x2', '--password', 'x3', '--admin-api-key', 'x4'], ['--hf-token', REDACTED, `--token=${REDACTED}`, '--password', REDACTED, '--admin-api-key', REDACTED]],
  ['--header Authorization', ['--header', 'Authorization: Bearer abc'], ['--header', `Authorization: Bearer ${REDACTED}`]],
  ['-H X-Api-Key and --header=Cookie', ['-H', 'X-Api-Key: abc', '--header=Cookie: session=abc'], ['-H', `X-Api-Key: ${REDACTED}`, `--header=Cookie: ${REDACTED}`]],
  ['docker -e / --env NAME=value', ['-e', 'HF_TOKEN=abc', '--env', 'HUGGING_FACE_HUB_TOKEN=def', '--env=OPENAI_API_KEY=ghi', '-e', 'AWS_SECRET_ACCESS_KEY=jkl', '-e', 'DB_PASSWORD=mno'], ['-e', `HF_TOKEN=${REDACTED}`, '--env', `HUGGING_FACE_HUB_TOKEN=${REDACTED}`, `--env=OPENAI_API_KEY=${REDACTED}`, '-e', `AWS_SECRET_ACCESS_KEY=${REDACTED}`, '-e', `DB_PASSWORD=${REDACTED}`]],
  ['Bearer anywhere', ['sh', '-c', 'curl -H "Authorization: Bearer abcdefghijkl" http://x'], ['sh', '-c', `curl -H "Authorization: Bearer ${REDACTED}" http://x`]],
  ['a secret flag inside a script', ['sh', '-c', 'vllm serve m --api-key abc --port 8000'], ['sh', '-c', `vllm serve m --api-key ${REDACTED} --port 8000`]],
  ['a key inside --extra-body JSON', ['--extra-body', '{"api_key":"abc","top_p":0.5}'], ['--extra-body', `{"api_key":"${REDACTED}","top_p":0.5}`]],
  ['gateway key headers: the name kept, the value not (any header but a few harmless ones)', ['-H', 'X-RapidAPI-Key: abc123', '--header', 'x-functions-key:def', '-H', 'X-Key: k', '--header=X-Acme-Auth: Basic dXNlcjpwYXNz', '-H', 'X-Request-Source: bench', '-H', 'Accept: text/event-stream'], ['-H', `X-RapidAPI-Key: ${REDACTED}`, '--header', `x-functions-key:${REDACTED}`, '-H', `X-Key: ${REDACTED}`, `--header=X-Acme-Auth: Basic ${REDACTED}`, '-H', `X-Request-Source: ${REDACTED}`, '-H', 'Accept: text/event-stream']],
  ['a header given to curl inside a script', ['sh', '-c', `curl -H "X-RapidAPI-Key: abc123" -H 'x-functions-key: def' -H "User-Agent: bench" http://x`], ['sh', '-c', `curl -H "X-RapidAPI-Key: ${REDACTED}" -H 'x-functions-key: ${REDACTED}' -H "User-Agent: bench" http://x`]],
  ['token shapes under any flag', ['--model', HF, '--x', 'sk-proj-AbCdEf0123456789XyZ', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz', 'AKIAIOSFODNN7EXAMPLE'], ['--model', REDACTED, '--x', REDACTED, REDACTED, REDACTED, REDACTED]],
];

/** Legitimate argv that must be recorded exactly as given. */
const LEGIT_ARGV: readonly string[][] = [
  ['servebench', 'load', '--endpoint', 'http://127.0.0.1:8000/v1', '--model', 'meta-llama/Llama-3.2-1B', '--concurrency', '1,4', '--slo', 'ttft_ms=500,tpot_ms=50', '--tokenizer', 'tests/fixtures/tokenizer-words', '--extra-body', '{"top_p":0.5}', '--header', 'User-Agent: bench/1.0', '-H', 'X-Request-Id: run-42', '--header', 'content-type: application/json'],
  ['vllm', 'serve', 'meta-llama/Llama-3.2-1B', '--max-num-batched-tokens', '8192', '--max-model-len', '4096', '--tokenizer', 'meta-llama/Llama-3.2-1B', '--tokenizer-mode', 'auto', '--chat-template-eos-token', '</s>', '--use-auth-token', '--port', '8000'],
  ['docker', 'run', '--env', 'HF_HUB_CACHE=/root/.cache/huggingface/hub', '--env', 'HIP_VISIBLE_DEVICES=0,1', '--env', 'HF_TOKEN', '--env', 'HUGGING_FACE_HUB_TOKEN=$HF_TOKEN', '--gpus', '"device=0"', 'vllm/vllm-openai@sha256:' + 'ab'.repeat(32)],
  ['servebench', 'run', '--engine', 'vllm', '--hf-cache', '/data/hf', '--engine-version', 'v0.11.0', '--kv-cache-dtype', 'fp8_e4m3', '--workload', 'chat'],
  ['llama-server', '--model', '/models/qwen2.5-0.5b-instruct-q4_k_m.gguf', '-np', '8', '--cache-type-k', 'q8_0', '--override-kv', 'tokenizer.ggml.add_bos_token=bool:false'],
];

describe('redactArgv', () => {
  it.each(REDACTED_ARGV)('%s', (_name, argv, recorded) => {
    expect(redactArgv(argv)).toEqual(recorded);
    // The recorder's own output passes validate, and a second pass changes nothing.
    expect(findCredentials(recorded)).toEqual([]);
    expect(redactArgv(recorded)).toEqual(recorded);
    expect(findCredentials(argv).length).toBeGreaterThan(0);
    // One definition for both sides: findCredentials names exactly the arguments redactArgv changes.
    const changed = argv.flatMap((arg, i) => (recorded[i] !== arg ? [`[${i}]`] : []));
    expect([...new Set(findCredentials(argv).map((finding) => finding.path))]).toEqual(changed);
  });

  it.each(LEGIT_ARGV.map((argv) => [argv[0]!, argv] as const))('leaves a legitimate %s command as given', (_name, argv) => {
    expect(redactArgv(argv)).toEqual(argv);
    expect(findCredentials({ harness: { command: argv } })).toEqual([]);
  });
});

describe('redactUrl and redactText', () => {
  it('strips userinfo and secret parameters from a URL and keeps the rest as written', () => {
    expect(redactUrl('http://bob:hunter2@127.0.0.1:8000')).toBe('http://127.0.0.1:8000');
    expect(redactUrl('https://u@h.example:8443/base/v1/?model=a&signature=zz')).toBe(`https://h.example:8443/base/v1/?model=a&signature=${REDACTED}`);
    expect(redactUrl('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/v1');
  });

  it("redacts vLLM's logged arguments, header lines and assignments in log text", () => {
    expect(redactText("non-default args: {'model': 'm', 'api_key': ['k1', 'k2'], 'hf_token': None}")).toBe(`non-default args: {'model': 'm', 'api_key': ${REDACTED}, 'hf_token': None}`);
    expect(redactText('Authorization: Basic dXNlcjpwYXNz')).toBe(`Authorization: Basic ${REDACTED}`);
    expect(redactText('export HF_TOKEN=abc; password = hunter2')).toBe(`export HF_TOKEN=${REDACTED}; password = ${REDACTED}`);
    expect(redactText(`downloading with ${HF}`)).toBe(`downloading with ${REDACTED}`);
  });

  it('redacts gateway key headers and Basic credentials in log text', () => {
    expect(redactText('> X-RapidAPI-Key: abc123\n> x-functions-key=def\n> X-Acme-Auth: Basic dXNlcjpwYXNz')).toBe(`> X-RapidAPI-Key: ${REDACTED}\n> x-functions-key=${REDACTED}\n> X-Acme-Auth: Basic ${REDACTED}`);
    expect(redactText('{"auth": "Basic dXNlcjpwYXNz"}')).toBe(`{"auth": "Basic ${REDACTED}"}`);
    expect(findCredentials(['x', '{"auth": "Basic dXNlcjpwYXNz"}'])).toEqual([{ path: '[1]', what: 'Basic credentials' }]);
  });

  it('leaves text about tokens alone', () => {
    const text = "max_tokens: 128, eos_token: '</s>', output_tokens=64, key: value, token: 5, Bearer KEY, tokenizer_mode='auto', source hf_cache, Basic settings, basic usage: x-y, grep -H main";
    expect(redactText(text)).toBe(text);
  });

  it('names secrets by the whole name, not by a word inside it', () => {
    for (const name of ['--api-key', '--hf-token', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', '--password', 'x-api-key', 'authorization', 'X-RapidAPI-Key', 'x-functions-key', 'X-Key', 'X-Acme-Auth']) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['--max-num-batched-tokens', '--tokenizer', 'output_tokens', 'eos_token', 'pad_token', 'hf_cache', '--hf-cache', 'cache_key', 'kv_cache_dtype', 'token_count_sources']) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe('findCredentials', () => {
  it('finds each credential in a result-shaped object, with its JSON path and never its value', () => {
    const result = {
      harness: { command: ['servebench', 'load', '--endpoint', 'http://bob:hunter2@127.0.0.1:8000', '--api-key', 'sekrit', '--header', 'X-Api-Key: k'] },
      target: { endpoint: 'http://127.0.0.1:8000?token=t' },
      workload: { extra_body: { api_key: 'b1', top_p: 0.5 } },
      run: {
        engine: { command: ['docker', 'run', '-e', 'HF_TOKEN=abc', 'img'] },
        failure: { message: 'boom', log_tail: ['starting', "args: {'api_key': 'zz'}", `token ${HF}`] },
      },
    };
    const found = findCredentials(result);
    expect(found).toEqual([
      { path: 'harness.command[3]', what: 'URL userinfo (user:password@)' },
      { path: 'harness.command[5]', what: 'value of --api-key' },
      { path: 'harness.command[7]', what: 'X-Api-Key header value' },
      { path: 'target.endpoint', what: 'secret URL parameter "token"' },
      { path: 'workload.extra_body.api_key', what: 'secret field "api_key"' },
      { path: 'run.engine.command[3]', what: 'value of HF_TOKEN' },
      { path: 'run.failure.log_tail[1]', what: 'value of api_key' },
      { path: 'run.failure.log_tail[2]', what: 'Hugging Face token' },
    ]);
    const text = JSON.stringify(found);
    for (const secret of ['hunter2', 'sekrit', 'b1', 'abc', 'zz', HF]) expect(text).not.toContain(secret);
    const redacted = redactValue(result);
    expect(findCredentials(redacted)).toEqual([]);
    expect(JSON.stringify(redacted)).not.toMatch(/hunter2|sekrit|"b1"|HF_TOKEN=abc|'zz'|hf_AbCd/);
    expect(redacted.workload.extra_body.top_p).toBe(0.5);
  });

  it('quotes a field name that is not an identifier', () => {
    expect(findCredentials({ 'engine_metrics': { 'vllm:x': 1 }, a: [{ 'b-c': 'https://u:p@h' }] })).toEqual([{ path: 'a[0]["b-c"]', what: 'URL userinfo (user:password@)' }]);
  });

  it('finds nothing in legitimate content: synthetic results, every workload and engine, the prompt corpus', () => {
    const result = syntheticResult({ engine: 'vllm', version: '0.11.0', model: 'meta-llama/Llama-3.2-1B', gpu: 'H100', gpuCount: 1, workload: 'chat', concurrencies: [1, 8], tpotMs: 10, ttftMs: 60, noise: 0.02, date: new Date(Date.UTC(2026, 0, 1)), seed: 1 });
    expect(findCredentials(RunResultSchema.parse(result))).toEqual([]);
    expect(redactValue(result)).toEqual(result);
    for (const file of listWorkloadFiles()) expect(findCredentials(loadWorkload(file)), file).toEqual([]);
    for (const file of listEngineFiles()) {
      const engine = loadEngine(file);
      expect(findCredentials(engine), file).toEqual([]);
      expect(findCredentials(renderServeCommand(engine, { model: 'meta-llama/Llama-3.2-1B', port: 8000 })), file).toEqual([]);
    }
    const corpus = readFileSync(new URL('../../workloads/text/corpus.txt', import.meta.url), 'utf8');
    expect(findCredentials(corpus.split('\n'))).toEqual([]);
  });
});

describe('the rules, one at a time', () => {
  it.each([
    // A single word: secret, apikey anywhere; token and key not in free text; auth only as a flag (and in a URL).
    ['--secret', 'flag', true], ['SECRET', 'text', true], ['apikey', 'text', true],
    ['--token', 'flag', true], ['token', 'query', true], ['token', 'text', false], ['key', 'text', false], ['--key', 'flag', true],
    ['--auth', 'flag', true], ['auth', 'text', false], ['auth', 'query', true],
    // Signed-URL parameters: secrets in a URL only.
    ['signature', 'query', true], ['X-Amz-Signature', 'query', true], ['--signature', 'flag', false], ['sig', 'text', false], ['credentials', 'text', false],
    ['authorization', 'text', true], ['Proxy-Authorization', 'text', true],
    // An extension header's last word; another word is a harmless one.
    ['X-Foo-Pass', 'text', true], ['x-request-id', 'text', false],
    ['eos_token', 'flag', false], ['access_token', 'text', true], ['max_tokens', 'flag', false],
    ['cache_key', 'flag', false], ['api_key', 'text', true], ['--ssh-key', 'flag', true], ['client_secret', 'text', true], ['github_pat', 'text', true],
    ['db_password', 'text', true], ['--passwd', 'flag', true],
    // Nothing left of the name: no secret.
    ['--', 'flag', false], ['', 'text', false], ['_', 'text', false],
    // Separators doubled, trailing, dots or spaces do not hide a name.
    ['API__KEY', 'text', true], ['--hf-token-', 'flag', true], ['HF.TOKEN', 'text', true], ['hf token', 'text', true],
  ] as const)('isSecretName(%j, %s) is %s', (name, context, secret) => {
    expect(isSecretName(name, context)).toBe(secret);
  });

  it('takes a placeholder for no secret, whatever the spaces around it', () => {
    for (const value of ['***', '*', ' none ', '  ${OPENAI_API_KEY} ', '<your key>', 'undefined']) expect(redactArgv(['--api-key', value]), value).toEqual(['--api-key', value]);
    expect(redactArgv(['--api-key', '**x'])).toEqual(['--api-key', REDACTED]);
  });

  it('reads a URL parameter by its decoded name, and keeps it as written', () => {
    expect(redactUrl('https://h/v1?api%5Fkey=abc&x=1')).toBe(`https://h/v1?api%5Fkey=${REDACTED}&x=1`);
    expect(findCredentials(['https://h/v1?api%5Fkey=abc'])).toEqual([{ path: '[0]', what: 'secret URL parameter "api_key"' }]);
    // A malformed escape: the name as written.
    expect(redactUrl('https://h/v1?x%_token=abc')).toBe(`https://h/v1?x%_token=${REDACTED}`);
  });

  it('takes Basic credentials only where the word decodes to printable user:password', () => {
    // "user" (no colon), "\0user:pass" and "user:pass\0" (not printable): not credentials.
    for (const text of ['Basic dXNlcg==', 'Basic AHVzZXI6cGFzcw==', 'Basic dXNlcjpwYXNzAA==']) expect(redactText(text), text).toBe(text);
    expect(findCredentials(['curl', '-u', 'x', 'Basic dXNlcjpwYXNz'])).toEqual([{ path: '[3]', what: 'Basic credentials' }]);
  });

  it('keeps a Bearer placeholder, and names a Bearer token as such', () => {
    expect(redactText('Authorization: Bearer undefined')).toBe('Authorization: Bearer undefined');
    expect(findCredentials(['curl', 'Bearer abcdefghijkl'])).toEqual([{ path: '[1]', what: 'Bearer token' }]);
  });

  it('in a script: a secret flag followed by another flag is a switch; after = any value is the secret', () => {
    const script = 'vllm serve m --use-auth-token --port 8000';
    expect(redactText(script)).toBe(script);
    expect(redactText('x --api-key=-abc123 --port 1')).toBe(`x --api-key=${REDACTED} --port 1`);
    expect(findCredentials(['sh', '-c', 'x --api-key abc'])).toEqual([{ path: '[2]', what: 'value of --api-key' }]);
  });

  it('keeps the quotes of an assignment it redacts', () => {
    expect(redactText(`DB_PASSWORD="hunter2" api_key='abc' secret=x`)).toBe(`DB_PASSWORD="${REDACTED}" api_key='${REDACTED}' secret=${REDACTED}`);
  });

  it('reads a header by its trimmed name, keeps only a leading scheme word and the spaces as given', () => {
    expect(redactArgv(['-H', 'Accept : text/event-stream'])).toEqual(['-H', 'Accept : text/event-stream']);
    expect(redactArgv(['-H', 'Authorization:  Bearer  abc'])).toEqual(['-H', `Authorization:  Bearer  ${REDACTED}`]);
    expect(redactArgv(['-H', 'X-Api-Key: mykey Basic x'])).toEqual(['-H', `X-Api-Key: ${REDACTED}`]);
    expect(findCredentials(['-H', ' X-Api-Key : k'])).toEqual([{ path: '[1]', what: 'X-Api-Key header value' }]);
    // No name before the colon: not a header, read as any text.
    expect(redactArgv(['-H', ':x'])).toEqual(['-H', ':x']);
  });

  it('names an inline secret flag of an argv', () => {
    expect(findCredentials(['--api-key=abc'])).toEqual([{ path: '[0]', what: 'value of --api-key' }]);
  });

  it('redacts a secret field whole and keeps the others', () => {
    expect(redactValue({ extra: { api_key: 'b1', top_p: 0.5, note: 'x' } })).toEqual({ extra: { api_key: REDACTED, top_p: 0.5, note: 'x' } });
  });

  it('reads a name as a flag unless told otherwise: --auth is a secret flag, in an argv and in a script', () => {
    expect(isSecretName('--auth')).toBe(true);
    expect(redactArgv(['--auth', 'hunter2', '--auth=hunter3'])).toEqual(['--auth', REDACTED, `--auth=${REDACTED}`]);
    expect(redactText('tool --auth hunter2')).toBe(`tool --auth ${REDACTED}`);
  });

  it("in a script, a header flag's value is read as a header: any but a harmless one is recorded by its name only", () => {
    expect(redactText('curl -H "X-Request-Source: bench" http://x')).toBe(`curl -H "X-Request-Source: ${REDACTED}" http://x`);
  });

  it('keeps of an assignment only a leading scheme word, with its spaces', () => {
    expect(redactText('api_key="abc Token xyz"')).toBe(`api_key="${REDACTED}"`);
    // A token under 8 characters: no Bearer rule, the assignment's.
    expect(redactText('Authorization: "Bearer  abc"')).toBe(`Authorization: "Bearer  ${REDACTED}"`);
  });

  it('an argv: a flag with no value after it is left as given, and a positional word is no flag', () => {
    expect(redactArgv(['run', '--api-key'])).toEqual(['run', '--api-key']);
    expect(redactArgv(['curl', '-H'])).toEqual(['curl', '-H']);
    expect(redactArgv(['echo', 'api_key', 'value'])).toEqual(['echo', 'api_key', 'value']);
  });

  it('walks plain objects only, past fields of any type, and reads a field named token or key in free text as no secret', () => {
    const recorded = { run: { failure: undefined, retries: 0, ok: true, api_key: null, secret: { note: 'x' }, token: 'abc', argv: ['--api-key', 1, 'x'] } };
    expect(redactValue(recorded)).toEqual(recorded);
    expect(findCredentials(recorded)).toEqual([]);
    // An object made by a class is not a parsed result's: not walked into. One without a prototype is plain.
    expect(findCredentials({ settings: new (class Settings { api_key = 'abc'; })(), when: new Date(0) })).toEqual([]);
    expect(findCredentials({ bare: Object.assign(Object.create(null) as object, { api_key: 'abc' }) })).toEqual([{ path: 'bare.api_key', what: 'secret field "api_key"' }]);
  });

  it("spells a finding's path from its own place only, after nested arrays", () => {
    expect(findCredentials([[1, [2]], { api_key: 'x' }])).toEqual([{ path: '[1].api_key', what: 'secret field "api_key"' }]);
  });

  it('reads a string among numbers in an array (no argv, so each string on its own), past the numbers and nulls it skips', () => {
    const token = `hf_${'a'.repeat(34)}`;
    expect(findCredentials({ extra_body: { stop: [1, null, `use ${token}`, true] } })).toEqual([{ path: 'extra_body.stop[2]', what: 'Hugging Face token' }]);
    expect(findCredentials({ counts: [1, 2], note: null, ok: true, text: `Bearer ${'b'.repeat(20)}` })).toEqual([{ path: 'text', what: 'Bearer token' }]);
  });

  it('finds nothing in a value with nothing to walk into', () => {
    for (const value of [null, undefined, 42, true]) expect(findCredentials(value)).toEqual([]);
  });
});
