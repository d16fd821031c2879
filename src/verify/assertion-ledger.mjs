// devflow's assertion ledger (ADR 0048): the second preload of every verification node process
// (after assert-freeze.mjs, ADR 0040). A node:test run's report travels from each test file's
// process to the runner on stdout, which the code under test can rewrite; the ledger is a second
// channel it cannot forge. devflow hands a per-run secret key to the `node --test` runner in
// DEVFLOW_LEDGER_KEY. Every other node process removes it from its environment here, before any
// code under test loads (so nothing the test processes start inherits it), and the test-file
// processes (NODE_TEST_CONTEXT set) keep it only in this module's closure. There every node:test
// test is wrapped: its registration, and whether its function completed without throwing, are
// appended as HMAC-SHA256-chained records to a file of its own in DEVFLOW_LEDGER_DIR, sealed by an
// end record at exit. devflow checks them against the runner's report (assertion-ledger.ts).
// Loaded from devflow's install (read-only in the namespace, ADR 0038), never from the checkout.
import { AsyncResource } from "node:async_hooks";
import { createHmac, randomBytes } from "node:crypto";
import { appendFileSync, closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";

// Everything the ledger calls after the code under test has loaded, taken now, before it loads
// (third hostile review, ADR 0048): that code can replace globals (JSON.stringify), prototype
// methods (Promise#then, Array iterators, Hmac#digest) and builtin exports, whose live ESM
// bindings module.syncBuiltinESMExports() rebinds (node:crypto's createHmac). The ledger uses no
// iterator, spread, toJSON or template on an object after this point.
const { apply } = Reflect;
const stringify = JSON.stringify;
const isArray = Array.isArray;
const arrayPush = Array.prototype.push;
const setAdd = Set.prototype.add;
const setHas = Set.prototype.has;
const setForEach = Set.prototype.forEach;
const promiseThen = Promise.prototype.then;
const promiseResolve = Promise.resolve.bind(Promise);
const NativePromise = Promise;
const newHmac = createHmac;
const hmacProto = Object.getPrototypeOf(createHmac("sha256", "probe"));
const hmacUpdate = hmacProto.update;
const hmacDigest = hmacProto.digest;
const appendLine = appendFileSync;
const processOn = process.on;
const toText = String;

/** A JSON array of strings, written without JSON.stringify on an object (no toJSON, no iterator). */
function jsonStrings(list) {
  let out = "[";
  for (let i = 0; i < list.length; i++) out += (i === 0 ? "" : ",") + stringify(toText(list[i]));
  return `${out}]`;
}

const KEY_ENV = "DEVFLOW_LEDGER_KEY";
const DIR_ENV = "DEVFLOW_LEDGER_DIR";

const testProcess = process.env.NODE_TEST_CONTEXT !== undefined;
// The `node --test` runner passes its environment to the test-file processes it starts, so it
// keeps the key (it runs no test file itself; with isolation "none" it does and counts as one).
const runsInProcess = process.execArgv.some((a) => /^--(?:experimental-test|test)-isolation=none$/.test(a));
const runner = !testProcess && process.execArgv.includes("--test") && !runsInProcess;

const key = process.env[KEY_ENV];
const dir = process.env[DIR_ENV];

if (key && dir && !runner) {
  delete process.env[KEY_ENV];
  delete process.env[DIR_ENV];
  scrubStartEnvironment(KEY_ENV);
  if (testProcess || runsInProcess) installLedger(Buffer.from(key, "hex"), dir);
}

/**
 * Overwrites `NAME=value` in the environment block the process started with: deleting a variable
 * from process.env leaves it there, readable in /proc/self/environ by the code under test. Linux
 * only (elsewhere there is no /proc and nothing to do).
 */
function scrubStartEnvironment(name) {
  let fd = null;
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // env_start and env_end are fields 50 and 51 of /proc/<pid>/stat; `fields` starts at field 3.
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!(end > start)) return;
    fd = openSync("/proc/self/mem", "r+");
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    const needle = Buffer.from(`${name}=`);
    for (let at = block.indexOf(needle); at !== -1; at = block.indexOf(needle, at + 1)) {
      if (at > 0 && block[at - 1] !== 0) continue;
      const from = at + needle.length;
      const to = block.indexOf(0, from);
      if (to > from) writeSync(fd, Buffer.alloc(to - from, 0x30), 0, to - from, start + from);
    }
  } catch {
    // No /proc (not Linux) or no access: the environment block stays as it was.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function installLedger(secret, ledgerDir) {
  const nonce = randomBytes(12).toString("hex");
  const file = join(ledgerDir, `${process.pid}-${nonce}.ndjson`);
  let seq = 0;
  let prev = nonce;
  // One chained, signed line per record: a dropped, reordered, edited or copied-in line breaks the
  // chain. The body is byte for byte JSON.stringify([nonce, seq, kind, path]) as devflow rebuilds it.
  const record = (kind, path) => {
    const pathJson = path === undefined || path === null ? "null" : jsonStrings(path);
    const body = `[${stringify(nonce)},${seq},${stringify(kind)},${pathJson}]`;
    const hmac = newHmac("sha256", secret);
    apply(hmacUpdate, hmac, [`${prev}\n${body}`]);
    const mac = apply(hmacDigest, hmac, ["hex"]);
    const line =
      '{"n":' +
      stringify(nonce) +
      ',"i":' +
      seq +
      ',"k":' +
      stringify(kind) +
      ',"p":' +
      pathJson +
      ',"mac":' +
      stringify(mac) +
      "}\n";
    appendLine(file, line);
    prev = mac;
    seq += 1;
  };
  let registrations = () => {};
  apply(processOn, process, [
    "exit",
    () => {
      if (seq === 0) return;
      registrations();
      record("end");
    },
  ]);

  // node:test runs every test's function through AsyncResource#runInAsyncScope on its Test
  // object (a subclass): observed there, the test keeps its own call site, so the report's file
  // for it is the test file's (wrapping test() would make it this module's).
  const settle = (path, result) => {
    if (
      result !== null &&
      (typeof result === "object" || typeof result === "function") &&
      typeof result.then === "function"
    ) {
      // A non-native thenable is resolved the way node's runner would await it; the outcome node
      // sees is the one returned here, so the ledger and the report cannot disagree.
      const promise = result instanceof NativePromise ? result : promiseResolve(result);
      return apply(promiseThen, promise, [
        (v) => {
          record("pass", path);
          return v;
        },
        (e) => {
          record("fail", path);
          throw e;
        },
      ]);
    }
    record("pass", path);
    return result;
  };
  const proto = AsyncResource.prototype;
  const runInAsyncScope = proto.runInAsyncScope;
  const roots = new Set();
  const isTest = (r, fn) =>
    r !== null &&
    typeof r === "object" &&
    r.fn === fn &&
    typeof fn === "function" &&
    typeof r.name === "string" &&
    isArray(r.subtests) &&
    r.constructor?.name === "Test";
  const pathOf = (t) => {
    const reversed = [];
    let at = t;
    while (at?.parent) {
      apply(arrayPush, reversed, [toText(at.name)]);
      at = at.parent;
    }
    if (at && !apply(setHas, roots, [at])) apply(setAdd, roots, [at]);
    const names = [];
    for (let i = reversed.length - 1; i >= 0; i--) apply(arrayPush, names, [reversed[i]]);
    return names;
  };
  const callArgs = (fn, thisArg, args) => {
    const list = [fn, thisArg];
    for (let i = 0; i < args.length; i++) apply(arrayPush, list, [args[i]]);
    return list;
  };
  proto.runInAsyncScope = function (fn, thisArg, ...args) {
    if (!isTest(this, fn)) return apply(runInAsyncScope, this, callArgs(fn, thisArg, args));
    const path = pathOf(this);
    // node:test calls a function of exactly two parameters with a `done` callback last.
    const done = args.length > 0 ? args[args.length - 1] : undefined;
    const callback = fn.length === 2 && typeof done === "function";
    if (callback)
      args[args.length - 1] = function (...e) {
        record(e[0] ? "fail" : "pass", path);
        return apply(done, this, e);
      };
    let result;
    try {
      result = apply(runInAsyncScope, this, callArgs(fn, thisArg, args));
    } catch (e) {
      record("fail", path);
      throw e;
    }
    return callback ? result : settle(path, result);
  };
  // Registrations, from node's own test tree at exit: a test the process registered and never ran
  // (a look-alike ran in its place, then the process left) counts against the pass.
  registrations = () => {
    const walk = (t, path) => {
      const subs = isArray(t.subtests) ? t.subtests : [];
      for (let i = 0; i < subs.length; i++) {
        const sub = subs[i];
        const p = [];
        for (let j = 0; j < path.length; j++) apply(arrayPush, p, [path[j]]);
        apply(arrayPush, p, [toText(sub.name)]);
        if (sub.constructor?.name === "Test" && !sub.skipped) record("reg", p);
        walk(sub, p);
      }
    };
    apply(setForEach, roots, [(root) => walk(root, [])]);
  };
  return true;
}
