import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsSourceViews } from "./source-text.js";
import { isRegularFile, isTestPath, repoFile } from "./test-paths.js";

/** What a seam's test files load from the repository's test code, and what could not be read. */
export interface SeamHelpers {
  /** Repo-relative test files (helpers, fixtures) the seam's files load, sorted. */
  files: string[];
  /** Files whose imports could not be read (a syntax esbuild does not know); empty when all were. */
  unreadable: string[];
  /**
   * The seam's files and helpers that load modules by a computed name (`require(join(dir, f))` over
   * a `readdirSync`, `import(path)`, a template or concatenated path, `createRequire`), sorted: what
   * they load is decided when they run, so a test file the attempt adds can be among it (stop 31).
   */
  computedLoaders: string[];
}

const SCRIPT = /\.(?:[cm]?[jt]sx?)$/i;

/**
 * The test code the seam's files load, transitively: a shared `test/helpers.js`, a fixture module,
 * a `setup.ts` a test imports (what pytest loads is `pytestSeamFiles`' business). Fingerprinted
 * with the seam's files, so a coder cannot make the seam pass by editing a helper instead of the
 * code (ADR 0019, amendment 2). Only test paths count (`isTestPath`): a program module the tests
 * import is what the fix may change. The module graph is esbuild's (ESM, CommonJS, TypeScript,
 * JSX; the repository's tsconfig paths): it parses, never runs, the files; only test code is
 * walked on (not program modules, not node_modules); an import that does not resolve (a module the
 * fix is to create) ends that branch.
 */
export async function seamHelpers(seamFiles: readonly string[], cwd: string): Promise<SeamHelpers> {
  const found = new Set<string>();
  const scripts = seamFiles.filter((f) => SCRIPT.test(f) && isRegularFile(join(cwd, f)));
  const unreadable: string[] = [];
  const computed = new Set<string>();
  // One build per file: a file esbuild cannot parse costs only its own branch.
  for (const entry of scripts) {
    const graph = await modulesLoadedBy(entry, cwd);
    if (graph === null) unreadable.push(entry);
    for (const file of graph?.loaded ?? [])
      if (isTestPath(file) && !seamFiles.includes(file)) found.add(file);
    for (const file of graph?.computedLoaders ?? []) computed.add(file);
  }
  return { files: [...found].sort(), unreadable, computedLoaders: [...computed].sort() };
}

/**
 * esbuild's notes on a load it cannot follow (a non-literal `require(...)` or `import(...)`), which
 * it keeps at debug level unless told: raised to warnings so the build result carries them.
 */
const COMPUTED_LOAD_NOTES = [
  "unsupported-require-call",
  "unsupported-dynamic-import",
  "indirect-require",
] as const;
/**
 * Loads esbuild does not follow at all (review, stop 31; stop 32), matched on the code with its
 * comments and string literals taken out (`jsSourceViews`): a `createRequire` function, vitest's
 * `import.meta.glob`, `eval` and the `Function` constructor given source (a string run as code may
 * require anything), `require` reached through another object (`module.require`,
 * `process.mainModule`, `globalThis.require`, `const { require: load } = module`,
 * `module.constructor._load`), require's own methods (`require.call`, `.apply`, `.bind`, webpack's
 * `require.context`, `require.extensions` hooks), mocha's programmatic `addFile`,
 * `process.getBuiltinModule`, and edits of where bare names are looked up (`module.paths`,
 * `NODE_PATH`). The files examined are the base's, the user's code: a shape this
 * misses is only missed, never planted by the coder.
 */
const LOADS_UNSEEN_IN_CODE = new RegExp(
  [
    String.raw`\bcreateRequire\s*\(`,
    String.raw`\bimport\.meta\.glob(?:Eager)?\s*\(`,
    // (not an object key: `{ eval: false }`)
    String.raw`(?<![.\w$])eval\b(?!\s*:)`,
    String.raw`(?<![.\w$])Function\s*\(\s*[^)\s]`,
    String.raw`\b(?:module|mainModule|globalThis|global|self|window)\s*\.\s*require\b`,
    String.raw`\bmainModule\b`,
    String.raw`\bmodule\s*\.\s*constructor\b`,
    String.raw`\brequire\s*\.\s*(?:call|apply|bind|context|extensions)\b`,
    String.raw`\.\s*addFile\s*\(`,
    String.raw`\bgetBuiltinModule\b`,
    // Where bare names are looked up, changed as the code runs (the analogue of Python's sys.path).
    String.raw`\b(?:module|mainModule)\s*\.\s*paths\b|\bNODE_PATH\b|\b_initPaths\b`,
  ].join("|"),
);
/**
 * The same, where the string matters (on the text without comments): `require` looked up by a
 * string key, and a test runner's module loader (`jest.requireActual`, `vi.importActual`) given a
 * name that is not one plain literal.
 */
const LOADS_UNSEEN_WITH_STRINGS = new RegExp(
  [
    String.raw`\[\s*["'\x60]require["'\x60]\s*\]`,
    String.raw`\b(?:requireActual|requireMock|importActual|importMock)\s*\(\s*(?!(["'])[^"'\\\n]*\1\s*[,)])`,
  ].join("|"),
);

