export {
  buildCriticPrompt,
  CRITIC_LIMITS,
  type CriticPrompt,
  type CriticPromptInput,
  naivePromptBytes,
} from "../agents/critic/critic-prompt.js";
export { CriterionVerdict, CriticVerdict } from "../agents/critic/critic-verdict.js";
export { budgetDiff, splitDiff } from "../agents/critic/diff-budget.js";
export { checkoutRunMark, checkoutUntouchedSince } from "./checkout-run-ledger.js";
export {
  type CompletionGateOptions,
  completionGate,
  EXIT_CODE_ONLY_CAVEAT,
  EXTRA_VERIFIERS_EXIT_CODE_CAVEAT,
  NO_CANARY_CAVEAT,
} from "./completion-gate.js";
export {
  type CriticVerifierInput,
  type JudgedCriterion,
  matchCriteria,
  runCriticVerifier,
} from "./critic.js";
export { criticNotAsked, ENVELOPE_EXCERPT_BYTES } from "./envelope.js";
export { expectedFailureMarkers, type MarkedSourceChange } from "./expected-failure-markers.js";
export { type ExtraVerifiersInput, runExtraVerifiers } from "./extra-verifiers.js";
export { caveatLines, commitBody, passedVerifiers, verdictLine } from "./gate-verdict-text.js";
export { pytestSeamFiles, pythonComputedLoaders } from "./pytest-setup.js";
export { PYTHON_MODULE_FILE } from "./python-outside-loads.js";
export { pythonShadowFindings } from "./python-shadows.js";
export {
  type BaselineInput,
  NO_TEST_COMMAND_SUMMARY,
  type RegressionBaseline,
  type RegressionVerifierInput,
  runRegressionVerifier,
  suiteConfigurationFiles,
  takeRegressionBaseline,
  withBaseTestConfig,
} from "./regression.js";
export {
  type InvocationResolution,
  RunnerInvocation,
  resolveInvocation,
} from "./report-run.js";
export { runScopeVerifier, type ScopeVerifierInput } from "./scope.js";
export {
  checkSeamRedOnBase,
  runSeamVerifier,
  type Seam,
  type SeamBaseCheck,
  type SeamBaseCheckInput,
  type SeamVerifierInput,
} from "./seam.js";
export {
  runnerSetupFiles,
  SEAM_DATA_FOLDER_LIMIT,
  type SeamDataFiles,
  seamDataFiles,
} from "./seam-data-files.js";
export { type SeamHelpers, seamHelpers } from "./seam-helpers.js";
export {
  hashSeamFiles,
  runSeamIntegrityVerifier,
  type SeamFileHashes,
  type SeamIntegrityInput,
} from "./seam-integrity.js";
export { mockFilesOf, readsMocks } from "./seam-shared-process.js";
export { type DetectedTestCommand, detectTestCommand } from "./test-command.js";
export { configuresTests, testConfigImports } from "./test-config-files.js";
export { TestReport } from "./test-reports/index.js";
export { parseTestResults, type TestOutcome, type TestResults } from "./test-results.js";
