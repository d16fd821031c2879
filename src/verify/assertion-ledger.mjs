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
import { AsyncResource, createHook } from "node:async_hooks";
import { createHmac, randomBytes } from "node:crypto";
import { appendFileSync, closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
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
const defineProperty = Object.defineProperty;
const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const getPrototypeOf = Object.getPrototypeOf;
const hasOwn = Object.hasOwn;
const freeze = Object.freeze;
const ownKeys = Reflect.ownKeys;
const weakGet = WeakMap.prototype.get;
const weakSet = WeakMap.prototype.set;
const weakHas = WeakMap.prototype.has;
const asyncResourcePrototype = AsyncResource.prototype;
const runInAsyncScope = AsyncResource.prototype.runInAsyncScope;
const newHook = createHook;
const hookEnable = getPrototypeOf(createHook({})).enable;
const require = createRequire(import.meta.url);

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

/**
 * node:test's exports (test, it, describe, suite, hooks) pinned like node:assert's (ADR 0040): the
 * code under test could otherwise replace `test` (module.syncBuiltinESMExports() rebinds the test
 * file's import) and register the broken test with an empty function of its own.
 */
function pinExports(target) {
  const keys = ownKeys(target);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const d = getOwnPropertyDescriptor(target, key);
    if (!d?.configurable || !("value" in d) || !d.writable) continue;
    const value = d.value;
    defineProperty(target, key, {
      enumerable: d.enumerable,
      configurable: false,
      get: () => value,
      set() {
        throw new TypeError(
          `devflow: node:test's ${toText(key)} is frozen in verification runs; code under test may not replace it (ADR 0048)`,
        );
      },
    });
  }
}

