import { AIMessage, createMiddleware, ToolMessage } from "langchain";
import type { CoderRunLog } from "./run-log.js";

/**
 * Writes every model answer and tool result to the transcript as it happens (an aborted run keeps
 * everything up to the abort). Tool results are also redacted with the run's own secrets before
 * the model sees them: the tools redact devflow's environment, not what a request brought along.
 * It is the outermost middleware, so retried model calls are logged once, as they were answered.
 */
export function transcriptMiddleware(transcript: CoderRunLog, redact: (text: string) => string) {
  return createMiddleware({
    name: "CoderTranscriptMiddleware",
    wrapModelCall: async (request, handler) => {
      try {
        const message = await handler(request);
        if (AIMessage.isInstance(message)) {
          const calls = message.tool_calls ?? [];
          transcript.assistant({
            text: message.text,
            toolCalls: calls.length,
            toolCallList: calls.map((c) => ({ name: c.name, args: c.args })),
            usage: message.usage_metadata ?? null,
          });
        }
        return message;
      } catch (error) {
        transcript.record({
          type: "model_error",
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
    },
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (!ToolMessage.isInstance(result)) return result;
      const content = redact(result.text);
      transcript.record({
        type: "tool_result",
        name: request.toolCall.name,
        tool_call_id: request.toolCall.id ?? null,
        status: result.status ?? "success",
        content,
      });
      if (content === result.text) return result;
      return new ToolMessage({
        content,
        tool_call_id: result.tool_call_id,
        ...(result.name === undefined ? {} : { name: result.name }),
        ...(result.status === undefined ? {} : { status: result.status }),
      });
    },
  });
}
