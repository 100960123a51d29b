/**
 * Credentials in results: the one set of rules by which the recorder redacts what it writes and
 * `validate` refuses a file that still holds one. Results are public (the site shows
 * harness.command as "Reproduce"), so a password in an --endpoint URL, an --api-key, a request
 * header's value (any but a few harmless headers), a secret environment variable handed to docker
 * or a token printed in a server log must never reach one.
 *
 * One definition for both sides: findCredentials reports exactly the places redactValue would
 * change, so whatever the recorder wrote passes validate, and a rule added here is enforced on
 * both at once. Names are matched as names (a flag, a query parameter, a variable, a field), never
 * as any word containing "token": --max-num-batched-tokens, --tokenizer, output_tokens, eos_token
 * and hf_cache are not secrets.
 */

/** What a secret is replaced with: recognisably redacted, and itself never taken for a secret. */
export const REDACTED = '<redacted>';

export interface CredentialFinding {
  /** JSON path of the string that holds it, e.g. harness.command[3]. */
  readonly path: string;
  /** What kind of credential, never its value. */
  readonly what: string;
}

type Report = (what: string) => void;
/** The flags that give a request header, in servebench's own commands and in curl's. */
const HEADER_FLAGS = new Set(['--header', '-H', '--headers']);
const IGNORE: Report = () => {};

/** Values that stand for no secret: empty, unset, a placeholder, a reference to a variable, or already redacted. */
function isPlaceholder(value: string): boolean {
  return /^(?:|none|null|nil|undefined|true|false|redacted|\[redacted\]|\*+|<[^<>]*>|\$\{?[A-Za-z_]\w*\}?)$/i.test(value.trim());
}

/**
 * Where a name is seen decides how short a secret name may be: a bare `token` or `key` is a
 * secret as a flag (--token), a query parameter (?key=) or a variable, but in free text
 * ("key: value" in a log line) it is too common a word to redact on.
 */
type NameContext = 'flag' | 'query' | 'text';

/** The word before `token` that makes it a tokenizer's token (eos_token, --chat-template-pad-token), not a credential. */
const VOCABULARY_TOKENS = new Set(['bos', 'eos', 'pad', 'unk', 'sep', 'cls', 'mask', 'special', 'stop', 'start', 'end', 'image', 'audio', 'video', 'vision', 'placeholder', 'think', 'reasoning', 'tool', 'added', 'new', 'max', 'num', 'per']);
/** The word before `key` that makes it a credential (api_key, secret_access_key), not a cache or hash key. */
const KEY_OWNERS = new Set(['api', 'access', 'secret', 'private', 'auth', 'client', 'subscription', 'account', 'master', 'encryption', 'signing', 'hmac', 'service', 'admin', 'license', 'app', 'webhook', 'session', 'ssh']);
/** Last words that name a secret wherever they are seen. */
const SECRET_TAILS = new Set(['token', 'secret', 'apikey', 'pat']);
/** Last words that are secrets in a URL (signed-URL parameters), but too vague elsewhere. */
const QUERY_TAILS = new Set(['sig', 'signature', 'credential', 'credentials', 'auth']);
/** Last words of an X-… header name that make its value a credential. */
const EXTENSION_HEADER_TAILS = new Set(['key', 'apikey', 'auth', 'token', 'secret', 'signature', 'sig', 'credential', 'credentials', 'pass']);

