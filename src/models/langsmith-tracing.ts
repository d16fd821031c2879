import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { overrideFetchImplementation } from "langsmith";
import { redact } from "../util/redact.js";
import { tracingFlushMs } from "./tracing-env.js";

/**
 * LangSmith tracing, bounded and redacted (ADR 0042). LangChain traces every run when
 * `LANGSMITH_TRACING=true`, through langsmith's client: 90 s per request, 4 retries, and pending
 * batches keep the process alive, so an unreachable endpoint held every command 80–120 s at exit
 * and printed langsmith's warnings. devflow gives langsmith its fetch (langsmith's public
 * `overrideFetchImplementation`): each request is bounded, a failure is recorded quietly and answered
 * with an empty success (no retry, no warning), and every body is redacted before it leaves; at exit
 * devflow waits for pending traces at most `DEVFLOW_TRACING_FLUSH_MS` (default 1.5 s), then reports
 * in one line what could not be sent.
 */
export interface Tracing {
  /** Waits (bounded) for pending traces; returns the one line to print when some were lost, else null. */
  finish(): Promise<string | null>;
}

const REQUEST_TIMEOUT_MS = 1500;

export function startTracing(env: Readonly<Record<string, string | undefined>> = process.env): Tracing {
  const endpoint = env.LANGSMITH_ENDPOINT ?? env.LANGCHAIN_ENDPOINT ?? "https://api.smith.langchain.com";
  const failures: string[] = [];
  overrideFetchImplementation(async (input: string | URL | Request, init?: RequestInit) => {
    // A compressed body cannot be redacted as text: dropped rather than sent unread.
    const encoded = new Headers(init?.headers).has("content-encoding");
    const body = encoded ? undefined : redactedBody(init?.body);
    if (body === undefined) {
      failures.push("a trace body devflow cannot read to redact (dropped)");
      return emptySuccess();
    }
    try {
      const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      const response = await fetch(input, {
        ...init,
        ...(body === null ? {} : { body }),
        signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal,
      });
      if (!response.ok) failures.push(`HTTP ${response.status}`);
      return response.ok ? response : emptySuccess();
    } catch (error) {
      failures.push(
        error instanceof Error
          ? error.cause instanceof Error
            ? error.cause.message
            : error.message
          : String(error),
      );
      return emptySuccess();
    }
  });
  // The client LangChain's tracer uses (created once, on first use): devflow waits on its batches.
  const client = new LangChainTracer().client as { awaitPendingTraceBatches?: () => Promise<void> };
  const flushMs = tracingFlushMs(env);
  return {
    async finish() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), flushMs);
      });
      const flushed = (async () => {
        await awaitAllCallbacks();
        await client.awaitPendingTraceBatches?.();
        return "sent" as const;
      })();
      const how = await Promise.race([flushed, deadline]);
      clearTimeout(timer);
      if (how === "late")
        return `devflow: LangSmith tracing to ${endpoint} did not finish within ${flushMs} ms; this run's remaining traces were dropped (DEVFLOW_TRACING_FLUSH_MS waits longer, LANGSMITH_TRACING=false turns tracing off)`;
      if (failures.length > 0)
        return `devflow: LangSmith tracing to ${endpoint} failed (${[...new Set(failures)].slice(0, 3).join("; ")}); traces of this run were dropped`;
      return null;
    },
  };
}

/** The body with secrets redacted; null when there is none; undefined when it cannot be read as text. */
function redactedBody(body: RequestInit["body"] | undefined): string | Uint8Array | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return redact(body);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    const bytes = body instanceof Uint8Array ? body : new Uint8Array(body);
    const text = Buffer.from(bytes).toString("latin1");
    // latin1 maps every byte to one char and back: a multipart body's binary parts survive intact,
    // while ASCII secrets (keys, tokens) are found and replaced.
    return Buffer.from(redact(text), "latin1");
  }
  return undefined;
}

function emptySuccess(): Response {
  return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
}
