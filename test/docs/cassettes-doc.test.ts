// Bug pinned (issue 11, "Cassettes"): the README's cassette example had "…" placeholders and no
// router/insight/neither shapes, so a cassette could not be written from it. Fix: docs/cassettes.md
// has one complete cassette per role; this test parses every example out of the markdown and checks
// each with the same code as `devflow cassette check`, and requires one per role, so the docs
// cannot rot when a schema or a tool changes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkCassette } from "../../src/agents/check-cassette.js";
import { parseCassette } from "../../src/models/cassette.js";
import { ROLES } from "../../src/models/contract.js";
import { PACKAGE_ROOT } from "../../src/util/paths.js";

const DOC = join(PACKAGE_ROOT, "docs", "cassettes.md");

/** `### \`<role>\`` followed by a ```json block: role → parsed JSON. */
function examples(markdown: string): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const match of markdown.matchAll(/^### `([a-z]+)`\n[\s\S]*?```json\n([\s\S]*?)\n```/gm)) {
    const [, role = "", body = ""] = match;
    expect(found.has(role), `two examples for ${role}`).toBe(false);
    found.set(role, JSON.parse(body));
  }
  return found;
}

describe("docs/cassettes.md", () => {
  const byRole = examples(readFileSync(DOC, "utf8"));

  it("has one example for every role a cassette answers", () => {
    expect([...byRole.keys()].sort()).toEqual([...ROLES].sort());
  });

  it.each([...ROLES])("the %s example is a complete cassette a run accepts, for that role only", (role) => {
    const cassette = parseCassette(`docs/cassettes.md (${role})`, byRole.get(role));
    expect(Object.keys(cassette.calls)).toEqual([role]);
    expect(cassette.calls[role]?.length).toBeGreaterThan(0);
    expect(checkCassette(cassette)).toMatchObject({ problems: [], warnings: [] });
    expect(JSON.stringify(byRole.get(role))).not.toContain("…");
  });
});
