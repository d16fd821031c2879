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
import { AsyncLocalStorage } from "node:async_hooks";
import { createHmac, randomBytes } from "node:crypto";
import { appendFileSync, closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import Module, { createRequire, register } from "node:module";
import { join } from "node:path";

const KEY_ENV = "DEVFLOW_LEDGER_KEY";
const DIR_ENV = "DEVFLOW_LEDGER_DIR";

const testProcess = process.env.NODE_TEST_CONTEXT !== undefined;
// The `node --test` runner passes its environment to the test-file processes it starts, so it
// keeps the key (it runs no test file itself; with isolation "none" it does and counts as one).
const runsInProcess = process.execArgv.some((a) => /^--(?:experimental-test|test)-isolation=none$/.test(a));
const runner = !testProcess && process.execArgv.includes("--test") && !runsInProcess;

const key = process.env[KEY_ENV];
const dir = process.env[DIR_ENV];

/** The node:test module with every test and suite function wrapped (null outside a test process). */
export let ledgerNodeTest = null;

if (key && dir && !runner) {
  delete process.env[KEY_ENV];
  delete process.env[DIR_ENV];
  scrubStartEnvironment(KEY_ENV);
  if (testProcess || runsInProcess) ledgerNodeTest = installLedger(Buffer.from(key, "hex"), dir);
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
  // One chained, signed line per record: a dropped, reordered, edited or copied-in line breaks the chain.
  const record = (kind, path) => {
    const body = JSON.stringify([nonce, seq, kind, path ?? null]);
    const mac = createHmac("sha256", secret).update(`${prev}\n${body}`).digest("hex");
    appendFileSync(file, `${JSON.stringify({ n: nonce, i: seq, k: kind, p: path ?? null, mac })}\n`);
    prev = mac;
    seq += 1;
  };
  process.on("exit", () => {
    if (seq > 0) record("end");
  });

  const require = createRequire(import.meta.url);
  const real = require("node:test");
  const scope = new AsyncLocalStorage();

  const named = (wrapper, fn) => {
    Object.defineProperty(wrapper, "name", { value: fn.name, configurable: true });
    return wrapper;
  };
  const settle = (path, result) => {
    if (result && typeof result.then === "function")
      return result.then(
        (v) => {
          record("pass", path);
          return v;
        },
        (e) => {
          record("fail", path);
          throw e;
        },
      );
    record("pass", path);
    return result;
  };
  const wrapContext = (t) => {
    if (t && typeof t.test === "function" && !Object.hasOwn(t, "test")) {
      const subtest = t.test;
      t.test = runnerOf((...args) => subtest.apply(t, args), "test", false);
    }
  };
  const testBody = (fn, path) => {
    // node:test calls a function of exactly two parameters with a `done` callback.
    if (fn.length === 2)
      return named(function (t, done) {
        wrapContext(t);
        return scope.run(path, () => {
          try {
            return fn.call(this, t, function (...args) {
              record(args[0] ? "fail" : "pass", path);
              return done.apply(this, args);
            });
          } catch (e) {
            record("fail", path);
            throw e;
          }
        });
      }, fn);
    return named(function (t, ...rest) {
      wrapContext(t);
      return scope.run(path, () => {
        let result;
        try {
          result = fn.call(this, t, ...rest);
        } catch (e) {
          record("fail", path);
          throw e;
        }
        return settle(path, result);
      });
    }, fn);
  };
  const suiteBody = (fn, path) =>
    named(function (...args) {
      return scope.run(path, () => fn.apply(this, args));
    }, fn);

  // node:test's own argument shapes: (name?, options?, fn?).
  function runnerOf(original, kind, skipped) {
    return function (...args) {
      let [name, options, fn] = args;
      if (typeof name === "function") [fn, options, name] = [name, undefined, undefined];
      else if (name !== null && typeof name === "object") [fn, options, name] = [options, name, undefined];
      else if (typeof options === "function") [fn, options] = [options, undefined];
      if (typeof fn !== "function") return original.apply(this, args);
      const title = typeof name === "string" && name !== "" ? name : fn.name || "<anonymous>";
      const path = [...(scope.getStore() ?? []), title];
      if (kind === "test") record(skipped || options?.skip ? "skip" : "reg", path);
      return original.call(this, title, options, kind === "test" ? testBody(fn, path) : suiteBody(fn, path));
    };
  }
  const wrapFamily = (original, kind) => {
    const wrapped = runnerOf(original, kind, false);
    for (const variant of ["skip", "todo", "only"])
      if (typeof original[variant] === "function")
        wrapped[variant] = runnerOf(original[variant], kind, variant === "skip");
    return wrapped;
  };

  const wrapped = wrapFamily(real, "test");
  for (const k of Object.keys(real)) if (!(k in wrapped)) wrapped[k] = real[k];
  wrapped.test = wrapped;
  for (const [k, kind] of [
    ["it", "test"],
    ["describe", "suite"],
    ["suite", "suite"],
  ])
    if (typeof real[k] === "function") wrapped[k] = wrapFamily(real[k], kind);

  // CommonJS: require("node:test") gets the wrapped module.
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === "node:test") return wrapped;
    return load.call(this, request, ...rest);
  };
  // ESM: `import ... from "node:test"` resolves to a module re-exporting the wrapped one.
  const names = Object.keys(wrapped).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
  const source = `import { ledgerNodeTest as t } from ${JSON.stringify(import.meta.url)};\nexport default t;\nexport const { ${names.join(", ")} } = t;\n`;
  register(new URL("./assertion-ledger-hooks.mjs", import.meta.url), {
    data: { target: `data:text/javascript;base64,${Buffer.from(source).toString("base64")}` },
  });
  return wrapped;
}
