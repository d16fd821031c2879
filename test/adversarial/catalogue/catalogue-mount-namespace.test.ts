/**
 * The catalogue entries whose coder attacks the user's repository by path (class 7 and friends),
 * with the mount namespace on (Linux, devflow as root; ADR 0025): each attack must fail outright,
 * the user's repository stays byte-identical (`.git` included, only the task branch, its reflog
 * and the commit's pack may appear), no process is left, and a run that completes carries the
 * correct fix. Where no mount namespace exists this file is skipped and says so; catalogue.test.ts
 * covers the same entries by detection there.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mountNamespaceWorks } from "../../../src/process/mount-namespace.js";
import { leftoverProcesses } from "../../support/leftover-processes.js";
import { BEHAVIOURS } from "./behaviours.js";
import { catalogueTemplate } from "./fixture.js";
import { limited, runEntry } from "./run-entry.js";

const attacks = BEHAVIOURS.filter((b) => b.coderChangesUserRepo && !b.needs);

describe.skipIf(!mountNamespaceWorks())(
  "catalogue attacks on the user's repository, mount namespace on",
  () => {
    beforeAll(() => {
      catalogueTemplate();
    });
    it("has entries to run", () => {
      expect(attacks.length).toBeGreaterThanOrEqual(6);
    });
    describe.concurrent("each attack is prevented", () => {
      for (const b of attacks)
        it(
          `[${b.issueClass}] ${b.name}: the user's repository stays byte-identical`,
          () => limited(() => runEntry(b, "prevent")),
          600_000,
        );
    });
    it("leaves no process carrying a run marker", () => {
      expect(leftoverProcesses("/nonexistent-dir/", { marker: true })).toEqual([]);
    });
  },
);
