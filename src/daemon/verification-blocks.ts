/**
 * The `## Verification` section of a ticket and its fenced blocks: the one fence grammar for
 * linting now and for running later (junco linted ```sh and bare fences but ran only ```bash, so a
 * block could be checked and then silently never run, reference §5.9). Every fence in the section
 * is returned with its info string; plan-lint refuses any that is not exactly `bash`.
 */
export interface FencedBlock {
  /** The info string after the opening fence, trimmed (`""` for a bare fence). */
  info: string;
  code: string;
  /** 1-based file line of the opening fence. */
  line: number;
  /** False when the section (or the file) ended before the closing fence. */
  closed: boolean;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fenced blocks of every `## Verification` section of `body` (whose first line is file line `firstLine`). */
export function verificationBlocks(body: string, firstLine = 1): FencedBlock[] {
  const lines = body.split("\n");
  const blocks: FencedBlock[] = [];
  let inSection = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const fence = FENCE_OPEN.exec(line);
    if (fence?.[1]) {
      // A fence's content is never a heading, in or out of the section.
      const marker = fence[1];
      const close = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}\\s*$`);
      const start = i;
      const code: string[] = [];
      let closed = false;
      for (i = i + 1; i < lines.length; i++) {
        if (close.test(lines[i] ?? "")) {
          closed = true;
          break;
        }
        code.push(lines[i] ?? "");
      }
      if (inSection)
        blocks.push({
          info: (fence[2] ?? "").trim(),
          code: code.join("\n"),
          line: firstLine + start,
          closed,
        });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1]) {
      if (heading[1].length === 2) inSection = /^verification$/i.test(heading[2] ?? "");
      else if (heading[1].length < 2) inSection = false;
    }
  }
  return blocks;
}

/**
 * Lines of a bash block that change directory (`cd`, `pushd`, also after `&&`, `;`, `|`, `(`,
 * `then`, `do`, or as `builtin cd` / `command cd`): a verifier runs where devflow puts it, the
 * verification checkout, and a `cd` would point it somewhere else. Returns 0-based line offsets.
 */
export function cdLines(code: string): number[] {
  const found: number[] = [];
  const cd =
    /(?:^|[;&|(){}`]|\$\(|\b(?:then|do|else|exec)\b)\s*(?:(?:builtin|command)\s+)?(?:cd|pushd)(?=\s|$|;|&|\|)/;
  code.split("\n").forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, "");
    if (cd.test(line.trim())) found.push(index);
  });
  return found;
}
