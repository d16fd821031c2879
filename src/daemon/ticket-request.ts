import { readFile } from "node:fs/promises";
import { parseDocument } from "yaml";
import { TicketFrontmatter, type TicketKind } from "../artifacts/schemas/ticket.js";
import { DevflowError } from "../errors/index.js";
import { splitFrontmatter } from "./frontmatter.js";
import { type FencedBlock, verificationBlocks } from "./verification-blocks.js";

/** What the worker runs, read from a claimed ticket's bytes (the ticket file itself is only read). */
export interface TicketRequest {
  frontmatter: TicketFrontmatter;
  kind: TicketKind;
  /** The body without its `## Verification` sections: what the lane is asked to do. */
  request: string;
  verification: FencedBlock[];
}

/** Reads and parses a claimed ticket again (plan-lint passed at submit; a ticket edited since is refused). */
export async function readTicketRequest(ticketPath: string): Promise<TicketRequest> {
  const text = await readFile(ticketPath, "utf8");
  const split = splitFrontmatter(text);
  const document = split ? parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false }) : null;
  const parsed =
    document && document.errors.length === 0 ? TicketFrontmatter.safeParse(document.toJS()) : null;
  if (!split || !parsed?.success)
    throw new DevflowError(
      "TICKET_REJECTED",
      `the claimed ticket ${ticketPath} no longer parses as a ticket`,
    );
  const frontmatter = parsed.data;
  return {
    frontmatter,
    kind: kindOf(frontmatter),
    request: withoutVerification(split.body).trim(),
    verification: verificationBlocks(split.body, split.bodyLine),
  };
}

/** The flavour a ticket selects (issue 12): audit or investigate when set, else a repo means change, else Q&A. */
export function kindOf(frontmatter: TicketFrontmatter): TicketKind {
  if (frontmatter.audit) return "audit";
  if (frontmatter.investigate) return "investigate";
  return frontmatter.repo ? "change" : "question";
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** `body` minus every `## Verification` section (same heading rule as verification-blocks.ts). */
export function withoutVerification(body: string): string {
  const kept: string[] = [];
  let inSection = false;
  let fence: string | null = null;
  for (const line of body.split("\n")) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === null && !marker) {
      const heading = HEADING.exec(line);
      if (heading?.[1] && heading[1].length <= 2)
        inSection = heading[1].length === 2 && /^verification$/i.test(heading[2] ?? "");
    } else if (fence === null && marker) fence = marker;
    else if (
      fence !== null &&
      marker &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.trim() === marker
    )
      fence = null;
    if (!inSection) kept.push(line);
  }
  return kept.join("\n");
}
