import {
  BaseChatModel,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { ChatOpenAI, ChatOpenAICallOptions } from "@langchain/openai";
import type { CassetteRecorder } from "./cassette-recorder.js";
import type { Role } from "./contract.js";
import { entryFromAnswer } from "./record-entry.js";

/** Asks the live model and appends each answer to the role's cassette queue. */
export class RecordingChatModel extends BaseChatModel<ChatOpenAICallOptions> {
  constructor(
    private readonly live: ChatOpenAI,
    private readonly recorder: CassetteRecorder,
    private readonly role: Role,
    fields: BaseChatModelParams = {},
  ) {
    super(fields);
  }

  _llmType(): string {
    return "devflow-record";
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<ChatOpenAICallOptions>) {
    return this.withConfig({ ...kwargs, tools });
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    // No callbacks handed down: this wrapper's own run already reports (and books) the call.
    const answer = await this.live.invoke(messages, options);
    this.recorder.append(this.role, entryFromAnswer(answer, options));
    return { generations: [{ message: answer, text: answer.text }] };
  }
}
