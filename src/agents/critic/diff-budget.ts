/** One file's part of a unified diff ("diff --git a/x b/x" up to the next file). */
export interface FileDiff {
  path: string;
  text: string;
}

export interface BudgetedDiff {
  /** The excerpt, files in their original order. */
  text: string;
  /** Every file the diff touches, including those whose hunks were cut. */
  files: string[];
  /** Files whose diff was shortened or omitted to fit the budget. */
  truncatedFiles: string[];
  shownBytes: number;
  totalBytes: number;
}

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");

/** Splits a `git diff` into per-file sections; text before the first header is kept as its own section. */
export function splitDiff(diff: string): FileDiff[] {
  const out: FileDiff[] = [];
  const starts = [...diff.matchAll(/^diff --git /gm)].map((m) => m.index ?? 0);
  if (starts.length === 0) return diff.trim() ? [{ path: "(diff)", text: diff }] : [];
  if ((starts[0] ?? 0) > 0 && diff.slice(0, starts[0]).trim())
    out.push({ path: "(preamble)", text: diff.slice(0, starts[0]) });
  starts.forEach((start, i) => {
    const text = diff.slice(start, starts[i + 1] ?? diff.length);
    out.push({ path: pathOf(text), text });
  });
  return out;
}

function pathOf(section: string): string {
  const plus = /^\+\+\+ b\/(.+)$/m.exec(section)?.[1];
  if (plus) return plus.trim();
  const minus = /^--- a\/(.+)$/m.exec(section)?.[1];
  if (minus) return minus.trim();
  const header = /^diff --git a\/(.+?) b\/(.+)$/m.exec(section);
  return (header?.[2] ?? header?.[1] ?? "(unknown)").trim();
}

/**
 * Fits a diff into `budgetBytes` so that every changed file gets a fair share: files smaller
 * than the share are shown whole and their unused share goes to the others (water-filling),
 * so one huge generated file cannot crowd out the small change that matters. A cut file keeps
 * its leading lines and ends with a marker naming where the full diff is.
 */
export function budgetDiff(diff: string, budgetBytes: number, fullDiffPath: string): BudgetedDiff {
  const sections = splitDiff(diff);
  const sizes = sections.map((s) => bytes(s.text));
  const fits = sizes.reduce((a, b) => a + b, 0) <= budgetBytes;
  // Room for the closing line about omitted files, so the whole excerpt stays within budget.
  const allowance = fits ? sizes : allocate(sizes, budgetBytes - TRAILER_RESERVE);
  const truncatedFiles: string[] = [];
  let omitted = 0;
  const parts = sections.map((s, i) => {
    const size = sizes[i] ?? 0;
    const allow = allowance[i] ?? 0;
    if (size <= allow) return s.text;
    truncatedFiles.push(s.path);
    const marker = `… [diff of ${s.path} cut at ${allow} of ${size} bytes]\n`;
    const room = allow - bytes(marker);
    if (room < MIN_USEFUL_HEAD) {
      omitted++;
      return "";
    }
    return headLines(s.text, room) + marker;
  });
  if (truncatedFiles.length > 0) {
    const what =
      omitted > 0
        ? `${omitted} file diff(s) omitted and ${truncatedFiles.length - omitted} cut`
        : `${truncatedFiles.length} file diff(s) cut`;
    parts.push(`… [${what} to fit ${budgetBytes} bytes; full diff in ${fullDiffPath}]\n`);
  }
  const text = parts.join("");
  return {
    text,
    files: sections.map((s) => s.path).filter((p) => !p.startsWith("(")),
    truncatedFiles,
    shownBytes: bytes(text),
    totalBytes: bytes(diff),
  };
}

/** Bytes kept back for the closing "omitted" line (its path may be long). */
const TRAILER_RESERVE = 512;
/** Below this, a cut file shows too little to judge; it is omitted and only named in the file list. */
const MIN_USEFUL_HEAD = 160;
/** A cut file's marker line (its path may make it longer; then the file shows a little less). */
const MARKER_ROOM = 96;

/**
 * Chooses which files get room at all, smallest first, so every chosen file gets at least a
 * useful head (or its whole diff when smaller); the others (the largest, often generated) are
 * omitted. Room is then shared fairly among the chosen ones.
 */
function allocate(sizes: readonly number[], budget: number): number[] {
  const bySize = sizes.map((size, i) => ({ size, i })).sort((a, b) => a.size - b.size);
  const chosen = new Set<number>();
  let floor = 0;
  for (const { size, i } of bySize) {
    const need = Math.min(size, MIN_USEFUL_HEAD + MARKER_ROOM);
    if (floor + need > budget) break;
    floor += need;
    chosen.add(i);
  }
  const fair = waterFill(
    sizes.map((size, i) => (chosen.has(i) ? size : 0)),
    budget,
  );
  return fair;
}

/** Max-min fair allocation of `budget` over `sizes`. */
export function waterFill(sizes: readonly number[], budget: number): number[] {
  const alloc = sizes.map(() => 0);
  let remaining = Math.max(0, budget);
  let open = sizes.map((_, i) => i);
  // Each round either satisfies a file (it leaves `open`) or spends all but < open.length bytes.
  while (open.length > 0) {
    const share = Math.floor(remaining / open.length);
    if (share === 0) break;
    const next: number[] = [];
    for (const i of open) {
      const want = (sizes[i] ?? 0) - (alloc[i] ?? 0);
      const give = Math.min(want, share);
      alloc[i] = (alloc[i] ?? 0) + give;
      remaining -= give;
      if (give < want) next.push(i);
    }
    open = next;
  }
  return alloc;
}

/** The longest prefix of whole lines within `max` bytes (a single over-long first line is cut by characters). */
function headLines(text: string, max: number): string {
  if (max <= 0) return "";
  let out = "";
  let used = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const n = bytes(line);
    if (used + n > max) {
      if (out === "") out = cutToBytes(line, max);
      break;
    }
    out += line;
    used += n;
  }
  return out.endsWith("\n") || out === "" ? out : `${out}\n`;
}

function cutToBytes(s: string, max: number): string {
  const buf = Buffer.from(s, "utf8").subarray(0, Math.max(0, max - 1));
  // Dropping a partial multi-byte character keeps the excerpt valid UTF-8.
  return buf.toString("utf8").replace(/\uFFFD+$/, "");
}
