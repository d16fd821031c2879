import { palette } from "../colour.js";
import type { CliIO } from "../io.js";
import type { SummaryStyle } from "../summary.js";
import type { OutputSettings } from "./output-flags.js";

/** The summary drawn like the progress: the same colour decision, the terminal's width or the plain width. */
export function summaryStyle(io: CliIO, output: OutputSettings): SummaryStyle {
  const columns = output.live ? io.errColumns?.() : undefined;
  return { colours: palette(output.colour), width: columns ? columns - 1 : output.width };
}
