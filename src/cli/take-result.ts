// The take-the-result commands are the iterate tasks' (the chat prints them too); the CLI re-exports them.
export { type TakeResult, takeResultCommands, takeResultLines } from "../lanes/iterate/tasks/take-result.js";
