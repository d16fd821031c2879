import { z } from "zod";

/**
 * devflow's config file (the user's `~/.config/devflow/config.json` and a repository's
 * `devflow.config.json`), ADR 0047. Every object is closed: a misspelt key is an error naming the
 * file and the key, not a setting silently ignored. Which keys a repository's file may set is
 * src/config's business (repo-trust.ts), not the schema's: the shape is the same for both files.
 */

const Seconds = z.number().positive().describe("seconds, > 0");
const WholeAtLeast = (min: number) => z.number().int().min(min);
/** The NAME of an environment variable, never its value. */
const EnvVarName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be the NAME of an environment variable (e.g. OPENAI_API_KEY), never the key itself",
  );
/** One line, no angle brackets: it goes into a commit header. */
const IdentityPart = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^<>\n\r\0]+$/, "must be one line without < or >");

export const ConfigFile = z
  .strictObject({
    $schema: z.string().optional().describe("ignored; lets editors find this schema"),
    trust_repo_config: z
      .union([z.boolean(), z.array(z.string().min(1))])
      .optional()
      .describe(
        "user config only: true, or the repository roots whose devflow.config.json may also set model.base_url, model.api_key_env, a command: coder, commit.hooks and tests.seam_runs",
      ),
    model: z
      .strictObject({
        name: z.string().min(1).optional().describe("model for framing, observation, repair and the critic"),
        base_url: z
          .string()
          .regex(/^https?:\/\/[^\s/@]+(\/\S*)?$/, "must be an http(s) URL without credentials")
          .optional()
          .describe("OpenAI-compatible endpoint (OPENAI_BASE_URL)"),
        api_key_env: EnvVarName.optional().describe(
          "the variable devflow reads the model key from (default OPENAI_API_KEY)",
        ),
        timeout_seconds: Seconds.optional().describe("one HTTP request to the endpoint"),
        budget_seconds: Seconds.optional().describe("one model call, retries and waits included"),
        retries: WholeAtLeast(0).optional().describe("retries of 429/5xx/reset/stall per call"),
      })
      .optional(),
    coder: z
      .strictObject({
        backend: z
          .string()
          .min(1)
          .optional()
          .describe("junie, claude, codex, gemini, opencode, aider, builtin, command:<shell>"),
        model: z.string().min(1).optional().describe("model the coder backend uses, when it takes one"),
        timeout_seconds: WholeAtLeast(1)
          .optional()
          .describe("base coder timeout; escalation k runs (k + 1) ×"),
        max_escalations: WholeAtLeast(0).optional().describe("coder timeout escalations"),
      })
      .optional(),
    tests: z
      .strictObject({
        timeout_seconds: Seconds.optional().describe("each seam, regression and readiness run"),
        seam_runs: WholeAtLeast(1).optional().describe("times the seam is re-run per attempt"),
        seam_data_folder_limit: WholeAtLeast(0)
          .optional()
          .describe("files a test folder the seam's code names may hold and still be fingerprinted"),
      })
      .optional(),
    limits: z
      .strictObject({
        max_iterations: WholeAtLeast(1).optional().describe("judge attempts"),
        max_request_bytes: WholeAtLeast(1).optional().describe("largest request taken, UTF-8 bytes"),
      })
      .optional(),
    commit: z
      .strictObject({
        author_name: IdentityPart.optional().describe("author of devflow's commit (default devflow)"),
        author_email: IdentityPart.optional().describe("author email (default devflow@localhost)"),
        hooks: z
          .boolean()
          .optional()
          .describe(
            "run the user repository's pre-commit and commit-msg hooks as checks of the verified tree before devflow commits (ADR 0047)",
          ),
      })
      .optional(),
  })
  .describe("devflow config file (ADR 0047)");
export type ConfigFile = z.infer<typeof ConfigFile>;
