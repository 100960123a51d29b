// The unit tests make no request off this machine: every TCP connection to a host other than
// loopback is refused before it is attempted (before DNS too), with an error that says so. Loaded
// by the unit project's setup (tests/setup/loopback-only.setup.ts) in the test workers, and through
// NODE_OPTIONS=--import in every Node process a test starts (the CLI, npm, tsx), so a child that
// reaches out fails as loudly as the test itself. Plain JavaScript on purpose: NODE_OPTIONS reaches
// node binaries that may not strip TypeScript.
//
// net.Socket.prototype.connect is where net.connect, tls.connect, http(s).request and undici's
// fetch all arrive (fetch resolves the name inside connect), so one guard covers them. Unix
// sockets and named pipes are local by definition. SERVEBENCH_TEST_NETWORK=1 lifts the guard for
// the tests that must reach the network (tests/skips.ts lists them).
import net from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1']);

/** 127.0.0.0/8, ::1, localhost, and the IPv4-mapped form of a 127/8 address. */
export function isLoopbackHost(host) {
  const name = String(host).toLowerCase().replace(/\.$/, '');
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return true;
  const v4 = name.startsWith('::ffff:') ? name.slice('::ffff:'.length) : name;
  return /^127(\.\d{1,3}){3}$/.test(v4);
}

/** Where a Socket#connect call goes: { path } for IPC, else { host, port }. */
export function connectTarget(args) {
  // net.connect passes its normalized arguments as one array ([options, callback]).
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (first !== null && typeof first === 'object') {
    if (first.path !== undefined) return { path: first.path };
    return { host: first.host ?? 'localhost', port: first.port };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { path: first };
  return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: first };
}

// One record per process: the module can be loaded twice in a test worker (natively through
// NODE_OPTIONS, and by vitest's module runner for the setup file), and only the first one patches.
const RECORD = Symbol.for('servebench.loopbackOnly.refused');
globalThis[RECORD] ??= [];
const refused = globalThis[RECORD];

/** The connections refused in this process so far, removed from the record. */
export function takeRefusedConnections() {
  return refused.splice(0, refused.length);
}

const GUARD = Symbol.for('servebench.loopbackOnly');

if (process.env.SERVEBENCH_TEST_NETWORK !== '1' && !net.Socket.prototype[GUARD]) {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const target = connectTarget(args);
    if (target.path !== undefined || isLoopbackHost(target.host)) return connect.apply(this, args);
    const where = `${target.host}:${target.port}`;
    refused.push(where);
    const error = new Error(`servebench tests: a connection to ${where} was refused, the unit tests make no request off this machine (tests/setup/loopback-only.mjs); SERVEBENCH_TEST_NETWORK=1 allows it for a test listed in tests/skips.ts`);
    error.code = 'ERR_SERVEBENCH_OFF_MACHINE';
    process.stderr.write(`${error.message} [pid ${process.pid}]\n`);
    // As a failed connection reports itself: asynchronously, through the socket's error.
    process.nextTick(() => this.destroy(error));
    return this;
  };
  net.Socket.prototype[GUARD] = true;
}