/** Whether a flag, parameter, variable or field of this name holds a secret. */
export function isSecretName(raw: string, context: NameContext = 'flag'): boolean {
  // Stryker disable next-line Regex: one leading dash left over becomes an empty part, which the filter below drops all the same.
  const undashed = raw.replace(/^-+/, '');
  const name = undashed.toLowerCase().replace(/[-.\s]/g, '_');
  if (name.includes('password') || name.includes('passwd')) return true;
  const parts = name.split('_').filter((part) => part !== '');
  const last = parts.at(-1);
  // Stryker disable next-line ConditionalExpression: with no part left every rule below is false all the same; the guard narrows the type.
  if (last === undefined) return false;
  const previous = parts.at(-2);
  if (context === 'query' && QUERY_TAILS.has(last)) return true;
  if (last === 'authorization') return true;
  // An extension header's key or credential, in a log line as much as in a flag (X-RapidAPI-Key, X-Functions-Key, X-Foo-Auth).
  // (A name of the one part "x" has the last word "x", which is no tail.)
  if (parts[0] === 'x' && EXTENSION_HEADER_TAILS.has(last)) return true;
  if (parts.length === 1) {
    if (last === 'secret' || last === 'apikey') return true;
    if (last === 'token' || last === 'key') return context !== 'text';
    return context === 'flag' && last === 'auth';
  }
  if (last === 'token') return !VOCABULARY_TOKENS.has(previous!);
  if (SECRET_TAILS.has(last)) return true;
  if (last === 'key') return KEY_OWNERS.has(previous!);
  return false;
}

/**
 * Request headers whose values say nothing about who sent them: recorded as given. Every other
 * header given to --header is recorded by its name only. API gateways take keys under any name
 * (X-RapidAPI-Key, Azure Functions' x-functions-key, X-Key, X-<vendor>-Auth: Basic …), so no
 * list of secret names is complete; a list of harmless ones is.
 */
const HARMLESS_HEADERS: ReadonlySet<string> = new Set(['accept', 'accept-encoding', 'accept-language', 'cache-control', 'content-type', 'user-agent', 'x-request-id']);

