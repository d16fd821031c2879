export { type BuiltinLimits, DEFAULT_BUILTIN_LIMITS } from "../../agents/builtin-coder/index.js";
export {
  BUILTIN_CODER,
  BUILTIN_SETUP_HINT,
  type BuiltinCoderOptions,
  createBuiltinCoder,
} from "./builtin-coder.js";
