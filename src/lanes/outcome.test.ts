import { describe, expect, it } from "vitest";
import { answerLane, failedOutcome, LaneOutcome, type NeedsAnswers } from "./outcome.js";

const asking = (n: number): NeedsAnswers => ({
  kind: "needs_answers",
  lane: "iterate",
  task_id: "t",
  asks: "needs_more_context",
  questions: [`question ${n}`],
});

describe("LaneOutcome", () => {
  it("is one discriminated union: finished per lane, needs_answers, handoff, failed", () => {
    expect(LaneOutcome.parse(asking(1)).kind).toBe("needs_answers");
    const failed = failedOutcome("insight", "", "boom", { stopped: false, resumable: false });
    expect(LaneOutcome.parse(failed)).toEqual(failed);
    expect(LaneOutcome.safeParse({ kind: "finished", lane: "neither", result: {} }).success).toBe(false);
    expect(LaneOutcome.safeParse({ ...asking(1), questions: [] }).success).toBe(false);
  });
});

describe("answerLane", () => {
  const settled = {
    kind: "failed",
    lane: "iterate",
    id: "t",
    message: "m",
    stopped: true,
    resumable: true,
  } as const;

  it("asks and resumes the same task until the lane stops needing answers", async () => {
    const asked: string[] = [];
    const resumed: [string, string][] = [];
    const outcome = await answerLane<LaneOutcome>(
      asking(1),
      async (q) => {
        asked.push(q.questions[0] ?? "");
        return `answer ${asked.length}`;
      },
      async (taskId, answer) => {
        resumed.push([taskId, answer]);
        return resumed.length === 1 ? asking(2) : settled;
      },
    );
    expect(asked).toEqual(["question 1", "question 2"]);
    expect(resumed).toEqual([
      ["t", "answer 1"],
      ["t", "answer 2"],
    ]);
    expect(outcome).toEqual(settled);
  });

  it("leaves the lane waiting when the driver cannot ask", async () => {
    const outcome = await answerLane<LaneOutcome>(
      asking(1),
      async () => null,
      async () => {
        throw new Error("must not resume without an answer");
      },
    );
    expect(outcome.kind).toBe("needs_answers");
  });
});
