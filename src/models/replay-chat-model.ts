import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { CassettePlayer } from "./cassette-player.js";
import type { Role } from "./contract.js";
import { answerFromEntry } from "./replay-answer.js";

export interface ReplayCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
  response_format?: unknown;
}

/**
 * A chat model that answers from a cassette. A real BaseChatModel with bindTools, so langchain's
 * createAgent drives it exactly like a live model; every call takes the role's next entry.
 */
export class ReplayChatModel extends BaseChatModel<ReplayCallOptions> {
  /** Every tool list bound so far, in order: what the agent offered the model at each step. */
  readonly boundTools: BindToolsInput[][] = [];

  constructor(
    private readonly player: CassettePlayer,
    private readonly role: Role,
    fields: BaseChatModelParams = {},
  ) {
    super(fields);
  }

  _llmType(): string {
    return "devflow-replay";
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<ReplayCallOptions>) {
    this.boundTools.push(tools);
    return this.withConfig({ ...kwargs, tools });
  }

  async _generate(_messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const { entry, callNumber } = this.player.next(this.role);
    const message = answerFromEntry(entry, options, { path: this.player.path, role: this.role, callNumber });
    return { generations: [{ message, text: message.text }] };
  }
}
