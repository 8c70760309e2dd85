/**
 * The runner every function worker executes, as plain CommonJS. It ships as a string so the
 * same text is found from the TypeScript sources (jest) and from `dist/` (tsc copies no .js
 * files); `runner-file.ts` writes it to a root-owned, read-only file at startup, and that file
 * is the only one the worker may read.
 *
 *   node <limits> runner.js ipc                -> the process driver (Node IPC channel, JSON)
 *   node <limits> runner.js http <socket-path> -> the docker driver (HTTP on a unix socket)
 *
 * Security comes from the parent: the permission model (no fs beyond this file, no child
 * processes, workers, addons or WASI), the uid drop, rlimits, and its wall-clock timer. What the
 * runner adds is hygiene: an allow-list require, no dynamic import (vm.compileFunction without an
 * importModuleDynamically callback), a scrubbed environment, signals to itself only, console
 * capture per invocation, and result checks. Keep it free of backticks and dollar-brace pairs
 * (it lives in a template literal) and of anything secret (a handler can read it).
 */
export const RUNNER_SOURCE = String.raw`'use strict';
const vm = require('node:vm');
const util = require('node:util');
const { AsyncLocalStorage } = require('node:async_hooks');

const ALLOWED = ['assert', 'buffer', 'crypto', 'events', 'path', 'querystring', 'stream',
  'string_decoder', 'timers', 'url', 'util', 'zlib'];
const SUBPATHS = ['assert/strict', 'path/posix', 'stream/promises', 'stream/web',
  'timers/promises', 'util/types'];
const MAX_LOG_LINES = 100;
const MAX_LOG_CHARS = 2000;
const MAX_MESSAGE_CHARS = 2000;
const MAX_LOAD_BYTES = 16 * 1024 * 1024;

const mode = process.argv[2];
const socketPath = process.argv[3];
const ownPid = process.pid;
const parentSend = typeof process.send === 'function' ? process.send.bind(process) : null;
const stderrWrite = process.stderr.write.bind(process.stderr);

// Node read NODE_EXTRA_CA_CERTS (the only variable a parent passes) at startup already.
for (const key of Object.keys(process.env)) delete process.env[key];

const builtins = new Map();
for (const name of ALLOWED.concat(SUBPATHS)) {
  const mod = require('node:' + name);
  builtins.set(name, mod);
  builtins.set('node:' + name, mod);
}
function sandboxRequire(id) {
  const key = String(id);
  if (builtins.has(key)) return builtins.get(key);
  const err = new Error("Cannot require '" + key + "': a function may require only the Node " +
    'built-ins ' + ALLOWED.join(', '));
  err.code = 'MODULE_NOT_FOUND';
  throw err;
}

// Workers of every function share one uid: a handler may signal only its own process.
const rawKill = process._kill;
process._kill = function (pid, signal) {
  return Number(pid) === ownPid ? rawKill.call(process, pid, signal) : -1; // -1 is UV_EPERM
};
// Other ways to the full module system; the permission model stops what they would reach,
// these keep the allow-list honest.
process.getBuiltinModule = function getBuiltinModule(id) { return builtins.get(String(id)); };
delete process.mainModule;
// Process internals a handler could reach through an escape to the real process object:
// _debugProcess(pid) opens the inspector of any process of the same uid (the platform, when
// it does not run as root), _debugEnd and _rawDebug talk to the inspector, dlopen loads
// native code, binding/_linkedBinding reach internals. None is needed once the runner is up.
for (const name of ['_debugProcess', '_debugEnd', '_rawDebug', 'dlopen', 'binding',
  '_linkedBinding', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups']) {
  try { delete process[name]; } catch (_) { /* not configurable: left alone */ }
  if (typeof process[name] === 'function') {
    try {
      Object.defineProperty(process, name, { value: undefined, configurable: false, writable: false });
    } catch (_) { /* ignore */ }
  }
}

function cap(text, max) {
  return text.length > max ? text.slice(0, max) + ' [truncated]' : text;
}
function describe(e) {
  try {
    if (util.types.isNativeError(e) || e instanceof Error) {
      return cap(String(e.message) || String(e.name), MAX_MESSAGE_CHARS);
    }
    if (typeof e === 'string') return cap(e, MAX_MESSAGE_CHARS);
    return cap(util.inspect(e, { depth: 2, breakLength: Infinity }), MAX_MESSAGE_CHARS);
  } catch (_) {
    return 'a value that cannot be described';
  }
}
function describeLoadError(e) {
  try {
    if (util.types.isNativeError(e) || e instanceof Error) {
      return cap(String(e.name) + ': ' + String(e.message), MAX_MESSAGE_CHARS);
    }
  } catch (_) { /* fall through */ }
  return 'Error: ' + describe(e);
}

// Console lines belong to the invocation whose async context wrote them.
const context = new AsyncLocalStorage();
const running = new Map();
let emitLog = function (_inv, _line) {};
function write(level, args) {
  const inv = running.get(context.getStore());
  if (inv === undefined) return;
  if (inv.lines > MAX_LOG_LINES) return;
  let message;
  if (inv.lines === MAX_LOG_LINES) {
    message = '[more log lines were dropped: at most ' + MAX_LOG_LINES + ' per invocation]';
  } else {
    try { message = cap(util.format.apply(null, args), MAX_LOG_CHARS); } catch (_) {
      message = '[a log line that cannot be formatted]';
    }
  }
  inv.lines++;
  emitLog(inv, { level: level, message: message, at: Date.now() - inv.started });
}
const sandboxConsole = {
  log: function () { write('log', Array.from(arguments)); },
  info: function () { write('info', Array.from(arguments)); },
  warn: function () { write('warn', Array.from(arguments)); },
  error: function () { write('error', Array.from(arguments)); },
  debug: function () { write('debug', Array.from(arguments)); },
  trace: function () { write('debug', Array.from(arguments)); },
  dir: function (value, options) { write('log', [util.inspect(value, options)]); },
  table: function () { write('log', Array.from(arguments)); },
  assert: function (ok) {
    if (!ok) write('error', ['Assertion failed'].concat(Array.from(arguments).slice(1)));
  },
};
Object.defineProperty(globalThis, 'console', {
  value: sandboxConsole, writable: true, configurable: true, enumerable: false,
});

let handler = null;
let maxResultBytes = 0;
function load(code, limits) {
  if (handler !== null) return { ok: false, message: 'Error: already loaded' };
  if (typeof code !== 'string' || !limits || !(limits.maxPayloadBytes > 0)) {
    return { ok: false, message: 'Error: bad load request' };
  }
  try {
    const mod = { exports: {} };
    const fn = vm.compileFunction(code,
      ['exports', 'require', 'module', '__filename', '__dirname', 'console'],
      { filename: 'function.js' });
    fn.call(mod.exports, mod.exports, sandboxRequire, mod, '/function.js', '/', sandboxConsole);
    const ex = mod.exports;
    const found = typeof ex === 'function' ? ex
      : ex && typeof ex.default === 'function' ? ex.default
      : ex && typeof ex.handler === 'function' ? ex.handler : null;
    if (found === null) {
      return { ok: false, message: 'The function exports no handler: export a function as ' +
        'default, as module.exports or as exports.handler' };
    }
    handler = found;
    maxResultBytes = limits.maxPayloadBytes;
    return { ok: true };
  } catch (e) {
    return { ok: false, message: describeLoadError(e) };
  }
}

function result(ok, value) {
  if (!ok) return { ok: false, kind: 'error', message: describe(value) };
  let json;
  try { json = JSON.stringify(value); } catch (e) {
    return { ok: false, kind: 'bad_result', message: 'The result is not JSON: ' + describe(e) };
  }
  if (json === undefined) return { ok: true };
  if (Buffer.byteLength(json) > maxResultBytes) {
    return { ok: false, kind: 'bad_result',
      message: 'The result is larger than ' + maxResultBytes + ' bytes' };
  }
  return { ok: true, json: json };
}

let nextId = 1;
function invoke(id, payloadJson, done) {
  if (handler === null) return done({ ok: false, kind: 'error', message: 'not loaded' });
  const inv = { id: id === undefined ? nextId++ : id, started: Date.now(), lines: 0, logs: [] };
  running.set(inv.id, inv);
  let settled = false;
  const finish = function (ok, value) {
    if (settled) return;
    settled = true;
    const reply = result(ok, value);
    running.delete(inv.id);
    done(reply, inv);
  };
  context.run(inv.id, function () {
    new Promise(function (resolve) { resolve(handler(JSON.parse(payloadJson))); })
      .then(function (v) { finish(true, v); }, function (e) { finish(false, e); })
      .catch(function (e) { finish(false, e); });
  });
}

function reportStray(kind, e) {
  if (running.has(context.getStore())) write('error', [kind + ':', describe(e)]);
  if (mode === 'ipc') send({ t: 'uncaught', message: kind + ': ' + describe(e) });
  else stderrWrite(kind + ': ' + describe(e) + '\n');
}
process.on('uncaughtException', function (e) { reportStray('Uncaught exception', e); });
process.on('unhandledRejection', function (e) { reportStray('Unhandled rejection', e); });

function noop() {}
function send(message) {
  try { parentSend(message, undefined, undefined, noop); } catch (_) { /* parent gone */ }
}

function serveIpc() {
  emitLog = function (inv, line) {
    send({ t: 'log', id: inv.id, level: line.level, message: line.message, at: line.at });
  };
  process.on('message', function (msg) {
    if (!msg || typeof msg !== 'object') return;
    if (msg.t === 'load') {
      const r = load(msg.code, msg.limits);
      send(r.ok ? { t: 'loaded' } : { t: 'loadErr', message: r.message });
    } else if (msg.t === 'inv' && Number.isSafeInteger(msg.id) && typeof msg.payload === 'string') {
      invoke(msg.id, msg.payload, function (reply) {
        send(Object.assign({ t: 'res', id: msg.id }, reply));
      });
    }
  });
  // The parent went away: nobody can call or kill this worker any more.
  process.on('disconnect', function () { process.exit(0); });
  send({ t: 'ready' });
}

function readBody(req, max, done) {
  const chunks = [];
  let size = 0;
  req.on('data', function (chunk) {
    size += chunk.length;
    if (size > max) { done(null); req.destroy(); return; }
    chunks.push(chunk);
  });
  req.on('end', function () { if (size <= max) done(Buffer.concat(chunks).toString('utf8')); });
}
function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json',
    'content-length': Buffer.byteLength(text) });
  res.end(text);
}
function onRequest(req, res) {
  if (req.method === 'GET' && req.url === '/health') return reply(res, 200, { ok: true });
  const isLoad = req.method === 'POST' && req.url === '/load';
  const isInvoke = req.method === 'POST' && req.url === '/invoke';
  if (!isLoad && !isInvoke) return reply(res, 404, { error: 'not found' });
  const max = isLoad ? MAX_LOAD_BYTES : maxResultBytes;
  readBody(req, max, function (body) {
    if (body === null) return reply(res, 413, { error: 'too large' });
    if (isInvoke) {
      return invoke(undefined, body, function (r, inv) {
        reply(res, 200, Object.assign({ logs: inv ? inv.logs : [] }, r));
      });
    }
    let msg;
    try { msg = JSON.parse(body); } catch (_) { return reply(res, 400, { error: 'bad json' }); }
    const r = load(msg && msg.code, msg && msg.limits);
    reply(res, r.ok ? 200 : 422, r.ok ? { t: 'loaded' } : { t: 'loadErr', message: r.message });
  });
}
function serveHttp() {
  emitLog = function (inv, line) { inv.logs.push(line); };
  const server = require('node:http').createServer(onRequest);
  // The platform enforces the wall clock; idle keep-alive connections stay open.
  server.keepAliveTimeout = 0;
  server.requestTimeout = 0;
  server.listen(socketPath);
}

if (mode === 'ipc' && parentSend !== null) serveIpc();
else if (mode === 'http' && typeof socketPath === 'string') serveHttp();
else { stderrWrite('usage: runner.js ipc | runner.js http <socket-path>\n'); process.exit(2); }
`;
