#!/usr/bin/env node
// The plan coder whose duplicate check compares lower-cased emails from the first attempt (see plan-coder-variant.mjs).
import { runPlanCoder } from "./plan-coder-variant.mjs";

await runPlanCoder("first-pass");
