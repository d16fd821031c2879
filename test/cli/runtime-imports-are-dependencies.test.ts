/**
 * Regression: `tsx` sat in `dependencies` though nothing the installed `devflow` runs imports it
 * (the bin runs the tsc build, ADR 0042; tsx only runs the sources in development), so every global
 * install pulled esbuild's native binary for nothing. The global-install test could not see it: its
 * package links this checkout's node_modules, dev dependencies included. Fix: tsx moved to
 * devDependencies, and this test parses every module the package runs (bin/ and dist/src, with
 * TypeScript's own import scanner, static and dynamic imports) and holds `dependencies` to exactly
 * what they import: a missing one breaks a global install, an unused one only weighs it down.
 * Mutation: tsx back in `dependencies` → red ("imported by nothing"); `picocolors` moved to
 * devDependencies → red ("not in dependencies").
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

/** Dependencies no shipped module imports by name, each with why the package still needs it. */
const NEEDED_WITHOUT_AN_IMPORT: Record<string, string> = {
  // The SQLite checkpointer loads it; pinned here to 12 because 13 needs Node 22 (it segfaults on 20).
  "better-sqlite3": "native addon behind @langchain/langgraph-checkpoint-sqlite, pinned to a Node 20 release",
};

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? null);
}

/** Package name → one module that imports it, over every .js/.mjs/.cjs under `dir`. */
function importsUnder(dir: string, into: Map<string, string>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) importsUnder(path, into);
    else if (/\.[cm]?js$/.test(entry.name)) {
      const scanned = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
      for (const imported of scanned.importedFiles) {
        const name = packageOf(imported.fileName);
        if (name !== null && !into.has(name)) into.set(name, path.slice(PACKAGE_ROOT.length + 1));
      }
    }
  }
}

describe("the installed package's dependencies are what its modules import", () => {
  const imported = new Map<string, string>();
  importsUnder(join(PACKAGE_ROOT, "bin"), imported);
  importsUnder(join(PACKAGE_ROOT, "dist", "src"), imported);
  const builtins = new Set(["node"]);

  it("every package a shipped module imports is a run-time dependency", () => {
    const missing = [...imported].filter(([name]) => !builtins.has(name) && !(name in manifest.dependencies));
    expect(missing.map(([name, by]) => `${name} (imported by ${by}) is not in dependencies`)).toEqual([]);
    // The scan itself works: the CLI's own framework is found.
    expect(imported.get("commander")).toMatch(/^dist\/src\/cli\//);
  });

  it("every run-time dependency is imported by a shipped module or says why it is needed", () => {
    const unused = Object.keys(manifest.dependencies).filter(
      (name) => !imported.has(name) && !(name in NEEDED_WITHOUT_AN_IMPORT),
    );
    expect(unused.map((name) => `${name} is imported by nothing the package runs`)).toEqual([]);
  });
});
