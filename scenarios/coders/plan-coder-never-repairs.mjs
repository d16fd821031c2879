#!/usr/bin/env node
// The plan coder whose duplicate check stays case-sensitive on every attempt (see plan-coder-variant.mjs).
import { runPlanCoder } from "./plan-coder-variant.mjs";

await runPlanCoder("never");
