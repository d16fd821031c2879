/**
 * The two redaction patterns that dominated the cost of redacting a large text, as scans that jump
 * from one `=` (or `://`) to the next with `indexOf` instead of trying a regex at every position.
 * Each gives exactly what its regex gave with a global `replace` (redact-scans.test.ts checks both
 * against the regexes on random and adversarial text): leftmost, non-overlapping matches, a match
 * that changes nothing still consuming its text. Issue 11: a coder that printed 1 MiB cost 4-10 ms
 * per pattern per pass, several passes per attempt.
 */

const SPACE = 32;
const TAB = 9;

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isLetterOrDigit = (c: number): boolean => isLetter(c) || (c >= 48 && c <= 57);
/** [A-Za-z0-9_.-] */
const isNameChar = (c: number): boolean => isLetterOrDigit(c) || c === 95 || c === 46 || c === 45;
/** [a-z0-9+.-], case-insensitive (a URL scheme's characters). */
const isSchemeChar = (c: number): boolean => isLetterOrDigit(c) || c === 43 || c === 46 || c === 45;

const EQUALS_AND_VALUE = /[ \t]*=[ \t]*("[^"\n]+"|'[^'\n]+'|[^\s"'&;,]+)/y;

/**
 * `NAME = value` pairs, as
 * `/(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]{1,128})([ \t]*=[ \t]*)("[^"\n]+"|'[^'\n]+'|[^\s"'&;,]+)/g`
 * finds them; `replace(name, eq, value)` returns the pair's new text, or null to keep it.
 */
export function replaceAssignments(
  text: string,
  replace: (name: string, eq: string, value: string) => string | null,
): string {
  let out = "";
  let copied = 0;
  let consumed = 0;
  for (let at = text.indexOf("="); at !== -1; at = text.indexOf("=", at + 1)) {
    let k = at;
    while (k > 0 && (text.charCodeAt(k - 1) === SPACE || text.charCodeAt(k - 1) === TAB)) k--;
    const nameEnd = k;
    while (k > 0 && nameEnd - k <= 128 && isNameChar(text.charCodeAt(k - 1))) k--;
    const length = nameEnd - k;
    // The name is the whole run of name characters (the look-behind), 1-128 long, and a match
    // cannot start inside text an earlier match consumed.
    if (length === 0 || length > 128 || k < consumed) continue;
    EQUALS_AND_VALUE.lastIndex = nameEnd;
    const match = EQUALS_AND_VALUE.exec(text);
    if (match === null) continue;
    const value = match[1] ?? "";
    const end = EQUALS_AND_VALUE.lastIndex;
    consumed = end;
    const next = replace(text.slice(k, nameEnd), text.slice(nameEnd, end - value.length), value);
    if (next !== null) {
      out += text.slice(copied, k) + next;
      copied = end;
    }
    at = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const AFTER_SCHEME = /:\/\/[^\s:/@]{1,256}:[^\s@/]{1,256}@/y;

/**
 * The password of `scheme://user:password@` replaced by `replacement`, as
 * `/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]{1,256}:)[^\s@/]{1,256}@/gi` with
 * `$1${replacement}@` does.
 */
export function replaceUrlPasswords(text: string, replacement: string): string {
  let out = "";
  let copied = 0;
  let consumed = 0;
  for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 1)) {
    let k = at;
    while (k > 0 && at - k <= 32 && isSchemeChar(text.charCodeAt(k - 1))) k--;
    const length = at - k;
    if (length === 0 || length > 32 || k < consumed || !isLetter(text.charCodeAt(k))) continue;
    AFTER_SCHEME.lastIndex = at;
    const match = AFTER_SCHEME.exec(text);
    if (match === null) continue;
    const end = AFTER_SCHEME.lastIndex;
    const password = match[0].length - match[0].indexOf(":", 3) - 2;
    out += `${text.slice(copied, end - 1 - password)}${replacement}@`;
    copied = end;
    consumed = end;
    at = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
