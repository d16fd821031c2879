/**
 * Whether the environment asks for LangSmith tracing (the variables LangChain reads). A leaf module:
 * the CLI checks it at start-up and loads the tracing setup (langsmith) only when asked (ADR 0042).
 */
export const TRACING_ENV_VARS = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
] as const;

export function tracingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  return TRACING_ENV_VARS.some((name) => env[name] === "true");
}

/** How long devflow waits at exit for pending traces (`DEVFLOW_TRACING_FLUSH_MS`, default 1500). */
export function tracingFlushMs(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.DEVFLOW_TRACING_FLUSH_MS);
  return Number.isFinite(value) && value >= 0 ? value : 1500;
}
