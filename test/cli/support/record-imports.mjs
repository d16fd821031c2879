// `node --import` this file to record every module the process resolves (one URL per line) in the
// file named by DEVFLOW_RECORD_IMPORTS. The hooks run on node's loader thread; appends are sync.
import { register } from "node:module";

register(new URL("./record-imports-hooks.mjs", import.meta.url));
