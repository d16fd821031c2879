import { createHash } from "node:crypto";
import { z } from "zod";
import { ScopeBoundary } from "./task-artifact.js";

/** One file the seam consists of, with its sha256 when the contract was pinned (null: absent then). */
export const ContractSeamFile = z.object({
  path: z.string().min(1),
  sha256: z.string().nullable(),
});

/**
 * What an attempt is judged against, pinned at readiness in the lane's checkpointed state before any
 * coder runs (ADR 0018). verify, gate and commit use this copy, never the task or observation read
 * back from disk after a coder ran; a difference between the two is a tamper finding.
 */
export const Contract = z.object({
  task_id: z.string().min(1),
  task_artifact_revision: z.number().int().min(1),
  observation_artifact_revision: z.number().int().min(1),
  task_artifact_sha256: z.string().describe("sha256 of the task artifact's canonical JSON at that revision"),
  observation_artifact_sha256: z
    .string()
    .describe("sha256 of the observation artifact's canonical JSON at that revision"),
  base_commit: z.string().min(1),
  seam_command: z.string().min(1),
  seam_files: z.array(ContractSeamFile).describe("Sorted by path"),
  // Optional and absent when empty, so contracts pinned before it existed keep their hash.
  seam_files_unprotected: z
    .array(z.string())
    .optional()
    .describe(
      "Seam test code that could not be fingerprinted (a file whose imports could not be read, a data folder over the limit); each pass carries it as a caveat",
    ),
  // Optional and absent when empty, like seam_files_unprotected.
  seam_files_scope_named: z
    .array(z.string())
    .optional()
    .describe(
      "Test code and data the seam's verdict rests on (setup files, helpers, mocks, test data) that the task's scope names exactly, so not fingerprinted: the request is about them. A pass whose attempt changed one carries it as a caveat",
    ),
  // Optional and absent when empty, like seam_files_unprotected.
  test_config_imports: z
    .array(z.string())
    .optional()
    .describe(
      "Files base's test configuration loads besides the configuration files (a shared config a vitest.config.js imports, a file a tsconfig extends): the seam runs with base's copy of each the attempt changed (ADR 0074)",
    ),
  // Optional and absent when empty, like seam_files_unprotected.
  seam_computed_loaders: z
    .array(z.string())
    .optional()
    .describe(
      "The seam's files and the test code they load that load test files by a computed name (a require over readdirSync, import(path), a template or concatenated path, createRequire); while any exists, test code the attempt changed besides the seam's files makes the seam red",
    ),
  seam_tests: z
    .array(z.string())
    .describe(
      "Full-path identities of the seam's tests that failed by name on base (empty for a seam judged by exit code only)",
    ),
  expected_green_condition: z.string().nullable(),
  scope: ScopeBoundary.describe(
    "The task's scope boundary (allowed_paths is what the scope verifier enforces)",
  ),
  test_command: z.string().nullable().describe("The regression command; null when there is none"),
});
export type Contract = z.infer<typeof Contract>;

/** sha256 of the contract's canonical JSON (object keys sorted at every level), hex. */
export function contractSha256(contract: Contract): string {
  return canonicalSha256(contract);
}

/** sha256 of any value's canonical JSON, hex. */
export function canonicalSha256(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** JSON with object keys sorted at every level and undefined members dropped: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