function installLedger(secret, ledgerDir) {
  const nonce = randomBytes(12).toString("hex");
  const ledgerFile = join(ledgerDir, `${process.pid}-${nonce}.ndjson`);
  let seq = 0;
  let prev = nonce;
  // One chained, signed line per record: a dropped, reordered, edited or copied-in line breaks the
  // chain. The body is byte for byte JSON.stringify([nonce, seq, kind, path, file]) as devflow
  // rebuilds it. `file` is the test's file as node reports it (its call site, stop 51): a test's
  // outcome backs only the report's entry of the same file and path.
  const record = (kind, path, testFile) => {
    const pathJson = path === undefined || path === null ? "null" : jsonStrings(path);
    const fileJson = typeof testFile === "string" ? stringify(testFile) : "null";
    const body = `[${stringify(nonce)},${seq},${stringify(kind)},${pathJson},${fileJson}]`;
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
      ',"f":' +
      fileJson +
      ',"mac":' +
      stringify(mac) +
      "}\n";
    appendLine(ledgerFile, line);
    prev = mac;
    seq += 1;
  };
  apply(processOn, process, [
    "exit",
    () => {
      if (seq === 0) return;
      record("end");
    },
  ]);

  // node:test runs every test's function through AsyncResource#runInAsyncScope on its Test object
  // (a subclass): observed there, the test keeps its own call site, so the report's file for it is
  // the test file's (wrapping test() would make it this module's).
  const settle = (entry, result) => {
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
          record("pass", entry.path, entry.file);
          return v;
        },
        (e) => {
          recordFailure(entry);
          throw e;
        },
      ]);
    }
    record("pass", entry.path, entry.file);
    return result;
  };
  const callArgs = (fn, thisArg, args) => {
    const list = [fn, thisArg];
    for (let i = 0; i < args.length; i++) apply(arrayPush, list, [args[i]]);
    return list;
  };
  // Which function node:test was given for each test, taken where node hands it to the test it
  // makes (Test#createSubtest, called by `test()`/`it()`/`t.test()`), and signed only when that
  // function is the one that ran: the code under test could swap a test's `fn` on node's own object
  // (third hostile review: from its own runInAsyncScope wrapper or an async hook's init) and have an
  // empty function signed as a pass. Every node:test object (async resource type "Test") gets, from
  // devflow's async hook, which runs before any hook of the code under test, its own
  // non-configurable `createSubtest` and `runInAsyncScope` (and, for a test, `run` and
  // `getRunArgs`), as node defined them before the code under test could reach them.
  const registered = new WeakMap(); // Test -> { fn, path, file, mark }
  const contextOf = new WeakMap(); // the TestContext node's own run made for a test -> that test
  let running = null; // the test whose run() is in its synchronous start (where node makes its context)
  const pristine = new WeakMap(); // prototype -> { name: node's own method }
  const PINNED = ["createSubtest", "run", "getRunArgs"];
  let testPrototype = null;
  let contextPinned = false;
  const pristineMethod = (r, name) => {
    for (let p = getPrototypeOf(r); p !== null && p !== asyncResourcePrototype; p = getPrototypeOf(p)) {
      const own = apply(weakGet, pristine, [p]);
      if (own && hasOwn(own, name)) return own[name];
    }
    return undefined;
  };
  const pin = (target, name, value) =>
    defineProperty(target, name, { value, writable: false, enumerable: false, configurable: false });
  // A test is signed only when the function running is the one registered for it.
  const runInScope = function (fn, thisArg, ...args) {
    const entry = apply(weakGet, registered, [this]);
    // ...with the context node made for it (t.assert, t.plan), not one the code under test made up.
    if (
      entry === undefined ||
      entry.fn !== fn ||
      apply(weakGet, contextOf, [thisArg]) !== this ||
      args.length === 0 ||
      args[0] !== thisArg
    )
      return apply(runInAsyncScope, this, callArgs(fn, thisArg, args));
    // node:test calls a function of exactly two parameters with a `done` callback last.
    const done = args.length > 0 ? args[args.length - 1] : undefined;
    const callback = fn.length === 2 && typeof done === "function";
    if (callback)
      args[args.length - 1] = function (...e) {
        if (e[0]) recordFailure(entry);
        else record("pass", entry.path, entry.file);
        return apply(done, this, e);
      };
    let result;
    try {
      result = apply(runInAsyncScope, this, callArgs(fn, thisArg, args));
    } catch (e) {
      recordFailure(entry);
      throw e;
    }
    return callback ? result : settle(entry, result);
  };
  // A failure node reports as a todo (the test registered with `todo`, or its context's t.todo())
  // or a skip (t.skip() while it ran) is signed as such: only then may the report show it so, and a
  // plain failure relabelled todo or skip by a forger is refused (stop 51, attack 58a).
  const recordFailure = (entry) =>
    record(entry.mark === null ? "fail" : `fail-${entry.mark}`, entry.path, entry.file);
  // t.skip()/t.todo() on the context node made for a test: marks that test (a skip outranks a todo,
  // as it may show either way in the report).
  const marking = (mark, nodeMethod) =>
    function (...args) {
      const test = apply(weakGet, contextOf, [this]);
      const entry = test === undefined ? undefined : apply(weakGet, registered, [test]);
      if (entry !== undefined && entry.mark !== "skip") entry.mark = mark;
      return apply(nodeMethod, this, args);
    };
  // node's createSubtest(Factory, name, options, fn, overrides) with its own argument shuffle.
  const createSubtest = function (Factory, name, options, fn, overrides) {
    let given = fn;
    if (typeof name === "function") given = name;
    else if (name !== null && typeof name === "object") given = options;
    else if (typeof options === "function") given = options;
    const made = apply(pristineMethod(this, "createSubtest"), this, [Factory, name, options, fn, overrides]);
    if (made === null || typeof made !== "object") return made;
    // Its names up the parent chain (suites, parent tests), as the report has them, taken now:
    // name and parent are non-configurable data properties since devflow's init (never accessors).
    const reversed = [];
    for (let at = made; at !== null && typeof at === "object" && at.parent; at = at.parent)
      apply(arrayPush, reversed, [toText(at.name)]);
    const path = [];
    for (let i = reversed.length - 1; i >= 0; i--) apply(arrayPush, path, [reversed[i]]);
    if (testPrototype !== null && getPrototypeOf(made) === testPrototype) {
      // Its file as node will report it (loc and isTodo are data properties since devflow's init,
      // set by node's constructor, never accessors of the code under test).
      const loc = made.loc;
      const file = loc !== null && typeof loc === "object" && typeof loc.file === "string" ? loc.file : "";
      // A test made without a function runs node's own no-op, which is what was registered then.
      const fn = typeof given === "function" ? given : made.fn;
      const entry = { fn, path, file, mark: made.isTodo === true ? "todo" : null };
      apply(weakSet, registered, [made, entry]);
      record("reg", path, file);
    }
    return made;
  };
  // TestContext's members (t.test, t.assert, t.plan, …) as node defined them; t.assert's object
  // (node caches one per context) frozen, so a test asserting through `t` asserts for real.
  const pinContext = (proto) => {
    const keys = ownKeys(proto);
    for (let i = 0; i < keys.length; i++) {
      const d = getOwnPropertyDescriptor(proto, keys[i]);
      if (!d?.configurable || keys[i] === "constructor") continue;
      if ("value" in d && (keys[i] === "skip" || keys[i] === "todo") && typeof d.value === "function")
        pin(proto, keys[i], marking(keys[i], d.value));
      else if ("value" in d) pin(proto, keys[i], d.value);
      else if (keys[i] === "assert" && typeof d.get === "function") {
        const get = d.get;
        defineProperty(proto, "assert", {
          get() {
            const made = apply(get, this, []);
            if (made !== null && typeof made === "object") freeze(made);
            return made;
          },
          enumerable: d.enumerable,
          configurable: false,
        });
      } else
        defineProperty(proto, keys[i], {
          get: d.get,
          set: d.set,
          enumerable: d.enumerable,
          configurable: false,
        });
    }
  };
  const guard = (r) => {
    for (let p = getPrototypeOf(r); p !== null && p !== asyncResourcePrototype; p = getPrototypeOf(p)) {
      if (apply(weakHas, pristine, [p])) continue;
      const own = { __proto__: null };
      for (let i = 0; i < PINNED.length; i++) {
        const d = getOwnPropertyDescriptor(p, PINNED[i]);
        if (d && typeof d.value === "function") own[PINNED[i]] = d.value;
      }
      apply(weakSet, pristine, [p, own]);
      if (testPrototype === null && own.createSubtest !== undefined) testPrototype = p;
    }
    pin(r, "runInAsyncScope", runInScope);
    if (pristineMethod(r, "createSubtest") !== undefined) pin(r, "createSubtest", createSubtest);
    // Set by node's constructor right after this hook; writable, but never an accessor.
    defineProperty(r, "name", { value: undefined, writable: true, enumerable: true, configurable: false });
    defineProperty(r, "parent", { value: null, writable: true, enumerable: true, configurable: false });
    defineProperty(r, "loc", { value: undefined, writable: true, enumerable: true, configurable: false });
    defineProperty(r, "isTodo", { value: false, writable: true, enumerable: true, configurable: false });
    if (getPrototypeOf(r) !== testPrototype) return; // a suite or a hook: node assigns a hook's run
    const run = pristineMethod(r, "run");
    const getRunArgs = pristineMethod(r, "getRunArgs");
    if (run !== undefined)
      pin(r, "run", function (...args) {
        const outer = running;
        running = this;
        try {
          return apply(run, this, args);
        } finally {
          running = outer;
        }
      });
    if (getRunArgs !== undefined)
      pin(r, "getRunArgs", function () {
        // The context a test's function gets (its t.test) and the arguments, as node made them.
        const made = apply(getRunArgs, this, []);
        if (made !== null && typeof made === "object") {
          if (made.ctx !== null && typeof made.ctx === "object") {
            freeze(made.ctx);
            // Only the context node's run makes counts: one the code under test asks for is not
            // the one node passes to the test, and a run with it is not signed.
            if (running === this) apply(weakSet, contextOf, [made.ctx, this]);
          }
          if (isArray(made.args)) freeze(made.args);
          freeze(made);
        }
        return made;
      });
    if (!contextPinned && getRunArgs !== undefined) {
      // TestContext#test (t.test) hands subtests' functions to createSubtest: pinned before the code
      // under test can reach a context (node makes the first one when the root test runs).
      contextPinned = true;
      const ctx = apply(getRunArgs, r, []).ctx;
      const proto = ctx === null || typeof ctx !== "object" ? null : getPrototypeOf(ctx);
      if (proto !== null) pinContext(proto);
    }
  };
  apply(
    hookEnable,
    newHook({
      init: (_id, type, _trigger, r) => type === "Test" && r !== null && typeof r === "object" && guard(r),
    }),
    [],
  );
  pinExports(require("node:test"));
  return true;
}
