import type { z } from "zod";
import { InsightFindings, ObservationFindings, TaskFraming } from "../artifacts/schemas/index.js";
import type { Role } from "../models/contract.js";
import { editFileTool } from "../tools/edit-file.js";
import {
  listFilesTool,
  readFileTool,
  runCommandTool,
  searchTool,
  writeTestFileTool,
} from "../tools/index.js";
import { writeFileTool } from "../tools/write-file.js";
import { CriticVerdict } from "./critic/critic-verdict.js";
import { PlanAnswer } from "./idea/idea.js";
import { INSIGHT_ANSWER_TOOL } from "./insight/insight-agent.js";
import { RepairGuidance } from "./iterator/repair-guidance.js";
import { OBSERVER_ANSWER_TOOL } from "./observer/observer-agent.js";
import { RouteDecision } from "./router/router.js";

/**
 * What each cassette role's answers look like, taken from the agents themselves (the schema each
 * structured call validates with, the tools each tool agent binds), so `devflow cassette check`
 * and docs/cassettes.md cannot drift from what a run accepts.
 */
export interface RoleShape {
  /** The structured answer: a `structured` entry, or the answer tool's arguments. */
  answer: { name: string; schema: z.ZodType } | null;
  /** Tools a `content` + `tool_calls` entry may call (tool agents only). */
  tools: readonly string[];
  /** Whether a plain `content` entry (text, no tool call) is a whole answer. */
  text: boolean;
  /** Which agent asks, in words, for messages. */
  agent: string;
}

const readOnly = [listFilesTool.name, readFileTool.name, searchTool.name];

export const CASSETTE_SHAPES: Readonly<Record<Role, RoleShape>> = {
  router: {
    answer: { name: "route_decision", schema: RouteDecision },
    tools: [],
    text: false,
    agent: "the intake router",
  },
  framer: {
    answer: { name: "task_framing", schema: TaskFraming },
    tools: [],
    text: false,
    agent: "the framer",
  },
  observer: {
    answer: { name: OBSERVER_ANSWER_TOOL, schema: ObservationFindings },
    tools: [...readOnly, runCommandTool().name, writeTestFileTool.name],
    text: false,
    agent: "the observer (a tool agent)",
  },
  iterator: {
    answer: { name: "repair_guidance", schema: RepairGuidance },
    tools: [],
    text: false,
    agent: "repair guidance after a failed attempt",
  },
  critic: {
    answer: { name: "critic_verdict", schema: CriticVerdict },
    tools: [],
    text: false,
    agent: "the critic",
  },
  insight: {
    answer: { name: INSIGHT_ANSWER_TOOL, schema: InsightFindings },
    tools: readOnly,
    text: false,
    agent: "the insight agent (a tool agent)",
  },
  idea: {
    answer: { name: "idea_brief", schema: PlanAnswer },
    tools: [],
    text: false,
    agent: "the idea planner",
  },
  neither: { answer: null, tools: [], text: true, agent: "the neither lane's reply" },
  coder: {
    answer: null,
    tools: [...readOnly, editFileTool.name, writeFileTool.name, runCommandTool().name],
    text: true,
    agent: "the builtin coder (a tool agent; its last message is text)",
  },
};
