// Import boundaries of devflow (ADR 0015), checked by `npm run lint:deps` as part of `npm test`.
// Paths are relative to the package root. Test files (`*.test.ts`) may import test helpers
// wherever they live; everything else follows the rules below.
const TEST_FILE = "\\.test\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "src-stays-below-the-suite",
      comment:
        "src/ is the product: it never imports the scenario suite (scenarios/, evals/, playground/) or test/. " +
        "The playground command loads playground/command.ts at run time instead (ADR 0015).",
      severity: "error",
      from: { path: "^src/", pathNot: TEST_FILE },
      to: { path: "^(scenarios|evals|playground|test)/" },
    },
    {
      name: "suite-uses-the-public-entry",
      comment: "scenarios/, evals/ and playground/ reach src/ only through src/index.ts.",
      severity: "error",
      from: { path: "^(scenarios|evals|playground)/" },
      to: { path: "^src/", pathNot: "^src/index\\.ts$" },
    },
    {
      name: "artifacts-are-a-leaf",
      comment: "src/artifacts (schemas and the store) imports nothing of ours but src/errors and src/util.",
      severity: "error",
      from: { path: "^src/artifacts/", pathNot: TEST_FILE },
      to: { path: "^src/", pathNot: "^src/(artifacts|errors|util)/" },
    },
    {
      name: "errors-are-a-leaf",
      comment: "src/errors (DevflowError) is used by everything, so it imports nothing of ours but src/util.",
      severity: "error",
      from: { path: "^src/errors/", pathNot: TEST_FILE },
      to: { path: "^src/", pathNot: "^src/(errors|util)/" },
    },
    {
      name: "home-below-workspace",
      comment:
        "src/home owns .devflow/ for everyone (ADR 0010): it imports only artifacts, errors and util, " +
        "so workspace, tools and lanes can all ask it.",
      severity: "error",
      from: { path: "^src/home/", pathNot: TEST_FILE },
      to: { path: "^src/", pathNot: "^src/(home|artifacts|errors|util)/" },
    },
    {
      name: "agents-below-lanes-and-cli",
      comment:
        "Agents are used by lanes, verifiers, coders and the CLI, never the other way round " +
        "(the critic verifier in src/verify calls the critic agent, ADR 0014).",
      severity: "error",
      from: { path: "^src/agents/", pathNot: TEST_FILE },
      to: { path: "^src/(lanes|cli|chat|verify|coders|home)/" },
    },
    {
      name: "verify-below-lanes",
      comment:
        "Verifiers are run by the iterate lane; they never reach back into lanes, the chat or the CLI.",
      severity: "error",
      from: { path: "^src/verify/", pathNot: TEST_FILE },
      to: { path: "^src/(lanes|cli|chat)/" },
    },
    {
      name: "lanes-below-cli",
      comment: "Lanes are driven by the CLI and the chat; they never import the CLI.",
      severity: "error",
      from: { path: "^src/lanes/", pathNot: TEST_FILE },
      to: { path: "^src/cli/" },
    },
    {
      name: "daemon-above-lanes",
      comment:
        "src/daemon (the ticket queue and, later, its worker; ADR 0051) runs lanes on tickets: it may import " +
        "lanes, home, workspace, process, artifacts, errors and util, never the CLI, the chat or agents directly.",
      severity: "error",
      from: { path: "^src/daemon/", pathNot: TEST_FILE },
      to: { path: "^src/", pathNot: "^src/(daemon|lanes|home|workspace|process|artifacts|errors|util)/" },
    },
    {
      name: "only-the-cli-drives-the-daemon",
      comment: "Nothing of the product imports src/daemon but src/cli (its commands); tests may.",
      severity: "error",
      from: { path: "^src/", pathNot: `^src/(daemon|cli)/|${TEST_FILE}` },
      to: { path: "^src/daemon/" },
    },
    {
      name: "no-circular",
      comment: "No import circles, type-only imports included (tsPreCompilationDeps).",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Sample projects the scenarios copy into temp repos: not part of devflow's import graph.
    exclude: { path: "^scenarios/(fixtures|coders|cassettes)/|^test/stubs/" },
    // Type-only imports count: a type circle is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