/** Well-known token shapes, wherever they appear (a flag of any name, a log line, a path). */
const TOKEN_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g, 'Hugging Face token'],
  [/(?<![\w-])sk-(?=[\w-]*\d)[A-Za-z0-9_-]{20,}/g, 'sk- API key'],
  [/(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, 'GitHub token'],
  [/(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g, 'AWS access key id'],
  [/(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g, 'Google API key'],
  [/(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}/g, 'Slack token'],
  [/(?<![\w-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, 'JSON web token'],
];

/** scheme://… up to whitespace, a quote or an angle bracket (which also ends it before a <redacted>). */
const URL_PATTERN = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s"'<>]*)/gi;
const PARAM_PATTERN = /([?&;#])([^=&;#\s]+)=([^&;#\s]*)/g;

function redactUrlsIn(text: string, report: Report): string {
  return text.replace(URL_PATTERN, (_match, scheme: string, rest: string) => {
    const authorityEnd = rest.search(/[/?#]/);
    const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
    let tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
    let host = authority;
    const at = authority.lastIndexOf('@');
    // Stripped, not replaced: what is left is still a URL that says where, and nothing of who.
    if (at !== -1) {
      host = authority.slice(at + 1);
      report('URL userinfo (user:password@)');
    }
    tail = tail.replace(PARAM_PATTERN, (param, separator: string, name: string, value: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed escape: judge the name as written
      }
      if (!isSecretName(decoded, 'query') || isPlaceholder(value)) return param;
      report(`secret URL parameter "${decoded}"`);
      return `${separator}${name}=${REDACTED}`;
    });
    return `${scheme}${host}${tail}`;
  });
}

/** Authorization's scheme word stays: "Bearer <redacted>" still says how the server was reached. */
const BEARER_PATTERN = /\b(Bearer)(\s+)([A-Za-z0-9._~+/-]{8,}=*)/gi;
/** HTTP Basic credentials (base64 of user:password) after the scheme word, whatever header or field holds them. */
const BASIC_PATTERN = /\b(Basic)(\s+)([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/gi;

/** Whether a base64 word is user:password (printable, with a colon): "Basic settings" is not. */
function isBasicCredential(encoded: string): boolean {
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  return decoded.includes(':') && /^[\x20-\x7e]+$/.test(decoded);
}

/** --flag value or --flag=value inside a string (a shell script given to sh -c, a logged command line). */
const FLAG_PATTERN = /(?<![\w.-])(--?[A-Za-z][\w.-]*)(=|[ \t]+)(?:"([^"]*)"|'([^']*)'|([^\s"']+))/g;

/** name=value, name: value, "name": "value", 'name': 'value', name: ['a', 'b'] (env assignments, JSON, Python reprs such as vLLM's logged args, headers in logs). */
const ASSIGNMENT_PATTERN = /(?<![\w.-])(["']?)([A-Za-z][\w.-]*)\1([ \t]*[:=][ \t]*)(?:"([^"]*)"|'([^']*)'|(\[[^\]\n]*\]|(?:(?:Bearer|Basic|Digest|Token)[ \t]+)?[^\s"',;&}\])]+))/g;

/**
 * What each rule's pattern cannot match without: a rule whose marker the text lacks is skipped.
 * Most strings in a result (enum words, digests, model names) hold none, and the patterns' scans
 * were the most of checking a file for credentials. Tested on the text as the earlier rules left it.
 */
const URL_MARKER = '://';
const SCHEME_MARKER = /bearer|basic/i;
const TOKEN_SHAPE_MARKER = /hf_|gh[pousr]_|github_pat_|AKIA|ASIA|AIza|sk-|xox[abposr]-|eyJ/;

function redactTextWith(text: string, report: Report): string {
  // Stryker disable ConditionalExpression,LogicalOperator,StringLiteral: a guard that always passes (includes('') too) runs a rule that finds nothing (equivalent); one that never passes is killed by the rule's tests.
  let out = text.includes(URL_MARKER) ? redactUrlsIn(text, report) : text;
  if (SCHEME_MARKER.test(out)) out = redactSchemesWith(out, report);
  if (out.includes('-')) out = redactFlagsWith(out, report);
  if (out.includes(':') || out.includes('=')) out = redactAssignmentsWith(out, report);
  if (TOKEN_SHAPE_MARKER.test(out)) out = redactTokenShapesWith(out, report);
  // Stryker restore ConditionalExpression,LogicalOperator,StringLiteral
  return out;
}

function redactSchemesWith(text: string, report: Report): string {
  let out = text.replace(BEARER_PATTERN, (match, scheme: string, space: string, token: string) => {
    if (isPlaceholder(token)) return match;
    report('Bearer token');
    return `${scheme}${space}${REDACTED}`;
  });
  out = out.replace(BASIC_PATTERN, (match, scheme: string, space: string, encoded: string) => {
    if (!isBasicCredential(encoded)) return match;
    report('Basic credentials');
    return `${scheme}${space}${REDACTED}`;
  });
  return out;
}

function redactFlagsWith(text: string, report: Report): string {
  return text.replace(FLAG_PATTERN, (match, flag: string, separator: string, double?: string, single?: string, bare?: string) => {
    // Stryker disable next-line StringLiteral: one of the three alternatives always matched; the fallback narrows the type.
    const value = double ?? single ?? bare ?? '';
    const quote = double !== undefined ? '"' : single !== undefined ? "'" : '';
    // curl -H "X-Key: …" in a script or a logged command line: the header rules of an argv.
    if (HEADER_FLAGS.has(flag)) return `${flag}${separator}${quote}${redactHeaderWith(value, report)}${quote}`;
    if (!isSecretName(flag, 'flag') || isPlaceholder(value)) return match;
    // "--use-auth-token --next-flag": a switch, not a flag with a value.
    if (separator !== '=' && value.startsWith('-')) return match;
    report(`value of ${flag}`);
    return `${flag}${separator}${quote}${REDACTED}${quote}`;
  });
}

function redactAssignmentsWith(text: string, report: Report): string {
  return text.replace(ASSIGNMENT_PATTERN, (match, nameQuote: string, name: string, separator: string, double?: string, single?: string, bare?: string) => {
    // Stryker disable next-line StringLiteral: one of the three alternatives always matched; the fallback narrows the type.
    const raw = double ?? single ?? bare ?? '';
    const value = raw.replace(/^(?:Bearer|Basic|Digest|Token)[ \t]+/i, '');
    // A URL's last parameter, already redacted by the URL rules, runs on into its fragment (…&sig=<redacted>#x=1).
    if (!isSecretName(name, 'text') || isPlaceholder(value) || value.startsWith(`${REDACTED}#`)) return match;
    report(`value of ${name}`);
    const quote = double !== undefined ? '"' : single !== undefined ? "'" : '';
    return `${nameQuote}${name}${nameQuote}${separator}${quote}${raw.slice(0, raw.length - value.length)}${REDACTED}${quote}`;
  });
}

function redactTokenShapesWith(text: string, report: Report): string {
  let out = text;
  for (const [pattern, what] of TOKEN_SHAPES) {
    out = out.replace(pattern, () => {
      report(what);
      return REDACTED;
    });
  }
  return out;
}

/**
 * A header as given to --header/-H ("Name: value"): its name kept, its value only when the header
 * is a harmless one (and then with the rules of any text). An authentication scheme word stays:
 * "Bearer <redacted>" still says how the server was reached.
 */
function redactHeaderWith(header: string, report: Report): string {
  const colon = header.indexOf(':');
  const name = header.slice(0, colon).trim();
  if (colon <= 0 || HARMLESS_HEADERS.has(name.toLowerCase())) return redactTextWith(header, report);
  const rest = header.slice(colon + 1);
  // Stryker disable next-line Regex: \s* matches at index 0 (if only the empty string), anchored or not.
  const space = /^\s*/.exec(rest)![0];
  const value = rest.trim();
  const scheme = /^(?:Bearer|Basic|Digest|Token)\s+/i.exec(value)?.[0] ?? '';
  if (isPlaceholder(value.slice(scheme.length))) return header;
  report(`${name} header value`);
  return `${header.slice(0, colon + 1)}${space}${scheme}${REDACTED}`;
}
const FLAG_ONLY = /^--?[A-Za-z][\w.-]*$/;
const FLAG_INLINE = /^(--?[A-Za-z][\w.-]*)=([\s\S]*)$/;

function redactArgvWith(argv: readonly string[], report: (index: number, what: string) => void): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const here: Report = (what) => report(i, what);
    const next = argv[i + 1];
    if (FLAG_ONLY.test(arg) && next !== undefined) {
      if (HEADER_FLAGS.has(arg)) {
        out.push(arg, redactHeaderWith(next, (what) => report(i + 1, what)));
        i += 1;
        continue;
      }
      // The value of a secret flag is a secret whatever it looks like; "--use-auth-token --x" is a switch.
      if (isSecretName(arg, 'flag') && !next.startsWith('--')) {
        if (!isPlaceholder(next)) report(i + 1, `value of ${arg}`);
        out.push(arg, isPlaceholder(next) ? next : REDACTED);
        i += 1;
        continue;
      }
    }
    const inline = FLAG_INLINE.exec(arg);
    if (inline) {
      const [, flag, value] = inline as unknown as [string, string, string];
      if (HEADER_FLAGS.has(flag)) out.push(`${flag}=${redactHeaderWith(value, here)}`);
      else if (isSecretName(flag, 'flag') && !isPlaceholder(value)) {
        here(`value of ${flag}`);
        out.push(`${flag}=${REDACTED}`);
      } else out.push(`${flag}=${redactTextWith(value, here)}`);
      continue;
    }
    out.push(redactTextWith(arg, here));
  }
  return out;
}

/** argv as recorded in results: userinfo stripped from URLs, secret flag values, headers, variables, URL parameters and token shapes redacted. */
export function redactArgv(argv: readonly string[]): string[] {
  return redactArgvWith(argv, () => {});
}

/** Any text (a log line, an error message): the same rules, less the flag-before-value context only an argv has. */
export function redactText(text: string): string {
  return redactTextWith(text, IGNORE);
}

/** A URL without userinfo, with secret query or fragment parameters (and any token shape in it) redacted; everything else as written. */
export function redactUrl(url: string): string {
  return redactTextWith(url, IGNORE);
}

function childPath(path: string, key: string | number): string {
  // Stryker disable next-line ConditionalExpression,StringLiteral: an index is no identifier, and JSON.stringify spells it as its digits: [3] either way.
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][\w$]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * The copy redactValue makes. An array of strings is read as an argv (that is how every command in
 * a result is stored, and `--api-key` `sk` needs its neighbour to be seen); a field named like a
 * secret (extra_body's api_key, an engine config's hf_token) has its string value redacted whole.
 * (An empty array is an argv of nothing: no copy to tell from the map's.)
 */
function walk(value: unknown): unknown {
  if (typeof value === 'string') return redactTextWith(value, IGNORE);
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item === 'string')) return redactArgv(value as string[]);
    return value.map((item) => walk(item));
  }
  // Plain objects only: a result is parsed JSON; anything else (a Date, a Buffer) is not walked into.
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    // fromEntries defines each key as data, so a hostile "__proto__" field stays a field.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => (typeof item === 'string' && isSecretName(key, 'text') && !isPlaceholder(item) ? [key, REDACTED] : [key, walk(item)])),
    );
  }
  return value;
}

