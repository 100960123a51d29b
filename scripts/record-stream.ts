/**
 * Records what a real engine streams, in the form tests/fixtures/streams.ts keeps: one streamed
 * request (the body servebench's load sends: temperature 0, ignore_eos, stream_options
 * include_usage) and every event's data verbatim, printed as a TypeScript array with a comment
 * saying what answered, when, and to which request. Paste it over the derived events of that
 * engine in streams.ts the day the engine runs somewhere (a GPU machine for vLLM, SGLang and
 * TensorRT-LLM); tests/sim/personalities.test.ts then holds the sim to the recording.
 *
 *   npx tsx scripts/record-stream.ts --endpoint http://127.0.0.1:8000 --model NAME [--api chat|completions] [--max-tokens 3] [--name VLLM_CHAT_EVENTS]
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    model: { type: 'string' },
    api: { type: 'string', default: 'chat' },
    'max-tokens': { type: 'string', default: '3' },
    name: { type: 'string', default: 'RECORDED_EVENTS' },
  },
});
if (values.endpoint === undefined || values.model === undefined || !['chat', 'completions'].includes(values.api)) {
  process.stderr.write('usage: npx tsx scripts/record-stream.ts --endpoint URL --model NAME [--api chat|completions] [--max-tokens N] [--name CONST]\n');
  process.exit(2);
}
const endpoint = values.endpoint.replace(/\/+$/, '');
const chat = values.api === 'chat';
const body = {
  model: values.model,
  ...(chat ? { messages: [{ role: 'user', content: 'Write one sentence about a river.' }] } : { prompt: 'Once upon a time there was a river' }),
  max_tokens: Number(values['max-tokens']),
  temperature: 0,
  stream: true,
  stream_options: { include_usage: true },
  ignore_eos: true,
};

/** The first version-like answer of the places engines report one (engines/*.yaml version:). */
async function serverVersion(): Promise<string> {
  for (const path of ['/version', '/props', '/server_info']) {
    const answer = await fetch(endpoint + path).then((r) => (r.ok ? r.text() : null), () => null);
    if (answer !== null) return `GET ${path} ${answer.slice(0, 160).replace(/\s+/g, ' ')}`;
  }
  return 'no version endpoint answered';
}

const response = await fetch(`${endpoint}${chat ? '/v1/chat/completions' : '/v1/completions'}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const raw = await response.text();
if (!response.ok) {
  process.stderr.write(`HTTP ${response.status}: ${raw.slice(0, 2000)}\n`);
  process.exit(1);
}
// Events are separated by a blank line; a data line loses one space after "data:", nothing else.
const events = raw
  .split(/\r?\n\r?\n/)
  .flatMap((block) => block.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')));
const version = await serverVersion();
process.stdout.write(
  `/** Recorded with scripts/record-stream.ts on ${new Date().toISOString().slice(0, 10)} from ${endpoint} (${version}); ` +
    `POST ${chat ? '/v1/chat/completions' : '/v1/completions'} ${JSON.stringify(body)}; content-type ${response.headers.get('content-type')}. */\n` +
    `export const ${values.name}: string[] = [\n${events.map((event) => `  ${JSON.stringify(event)},`).join('\n')}\n];\n`,
);
