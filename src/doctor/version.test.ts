import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../util/paths.js";
import { checkNode, MIN_NODE } from "./node-check.js";
import { atLeast } from "./version.js";

describe("atLeast", () => {
  it.each([
    ["2.30.0", "2.30", true],
    ["2.30", "2.30.0", true],
    ["2.29.9", "2.30", false],
    ["2.100.1", "2.30", true],
    ["3.0.0", "2.30", true],
    ["20.18.3", "20.19", false],
    ["20.19.0-rc.1", "20.19", true],
    ["1.9", "1.10", false],
  ])("%s ≥ %s is %s (numeric, not lexical)", (version, minimum, expected) => {
    expect(atLeast(version, minimum)).toBe(expected);
  });
});

describe("checkNode", () => {
  it("keeps MIN_NODE equal to package.json's engines", () => {
    const pkg: { engines: { node: string } } = JSON.parse(
      readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8"),
    );
    expect(pkg.engines.node).toBe(`>=${MIN_NODE}`);
  });

  it("passes the running Node (devflow's own tests run on a supported one)", () => {
    expect(checkNode()).toMatchObject({
      name: "node",
      status: "ok",
      version: process.versions.node,
      hint: null,
    });
  });

  it("fails an older Node and says what to install", () => {
    const check = checkNode("20.18.1");
    expect(check.status).toBe("fail");
    expect(check.detail).toBe("Node.js 20.18.1 is older than 20.19");
    expect(check.hint).toContain("Install Node.js 20.19 or newer");
  });
});
