// `npm run bench` (after `npm run build`): the benches that time devflow's code in their own
// process (orchestration, verification) compiled to plain JavaScript in dist-bench/, so they run
// under plain node like bin/devflow.js. Run under tsx, the bench process carried tsx's loader and
// its caches (~200 MB RSS against the bin's ~120-140 MB with the lane loaded), and every process
// devflow started cost more there than in the bin: fork copies the parent's page tables.
// Transpile only (no type check: `npm run typecheck` covers bench/); the output sits beside dist/
// so the benches' `../dist/src/...` imports resolve unchanged.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist-bench");
const FILES = ["built.ts", "preamble.ts", "process-counter.ts", "orchestration.ts", "verification.ts"];
const ts = createRequire(import.meta.url)("typescript");

mkdirSync(OUT, { recursive: true });
for (const file of FILES) {
  const source = readFileSync(join(ROOT, "bench", file), "utf8");
  const { outputText, diagnostics } = ts.transpileModule(source, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      verbatimModuleSyntax: true,
    },
  });
  if (diagnostics?.length) {
    for (const d of diagnostics)
      console.error(`bench/${file}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    process.exit(1);
  }
  writeFileSync(join(OUT, file.replace(/\.ts$/, ".js")), outputText);
}
console.log(`devflow bench build: dist-bench/ ready (${FILES.length} files)`);
