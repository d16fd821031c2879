import { realpath } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import {
  type LintFinding,
  type TicketFrontmatter,
  TicketFrontmatter as TicketFrontmatterSchema,
  type TicketKind,
} from "../artifacts/schemas/ticket.js";
import { messageOf } from "../errors/index.js";
import { assertGitRepo, isGitUrl, redactUrl } from "../workspace/index.js";
import { splitFrontmatter } from "./frontmatter.js";
import { parseNotBefore } from "./not-before.js";
import { cdLines, type FencedBlock, verificationBlocks } from "./verification-blocks.js";

/**
 * Plan-lint (issue 12): deterministic checks of a ticket before any agent or model call. A ticket
 * with findings goes straight to failed/ with each finding named in its record; nothing here calls
 * a model or changes the ticket file. Rules, in order: size cap (checked before parsing), a
 * frontmatter that exists and is YAML, the schema (unknown keys named one by one), not_before,
 * labels against the data root's known labels, the repository, the Verification fences.
 */
export interface LintContext {
  /** Absolute path the ticket was submitted from: a relative `repo:` is resolved against its folder. */
  source: string;
  knownLabels: readonly string[];
  maxTicketBytes: number;
}

export interface LintedTicket {
  findings: LintFinding[];
  frontmatter: TicketFrontmatter | null;
  kind: TicketKind | null;
  /** Normalised UTC instant, or null. */
  notBefore: string | null;
  /** As written (a URL with its credentials redacted). */
  repo: string | null;
  /** Canonical real path of the repository's top level, or the redacted URL: one key per repository. */
  repoKey: string | null;
  verification: FencedBlock[];
}

export async function planLint(bytes: Uint8Array, ctx: LintContext): Promise<LintedTicket> {
  const result: LintedTicket = {
    findings: [],
    frontmatter: null,
    kind: null,
    notBefore: null,
    repo: null,
    repoKey: null,
    verification: [],
  };
  const fail = (rule: LintFinding["rule"], message: string) => result.findings.push({ rule, message });
  if (bytes.byteLength > ctx.maxTicketBytes) {
    fail(
      "ticket_too_large",
      `the ticket is larger than the cap of ${ctx.maxTicketBytes} bytes (max_ticket_bytes in the data root's config.json)`,
    );
    return result;
  }
  const split = splitFrontmatter(Buffer.from(bytes).toString("utf8"));
  if (!split) {
    fail(
      "frontmatter_missing",
      "no YAML frontmatter: start the file with a line `---`, the keys, then `---`",
    );
    return result;
  }
  const document = parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    fail(
      "frontmatter_unparseable",
      `the frontmatter is not valid YAML: ${document.errors[0]?.message.split("\n")[0]}`,
    );
    return result;
  }
  const raw: unknown = document.toJS() ?? {};
  const parsed = TicketFrontmatterSchema.safeParse(raw);
  let ticket: TicketFrontmatter;
  if (parsed.success) ticket = parsed.data;
  else {
    for (const issue of parsed.error.issues) {
      if (issue.code === "unrecognized_keys") {
        const where = issue.path.length > 0 ? `${issue.path.join(".")}.` : "";
        for (const key of issue.keys)
          fail(
            "unknown_key",
            `unknown key ${where}${key} (devflow schema prints the keys a ticket may have)`,
          );
      } else {
        fail("invalid_field", `${issue.path.join(".") || "frontmatter"}: ${issue.message}`);
      }
    }
    // Only unknown top-level keys: the rest is still linted, so one submit names every error.
    const loose = z.object(TicketFrontmatterSchema.shape).safeParse(raw);
    if (!loose.success) return result;
    ticket = loose.data;
  }
  result.frontmatter = ticket;
  if (ticket.audit && ticket.investigate)
    fail("invalid_field", "audit and investigate: a ticket selects one of them, not both");
  if ((ticket.audit || ticket.investigate) && !ticket.repo)
    fail("invalid_field", `${ticket.audit ? "audit" : "investigate"} needs repo: the repository to read`);
  result.kind = ticket.audit
    ? "audit"
    : ticket.investigate
      ? "investigate"
      : ticket.repo
        ? "change"
        : "question";

  if (ticket.not_before !== undefined) {
    result.notBefore = parseNotBefore(ticket.not_before);
    if (result.notBefore === null)
      fail(
        "not_before_unparseable",
        `not_before ${JSON.stringify(ticket.not_before)} is not a UTC instant (write e.g. 2026-12-01T18:00:00Z)`,
      );
  }
  const known = new Set(ctx.knownLabels);
  for (const label of ticket.labels ?? []) {
    if (!known.has(label))
      fail(
        "unknown_label",
        `unknown label ${JSON.stringify(label)} (known: ${ctx.knownLabels.length > 0 ? ctx.knownLabels.join(", ") : "none"}; add it to labels in the data root's config.json)`,
      );
  }
  if (ticket.repo !== undefined) await lintRepo(ticket.repo, ctx, result, fail);

  result.verification = verificationBlocks(split.body, split.bodyLine);
  for (const block of result.verification) {
    if (block.info !== "bash" || !block.closed) {
      const what = block.closed ? `a \`\`\`${block.info || "(bare)"} fence` : "an unclosed fence";
      fail(
        "verification_fence_not_bash",
        `line ${block.line}: ${what} in ## Verification; verification blocks are closed \`\`\`bash fences (nothing else is run)`,
      );
      continue;
    }
    for (const offset of cdLines(block.code))
      fail(
        "cd_in_verification",
        `line ${block.line + 1 + offset}: cd in ## Verification; verifiers run in the verification checkout, use paths relative to it`,
      );
  }
  return result;
}

async function lintRepo(
  repo: string,
  ctx: LintContext,
  result: LintedTicket,
  fail: (rule: LintFinding["rule"], message: string) => void,
): Promise<void> {
  if (isGitUrl(repo)) {
    // Cloned by the worker; the URL (credentials redacted) is its own key.
    result.repo = redactUrl(repo.trim());
    result.repoKey = result.repo;
    return;
  }
  result.repo = repo;
  const path = resolve(dirname(ctx.source), repo);
  try {
    const top = await assertGitRepo(path);
    // One key per repository however it is spelt (symlinks, `..`): junco #113.
    result.repoKey = await realpath(top);
  } catch (error) {
    fail("repo_not_git", `repo ${repo}: ${messageOf(error)}`);
  }
}
