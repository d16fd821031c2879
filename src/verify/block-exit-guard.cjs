// devflow's guard of a Verification block's node programs (ADR 0063): a `--require` preload that
// verify adds to NODE_OPTIONS for block runs only (DEVFLOW_BLOCK_GUARD set), loaded before any code
// of the checkout. A block is judged by its exit code, and the code it loads (the attempt's) runs in
// its process: ending that process early with exit 0 skips the block's checks (issue 9 class 4).
// The guard refuses that. When the program is ended
//   - by process.exit / process.reallyExit called while a file the attempt changed is on the stack
//     (the entry script itself excepted: a block running the attempt's own program trusts it), or
//     with no program code on the stack at all (`setTimeout(process.exit)`, node ending a top-level
//     await that never settled after the code set process.exitCode = 0), or
//   - with exit code 0 after an uncaught exception (a handler swallowed it: the rest of the entry
//     never ran),
// it writes one `devflow-block-guard: tamper: ...` line to stderr and exits with GUARD_EXIT_CODE
// instead, so the block fails whatever the script does next, and verify reports a tamper.
// process.exit, process.reallyExit and process.emit are pinned (non-configurable accessors) so code
// under test can neither neuter the block's own `process.exit(1)` nor hide the exit from the guard;
// every primitive the guard uses is taken before that code loads. What it cannot see (code that
// reads or writes the process's memory natively, a native addon calling exit(2), a write of
// process.exitCode, which node 20 makes non-configurable) is ADR 0063's residual.
"use strict";

const GUARD_ENV = "DEVFLOW_BLOCK_GUARD";
const GUARD_EXIT_CODE = 86;
const raw = process.env[GUARD_ENV];

if (raw !== undefined && require("node:worker_threads").isMainThread) install(raw);