/** A copy of any JSON value (a whole result) with every credential redacted, by the rules findCredentials enforces. */
export function redactValue<T>(value: T): T {
  return walk(value) as T;
}

/** Every credential left in a parsed result (any string anywhere), with its JSON path; empty when there is none. */
export function findCredentials(value: unknown): CredentialFinding[] {
  const found: CredentialFinding[] = [];
  scan(value, [], found);
  return found;
}

/** Field names repeat across every file of a compile: each is judged once (a hostile file's many names cannot grow this without end). */
const FIELD_NAME_VERDICTS = new Map<string, boolean>();
const FIELD_NAME_VERDICTS_MAX = 10_000;

function isSecretFieldName(key: string): boolean {
  let verdict = FIELD_NAME_VERDICTS.get(key);
  // Stryker disable next-line ConditionalExpression: judging again gives the same verdict (the memo only saves the work).
  if (verdict === undefined) {
    verdict = isSecretName(key, 'text');
    // Stryker disable next-line ConditionalExpression,EqualityOperator,CallExpression: clearing sooner, later or never changes only what is remembered, never a verdict.
    if (FIELD_NAME_VERDICTS.size >= FIELD_NAME_VERDICTS_MAX) FIELD_NAME_VERDICTS.clear();
    // Stryker disable next-line CallExpression: as above, forgetting a verdict only costs judging it again.
    FIELD_NAME_VERDICTS.set(key, verdict);
  }
  return verdict;
}