/** Whether a test file's text loads by a name esbuild cannot see (see LOADS_UNSEEN_IN_CODE). */
function loadsUnseen(text: string): boolean {
  const views = jsSourceViews(text);
  return (
    LOADS_UNSEEN_IN_CODE.test(views.codeOnly) ||
    LOADS_UNSEEN_WITH_STRINGS.test(views.withoutComments) ||
    requireDestructured(views.codeOnly)
  );
}

/**
 * `const { require: load } = module` (or `= process.mainModule`): the pattern is found first and its
 * braces' text asked for `require` after (review, stop 32: one regex doing both backtracked
 * quadratically over an object of many `require(...)` entries).
 */
function requireDestructured(code: string): boolean {
  for (const match of code.matchAll(/\{([^{}]*)\}\s*=\s*(?:module|process\s*\.\s*mainModule)\b/g))
    if (/\brequire\b/.test(match[1] ?? "")) return true;
  return false;
}

/**
 * Modules whose import makes a file a loader: node's own that load or run code by a name or text
 * given at run time (`Module._load`, `vm.runInThisContext`), and npm packages whose whole job is
 * requiring a folder's files (`require-all`, `require-dir`, …) or a module by a computed path.
 */
const LOADER_MODULES = new Set([
  "module",
  "node:module",
  "vm",
  "node:vm",
  "require-all",
  "require-dir",
  "require-directory",
  "requireindex",
  "require-glob",
  "bulk-require",
  "import-fresh",
  "import-cwd",
  "import-from",
  "jiti",
]);

/**
 * Every repository file `entry` loads, transitively (repo-relative), and the walked test files
 * among them that load by a computed name; null when a file could not be parsed. A computed load
 * shows as one of esbuild's notes, or (a template or concatenated path, which esbuild bundles as a
 * glob without asking the resolver) as an import path with a `*` in the metafile; a `createRequire`
 * call makes a function esbuild does not follow at all.
 */
export async function modulesLoadedBy(
  entry: string,
  cwd: string,
  /** Which repository files are walked on (their own loads read): test code unless told. */
  walks: (file: string) => boolean = isTestPath,
): Promise<{ loaded: string[]; computedLoaders: string[] } | null> {
  const { build } = await import("esbuild");
  const loaded = new Set<string>();
  const computedLoaders = new Set<string>();
  try {
    const result = await build({
      entryPoints: [join(cwd, entry)],
      absWorkingDir: cwd,
      bundle: true,
      write: false,
      outdir: join(cwd, ".devflow-seam-helpers-out"), // never written (write: false)
      platform: "node",
      // ESM output: a test file with top-level await (common in ESM tests) cannot be bundled as CommonJS.
      format: "esm",
      packages: "external",
      logLevel: "silent",
      logOverride: Object.fromEntries(COMPUTED_LOAD_NOTES.map((id) => [id, "warning" as const])),
      metafile: true,
      plugins: [
        {
          name: "devflow-seam-helpers",
          setup(b) {
            b.onResolve({ filter: /.*/ }, async (args) => {
              // The seam file itself is walked whatever its name (review, stop 31: a root `test.js`
              // or `run-tests.js` is no test path, was made external, and its loads went unread).
              if (args.pluginData === "devflow-resolving" || args.kind === "entry-point") return undefined;
              const resolved = await b.resolve(args.path, {
                kind: args.kind,
                resolveDir: args.resolveDir,
                importer: args.importer,
                pluginData: "devflow-resolving",
              });
              if (resolved.errors.length > 0 || resolved.external || !resolved.path)
                return { external: true };
              const rel = repoFile(cwd, resolved.path);
              if (rel === null) return { external: true };
              loaded.add(rel);
              // Only test code is walked on (a program module's imports are the fix's business,
              // and walking them would parse the whole program); data files are recorded, not parsed.
              return SCRIPT.test(resolved.path) && walks(rel) ? { path: resolved.path } : { external: true };
            });
          },
        },
      ],
    });
    for (const warning of result.warnings) {
      if (!(COMPUTED_LOAD_NOTES as readonly string[]).includes(warning.id ?? "")) continue;
      // `require(join(__dirname, "fixtures", "cases.json"))`: a computed path to data, not code.
      if (/\.json["'`]/.test(warning.location?.lineText ?? "")) continue;
      const file = warning.location ? repoFile(cwd, join(cwd, warning.location.file)) : null;
      if (file !== null) computedLoaders.add(file);
    }
    for (const [input, { imports }] of Object.entries(result.metafile?.inputs ?? {})) {
      const file = repoFile(cwd, join(cwd, input));
      if (file === null || (file !== entry && !walks(file))) continue;
      // A glob's matches are bundled without asking the resolver: they are loaded test code too.
      if (file !== entry) loaded.add(file);
      // A glob that can only match JSON loads data, not code (`./fixtures/${name}.json`).
      if (
        imports.some((i) => (i.path.includes("*") && !i.path.endsWith(".json")) || LOADER_MODULES.has(i.path))
      )
        computedLoaders.add(file);
      else if (loadsUnseen(readFileSync(join(cwd, file), "utf8"))) computedLoaders.add(file);
    }
  } catch {
    return null;
  }
  return { loaded: [...loaded], computedLoaders: [...computedLoaders] };
}
