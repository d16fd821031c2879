/**
 * Loop-guard thresholds, with junco's numbers (docs/origins.md#loop-guards: junco's guards and its
 * supervisor) where it has them. junco's tool kinds map onto devflow's tools: bash → run_command,
 * grep → search, find/glob → list_files, write → write_file and write_test_file, edit → edit_file,
 * read → read_file.
 */

/** Identical consecutive calls (same tool, same arguments) that trip the repeated-tool-call guard. */
export const REPEATED_TOOL_CALL_THRESHOLDS: Readonly<Record<string, number>> = {
  run_command: 3,
  search: 3,
  list_files: 3,
  write_file: 3,
  write_test_file: 3,
  edit_file: 4,
  read_file: 5,
};
/** Any tool not listed above ("anything else" in junco). */
export const REPEATED_TOOL_CALL_DEFAULT_THRESHOLD = 4;

/** Consecutive failures of the same tool; any successful tool result resets the count. */
export const TOOL_ERROR_STREAK_THRESHOLD = 3;

/** Occurrences of the same output: the same assistant text across turns, or a probe within one text. */
export const REPEATED_OUTPUT_THRESHOLD = 4;
/** Within one text, only its last this-many characters are searched for the repeated probe. */
export const REPETITION_WINDOW_CHARS = 2000;
/** The probe is the text's last min(MAX, window/3) characters, and at least MIN. */
export const REPETITION_PROBE_MAX_CHARS = 200;
export const REPETITION_PROBE_MIN_CHARS = 80;
/** Within-text repetition is only looked for once a text is this long. */
export const REPETITION_MIN_TEXT_CHARS = 1000;
/** Texts and probes with fewer distinct characters are ignored ("ok", "----", whitespace). */
export const REPETITION_MIN_UNIQUE_CHARS = 10;

/**
 * Output tokens a run may produce before the budget guard trips: junco's per-turn budget before
 * the first commit. After the nudge the guard starts counting again, so the run is stopped at
 * twice this, junco's budget after a commit (24 000). devflow's coders never commit, so junco's
 * commit heuristic has nothing to switch on.
 */
export const OUTPUT_TOKEN_BUDGET = 12_000;

/** Nudges per guard kind before the next trip of that kind stops the run (junco budgetPerKind). */
export const NUDGES_PER_KIND = 1;
