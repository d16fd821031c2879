/**
 * The files a Verification block runs as programs (ADR 0059): the paths devflow takes from base
 * before the block runs, so a coder cannot defeat the block by rewriting the script it executes
 * (`bash scripts/check.sh` → `exit 0`). Read from the block's bash text without running it:
 *
 * - a command word that is a path (`./scripts/check.sh`, `scripts/check.sh`), also after `source`/`.`;
 * - every plain word of an interpreter's command (`node scripts/check.mjs`, `bash -x check.sh`,
 *   `python3 tools/lint.py`, `node --require ./setup.cjs --test test/x.test.js`): any of them that
 *   base tracks is taken from base, inline code (`node -e '…'`) is one quoted word that names no file;
 * - `package.json` for a package manager's command (`npm test`, `npm run check`, `yarn x`), whose
 *   scripts it runs.
 *
 * Candidates only: which of them base tracks is decided against base (src/workspace). A file the
 * program itself loads (`import "../src/x.js"`) is not a candidate: that is usually the code the
 * block checks, which must be the attempt's.
 */
export function blockPrograms(script: string): string[] {
  const out: string[] = [];
  for (const command of simpleCommands(script)) {
    // `X=1 node …`: assignments before the command word are not programs.
    const start = command.findIndex((w) => !isAssignment(w));
    if (start < 0) continue;
    let [head, ...args] = command.slice(start);
    // `env X=1 node …`, `exec node …`, `time node …`: the real command comes after.
    while (head !== undefined && WRAPPERS.has(head)) {
      // Options, assignments and `timeout`'s duration are not the command.
      const next = args.findIndex((w) => !w.startsWith("-") && !isAssignment(w) && !/^\d/.test(w));
      if (next < 0) {
        head = undefined;
        break;
      }
      head = args[next];
      args = args.slice(next + 1);
    }
    if (head === undefined) continue;
    if (PACKAGE_MANAGERS.has(head)) out.push("package.json");
    else if (head === "source" || head === ".") out.push(...args.slice(0, 1));
    else if (INTERPRETERS.has(head))
      out.push(...args.filter((w) => !w.startsWith("-")), ...optionValues(args));
    else if (head.includes("/")) out.push(head);
  }
  // A word with spaces or quotes is inline code or text, not a file name.
  return [...new Set(out)].filter((w) => w !== "" && !/[\s'"()]/.test(w));
}

/** Programs that run a file named among their arguments. */
const INTERPRETERS = new Set([
  "node",
  "nodejs",
  "bash",
  "sh",
  "dash",
  "zsh",
  "python",
  "python3",
  "ruby",
  "perl",
  "tsx",
  "ts-node",
  "deno",
  "bun",
]);
const PACKAGE_MANAGERS = new Set(["npm", "yarn", "pnpm"]);
const WRAPPERS = new Set(["env", "exec", "time", "command", "nice", "timeout"]);

/** `--require=./x.cjs`, `--import=./y.mjs`: the file a preload option names after `=`. */
function optionValues(args: readonly string[]): string[] {
  return args
    .filter((w) => /^--(require|import|loader|experimental-loader)=/.test(w))
    .map((w) => w.slice(w.indexOf("=") + 1));
}

const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/**
 * The block split into simple commands (on newlines, `;`, `&`, `|`, `&&`, `||`, `(`, `)`), each a
 * list of words with quotes removed. A quoted word keeps its spaces, so inline code stays one word.
 * Comments are dropped. Not a shell: what it misreads is at worst a file not taken from base.
 */
export function simpleCommands(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = (): void => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    if (c === "'" || c === '"') {
      const close = script.indexOf(c, i + 1);
      const end = close < 0 ? script.length : close;
      word += script.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === "\\" && i + 1 < script.length) {
      if (script[i + 1] !== "\n") word += script[i + 1];
      inWord = inWord || script[i + 1] !== "\n";
      i++;
    } else if (c === "#" && !inWord) {
      while (i + 1 < script.length && script[i + 1] !== "\n") i++;
    } else if ("\n;&|()".includes(c)) {
      endCommand();
    } else if (c === " " || c === "\t") {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}