function install(config) {
  const fs = require("node:fs");
  const { root, changed } = JSON.parse(config);
  const apply = Reflect.apply;
  const call = (fn, self, ...args) => apply(fn, self, args);
  const startsWith = String.prototype.startsWith;
  const slice = String.prototype.slice;
  const decode = decodeURIComponent;
  const writeSync = fs.writeSync;
  const captureStackTrace = Error.captureStackTrace;
  const realExit = process.exit;
  const realReallyExit = process.reallyExit;
  const realEmit = process.emit;
  const self = __filename;
  const realRoot = fs.realpathSync(root);
  // Paths as the stack names them (real paths); a null-prototype object, so no Set method to poison.
  const changedFiles = Object.create(null);
  // "*": too many to list (block-guard.ts); every file of the repository but its dependencies.
  const everyFile = changed === "*";
  if (!everyFile) for (const path of changed) changedFiles[`${realRoot}/${path}`] = true;
  const includes = String.prototype.includes;
  const indexOf = String.prototype.indexOf;
  const limitless = Number.POSITIVE_INFINITY;
  const inRepo = (file) => call(startsWith, file, `${realRoot}/`) && !call(includes, file, "/node_modules/");
  let entry = null;
  try {
    if (process.argv[1]) entry = fs.realpathSync(process.argv[1]);
  } catch {}
  // The CallSite methods, taken now: code under test could reach their prototype later.
  const site = callSites()[0];
  const proto = site ? Object.getPrototypeOf(site) : null;
  const getFileName = proto?.getFileName;
  let uncaught = null;

  function callSites() {
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    const holder = {};
    const ours = (_e, sites) => sites;
    try {
      // The whole stack: with a limit, code under test could bury its own frame under a recursion
      // of frames that are not (block-guard-sees-no-changed-frame-under-a-deep-recursion).
      Error.stackTraceLimit = limitless;
      Error.prepareStackTrace = ours;
      // An accessor of the code under test's could ignore the assignment and serve a made-up stack.
      if (Error.prepareStackTrace !== ours || Error.stackTraceLimit !== limitless) return null;
      call(captureStackTrace, Error, holder, callSites);
      return holder.stack;
    } finally {
      Error.stackTraceLimit = limit;
      Error.prepareStackTrace = prepare;
    }
  }

  /** True when no program code is on the stack: node itself is calling. */
  function nodeIsCalling() {
    try {
      const sites = callSites();
      if (!Array.isArray(sites)) return false;
      for (let i = 0; i < sites.length; i++) {
        const file = call(getFileName, sites[i]);
        if (typeof file === "string" && !call(startsWith, file, "node:") && file !== self) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** Why this exit is the attempt's code ending the program, or null. */
  function endedByTheAttempt() {
    // Fail closed: a stack that cannot be read is a stack that was tampered with.
    try {
      const sites = callSites();
      if (!Array.isArray(sites))
        return "ended while the stack could not be read (Error.prepareStackTrace or Error.stackTraceLimit taken over)";
      let program = false;
      for (let i = 0; i < sites.length; i++) {
        let file = call(getFileName, sites[i]);
        if (typeof file !== "string" || call(startsWith, file, "node:") || file === self) continue;
        if (call(startsWith, file, "file://")) file = decode(call(slice, file, 7, urlEnd(file)));
        program = true;
        // A frame with no file on disk (a data: URL module, vm's evalmachine): code the attempt's
        // can make, so never the unchanged program code that would let the exit through.
        if (!call(startsWith, file, "/") && !namesTheInlineEntry(file))
          return `ended by ${call(slice, file, 0, 60)}, code with no file of its own (a data: URL, vm) the attempt's code can make`;
        if (file !== entry && (everyFile ? inRepo(file) : changedFiles[file] === true))
          return `ended by ${file}, a file the attempt changed`;
      }
      return program
        ? null
        : "ended with no program code on the stack (a callback handed to node, or a top-level await that never settled)";
    } catch {
      return "ended while the stack could not be read";
    }
  }

  /** Where a file URL's path ends: `import("./m.js?x")` loads the changed m.js again, as m.js. */
  function urlEnd(url) {
    let end = url.length;
    const query = call(indexOf, url, "?");
    const fragment = call(indexOf, url, "#");
    if (query !== -1 && query < end) end = query;
    if (fragment !== -1 && fragment < end) end = fragment;
    return end;
  }
  /** `node -e` and piped CommonJS entries: the block's inline program, which names no file. */
  function namesTheInlineEntry(file) {
    return file === "[eval]" || file === "[eval]-wrapper" || file === "[stdin]" || file === "[stdin]-wrapper";
  }

  function refuse(why) {
    try {
      writeSync(
        2,
        `\ndevflow-block-guard: tamper: the block's node program (pid ${process.pid}) was ${why}; its checks did not all run (ADR 0063)\n`,
      );
    } catch {}
    call(realReallyExit, process, GUARD_EXIT_CODE);
  }

  // An ESM entry still evaluating: node adds its unsettled-top-level-await listener to 'exit' when
  // it starts the entry and removes it when the entry settled (both with no program code on the
  // stack). Tracked here, not read from the listeners, which code under test can remove; the
  // listener only sets exit code 13 if none was set, so code that sets process.exitCode = 0 and
  // never settles its own top-level await would end a block that awaits it with exit 0.
  let entryListener = null;
  let entryPending = false;
  function listenerAdded(event, listener) {
    if (
      event === "exit" &&
      typeof listener === "function" &&
      listener.name === "handleProcessExit" &&
      nodeIsCalling()
    ) {
      entryListener = listener;
      entryPending = true;
    }
  }
  function listenerRemoved(event, listener) {
    if (event === "exit" && listener === entryListener && nodeIsCalling()) entryPending = false;
  }

  function check(code) {
    const why = endedByTheAttempt();
    if (why !== null) refuse(why);
    const final = code === undefined ? process.exitCode : code;
    if (uncaught !== null && (final === undefined || final === null || final === 0 || final === "0"))
      refuse(`about to exit 0 after an uncaught ${uncaught} a handler swallowed`);
    // Asked for by the program's own code (the entry's `process.exit(0)` at its end): not the
    // natural end of an entry that never finished.
    exiting = true;
  }
  let exiting = false;

  function exit(code) {
    check(code);
    return call(realExit, process, code);
  }
  function reallyExit(code) {
    check(code);
    return call(realReallyExit, process, code);
  }
  let emit = realEmit;
  let inside = false;
  function guardedEmit(...args) {
    // Rest parameters and Reflect.apply: no array iterator the code under test could replace.
    const event = args[0];
    const origin = args[2];
    if (event === "uncaughtExceptionMonitor")
      uncaught = origin === "unhandledRejection" ? "rejection" : "exception";
    // The natural end (the event loop drained), or an exit the guard let through: exit 0 only if
    // no exception was swallowed and the entry finished (or the program itself asked to exit).
    if (event === "exit" && (process.exitCode === undefined || process.exitCode === 0)) {
      if (uncaught !== null) refuse(`about to exit 0 after an uncaught ${uncaught} a handler swallowed`);
      if (entryPending && !exiting)
        refuse(
          "about to exit 0 while its entry module never finished evaluating (a top-level await that never settled)",
        );
    }
    // A wrapper that calls the process.emit it read before (signal-exit) reaches here again: node's.
    if (inside) return apply(realEmit, this, args);
    inside = true;
    try {
      return apply(emit, this, args);
    } finally {
      inside = false;
    }
  }
  const pin = (name, value) =>
    Object.defineProperty(process, name, {
      enumerable: false,
      configurable: false,
      get: () => value,
      set() {
        throw new TypeError(`devflow: process.${name} is pinned in a Verification block's run (ADR 0063)`);
      },
    });
  // Node adds and removes its entry listener through these (looked up on process each time).
  const proxy = (name, original, observe) =>
    Object.defineProperty(process, name, {
      enumerable: false,
      configurable: false,
      get: () =>
        function (...args) {
          observe(args[0], args[1]);
          return apply(original, this, args);
        },
      set() {
        throw new TypeError(`devflow: process.${name} is pinned in a Verification block's run (ADR 0063)`);
      },
    });
  proxy("on", process.on, listenerAdded);
  proxy("addListener", process.addListener, listenerAdded);
  proxy("off", process.off, listenerRemoved);
  proxy("removeListener", process.removeListener, listenerRemoved);
  pin("exit", exit);
  pin("reallyExit", reallyExit);
  // Replaceable (signal-exit and others wrap process.emit), but always through the guard.
  Object.defineProperty(process, "emit", {
    enumerable: false,
    configurable: false,
    get: () => guardedEmit,
    set(value) {
      emit = value === guardedEmit ? realEmit : value;
    },
  });
}
