export { checkCoders } from "./coder-check.js";
export { type DoctorOptions, runDoctor } from "./doctor.js";
export {
  checkModelEndpoint,
  DEFAULT_ENDPOINT_TIMEOUT_MS,
  type EndpointCheckOptions,
} from "./endpoint-check.js";
export { checkGit, MIN_GIT } from "./git-check.js";
export { checkNode, MIN_NODE } from "./node-check.js";
export { renderDoctorReport } from "./render.js";
export type { CheckStatus, CoderCheck, DoctorReport, EndpointCheck, ToolCheck } from "./types.js";
export { atLeast } from "./version.js";
