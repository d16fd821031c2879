import type { RunnerName } from "./test-reports/index.js";

/** What a canary file needs to know to be written in the seam file's own dialect. */
export interface CanarySourceInput {
  runner: RunnerName;
  /** The seam test file's base name, loaded first (`./slug.test.js`). */
  seamFileName: string;
  /** ESM (`import`) or CommonJS (`require`), like the seam file. */
  esm: boolean;
  /** `it` or `test`: the registrar the seam file calls, so a tamper on one of them is shared. */
  registrar: "it" | "test";
  title: string;
  /** A secret of this run that the canary's failure message carries. */
  messageNonce: string;
}

/**
 * The canary test file's text. It loads the seam test file first, so every module the seam loads
 * (the coder's code) is loaded in the same process and module registry and has run its side
 * effects; then it registers one test that must fail through the assertion library. It probes
 * many assertion functions: the test fails (with the last probe's error, which carries the
 * nonce) only if every probe threw; one probe that does not throw ends the test passing, which
 * devflow reads as "the assertion library was neutered".
 */
export function canarySource(input: CanarySourceInput): string {
  // pytest collects every test module into one process before running any test, so the seam's
  // modules are loaded whatever the order; the canary only has to fail through `assert`.
  // Plain, lint-clean Python within 79 columns: the suite's own style test may read every file of
  // the test folder, and a long line made it red on base (review, stop 42).
  if (input.runner === "pytest")
    return [
      "# devflow canary: written for one verification run, then removed.",
      "# It must FAIL. If it passes, code loaded into the run neutered",
      "# pytest's assertions or its report.",
      "",
      "",
      `def ${input.title}():`,
      `    message = ${JSON.stringify(`devflow seam canary ${input.messageNonce}`)}`,
      `    assert False, message + ": this assertion must fail"`,
      "",
    ].join("\n");
  const seam = JSON.stringify(`./${input.seamFileName}`);
  const title = JSON.stringify(input.title);
  const message = JSON.stringify(`devflow seam canary ${input.messageNonce}: this assertion must fail`);
  const nonce = JSON.stringify(`devflow seam canary ${input.messageNonce}`);
  const header = [
    "// devflow seam canary: written next to the seam test for one verification run, then removed.",
    "// It must FAIL. If it passes, code loaded by the seam neutered the assertions or the reporter.",
  ];
  const load = (what: string, from: string): string =>
    input.esm
      ? `import ${what} from ${JSON.stringify(from)};`
      : `const ${what} = require(${JSON.stringify(from)});`;
  const loadSeam = input.esm ? `import ${seam};` : `require(${seam});`;

  if (input.runner === "jest" || input.runner === "vitest") {
    const imports =
      input.runner === "vitest"
        ? [
            input.esm
              ? `import { expect, ${input.registrar} } from "vitest";`
              : `const { expect, ${input.registrar} } = require("vitest");`,
          ]
        : [];
    return [
      ...header,
      loadSeam,
      ...imports,
      `${input.registrar}(${title}, () => {`,
      "  const probes = [",
      "    () => expect(1).toBe(2),",
      "    () => expect({ a: 1 }).toEqual({ a: 2 }),",
      "    () => expect({ a: 1 }).toStrictEqual({ a: 2 }),",
      "    () => expect(false).toBeTruthy(),",
      "    () => expect(true).toBeFalsy(),",
      "    () => expect(1).not.toBe(1),",
      "    () => expect(undefined).toBeDefined(),",
      '    () => expect("a").toMatch(/b/),',
      "    () => expect([1]).toContain(2),",
      "    () => expect(() => {}).toThrow(),",
      `    () => expect(${nonce}).toBe(${message}),`,
      "  ];",
      ...probeLoop("  "),
      "});",
      "",
    ].join("\n");
  }

  const imports = [load("__devflowAssert", "node:assert")];
  if (input.runner === "node-test")
    imports.push(
      input.esm
        ? `import { ${input.registrar} } from "node:test";`
        : `const { ${input.registrar} } = require("node:test");`,
    );
  if (input.runner === "tape") imports.push(load("__devflowTape", "tape"));
  const assertProbes = [
    "  const assert = __devflowAssert;",
    `  const message = ${message};`,
    "  const probes = [",
    "    () => assert(false, message),",
    "    () => assert.ok(false, message),",
    "    () => assert.equal(1, 2, message),",
    "    () => assert.notEqual(1, 1, message),",
    "    () => assert.deepEqual({ a: 1 }, { a: 2 }, message),",
    "    () => assert.deepStrictEqual({ a: 1 }, { a: 2 }, message),",
    "    () => assert.notStrictEqual(1, 1, message),",
    '    () => assert.match("a", /b/, message),',
    "    () => assert.throws(() => {}, Error, message),",
    "    () => assert.fail(message),",
    "    () => assert.strict(false, message),",
    "    () => assert.strict.ok(false, message),",
    "    () => assert.strict.equal(1, 2, message),",
    "    () => assert.strict.deepEqual({ a: 1 }, { a: 2 }, message),",
    `    () => assert.strictEqual(${nonce}, message, message),`,
    "  ];",
  ];
  if (input.runner === "tape") {
    // tape's own assertions record failures instead of throwing: node:assert is probed first,
    // then the test fails through tape's `t.equal` (a neutered tape passes it).
    return [
      ...header,
      loadSeam,
      ...imports,
      `__devflowTape(${title}, (t) => {`,
      ...assertProbes,
      "  for (const probe of probes) {",
      "    try {",
      "      probe();",
      "    } catch {",
      "      continue;",
      "    }",
      '    t.pass("an assertion that cannot fail");',
      "    t.end();",
      "    return;",
      "  }",
      `  t.equal(${nonce}, message, message);`,
      "  t.end();",
      "});",
      "",
    ].join("\n");
  }
  // mocha: `it`/`test` are globals of its interface; node:test: imported above.
  return [
    ...header,
    loadSeam,
    ...imports,
    `${input.registrar}(${title}, () => {`,
    ...assertProbes,
    ...probeLoop("  "),
    "});",
    "",
  ].join("\n");
}

/** Run every probe; rethrow the last error only when all of them threw. */
function probeLoop(indent: string): string[] {
  return [
    "let last;",
    "for (const probe of probes) {",
    "  try {",
    "    probe();",
    "  } catch (error) {",
    "    last = error;",
    "    continue;",
    "  }",
    "  return; // an assertion that cannot fail: the canary passes and devflow fails the seam",
    "}",
    "throw last;",
  ].map((line) => indent + line);
}
