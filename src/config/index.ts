export { type CommitIdentity, endpointLimits, laneOptions, modelEnv, runSettings } from "./derive.js";
export {
  type ConfigReport,
  type ConfigValueReport,
  configReport,
  renderConfig,
  sourceText,
} from "./render.js";
export {
  type ConfigSource,
  type FlagValue,
  type ResolveConfigInput,
  type ResolvedConfig,
  resolveConfig,
} from "./resolve.js";
export { CONFIG_KEYS, type ConfigKey, DEFAULTS, type EffectiveConfig } from "./settings.js";
