import type { Tracing } from "../models/langsmith-tracing.js";
import { tracingRequested } from "../models/tracing-env.js";

/**
 * LangSmith tracing when the environment asks for it (`LANGSMITH_TRACING=true`), else null; the
 * tracing setup (langsmith, LangChain's tracer) loads only then, so start-up stays light (ADR 0042).
 */
export async function startTracingIfRequested(
  env: Readonly<Record<string, string | undefined>>,
): Promise<Tracing | null> {
  if (!tracingRequested(env)) return null;
  const { startTracing } = await import("../models/langsmith-tracing.js");
  return startTracing(env);
}
