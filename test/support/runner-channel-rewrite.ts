/**
 * The forgery of node:test's runner channel that the assertion ledger exists to refuse (ADR 0048),
 * as JavaScript source for code run inside a `node --test` child (NODE_TEST_CONTEXT=child-v8): the
 * child reports to its runner on stdout in v8-serialized frames (two header bytes, a 4-byte length,
 * the event), and this wraps `process.stdout.write` to rewrite events before the runner reads them.
 * One copy for every attack that uses it (it was written out eight times).
 */

/**
 * Source of a block that wraps `process.stdout.write` (`__v8`, node:v8, must be in scope): each
 * event frame is deserialized and passed to `edit`, the source of a function `(item) => boolean`
 * that may change the event and says whether to send it re-serialized; other writes pass unchanged.
 * `onWrite`: statements run at the start of every write.
 */
export function rewriteRunnerEvents(edit: string, onWrite = ""): string {
  return `{
  const __edit = ${edit};
  const __write = process.stdout.write;
  const __h = __v8.serialize(0).subarray(0, 2);
  process.stdout.write = function (chunk, ...rest) {
    ${onWrite}
    try {
      const b = Buffer.from(chunk);
      if (b.length > 6 && b[0] === __h[0] && b[1] === __h[1]) {
        const item = __v8.deserialize(b.subarray(6));
        if (item && __edit(item)) {
          const body = __v8.serialize(item);
          const len = Buffer.alloc(4);
          len.writeUInt32BE(body.length);
          chunk = Buffer.concat([__h, len, body]);
        }
      }
    } catch {}
    return __write.call(this, chunk, ...rest);
  };
}`;
}

/**
 * An `edit` turning a `test:fail` event into `test:pass` (its error dropped), for the events `when`
 * (an expression over `item`) holds for; `also` runs after, with `item` in scope.
 */
export const failBecomesPass = (also = "", when = "true") =>
  `(item) => {
    if (item.type !== "test:fail" || !(${when})) return false;
    item.type = "test:pass";
    if (item.data && item.data.details) delete item.data.details.error;
    ${also}
    return true;
  }`;