const pathOf = (keys: ReadonlyArray<string | number>): string => keys.reduce<string>((path, key) => childPath(path, key), '');

/**
 * walk's rules without its copy: validate and compile look for credentials in every file, where a
 * copy of the whole result (and a path string and a report function per value) was a fifth of
 * ingest. The path is spelled from the key stack only for a finding; the findings are the places walk
 * redacts, in walk's order.
 */
function scan(value: unknown, keys: Array<string | number>, found: CredentialFinding[]): void {
  if (typeof value === 'string') {
    redactTextWith(value, (what) => found.push({ path: pathOf(keys), what }));
    return;
  }
  if (Array.isArray(value)) {
    // An empty array is an argv of nothing, as in walk.
    if (value.every((item) => typeof item === 'string')) {
      redactArgvWith(value as string[], (index, what) => found.push({ path: childPath(pathOf(keys), index), what }));
      return;
    }
    // Stryker disable next-line EqualityOperator: one index past the end scans undefined, which holds nothing.
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      // Results hold long arrays of per-request numbers: a number, boolean or null holds nothing, so it costs no call.
      // Stryker disable next-line ConditionalExpression,LogicalOperator: visiting a number or null finds nothing (equivalent; the skip only saves the call).
      if (item === null || (typeof item !== 'object' && typeof item !== 'string')) continue;
      keys.push(index);
      scan(item, keys, found);
      keys.pop();
    }
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    // Stryker disable next-line ConditionalExpression,LogicalOperator: as above.
    if (item === null || (typeof item !== 'object' && typeof item !== 'string')) continue;
    keys.push(key);
    if (typeof item === 'string' && isSecretFieldName(key) && !isPlaceholder(item)) found.push({ path: pathOf(keys), what: `secret field "${key}"` });
    else scan(item, keys, found);
    keys.pop();
  }
}
