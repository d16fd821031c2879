/** A bounded view of a text: its head and tail around one marker line when something was cut. */
export interface Excerpt {
  text: string;
  truncated: boolean;
  omittedBytes: number;
}

/** Smallest cap that leaves room for the marker line plus some head and tail. */
export const MIN_EXCERPT_BYTES = 128;

export const omittedMarker = (omittedBytes: number): string => `[... ${omittedBytes} bytes omitted ...]`;

/** Finds the marker line `excerpt` inserts (callers that want only the tail split on it). */
export const OMITTED_MARKER_LINE = /(?:^|\n)\[\.\.\. \d+ bytes omitted \.\.\.\]\n/;

// Room for the marker with the largest byte count we could ever print, plus a newline each side.
const MARKER_RESERVE = Buffer.byteLength(`\n${omittedMarker(Number.MAX_SAFE_INTEGER)}\n`);

const isContinuationByte = (byte: number): boolean => (byte & 0xc0) === 0x80;

function utf8SequenceLength(leadByte: number): number {
  if (leadByte < 0x80) return 1;
  if (leadByte >= 0xf0) return 4;
  if (leadByte >= 0xe0) return 3;
  if (leadByte >= 0xc0) return 2;
  return 1; // a stray continuation byte: treat it as a unit of its own
}

/**
 * The longest prefix of `bytes` of at most `maxBytes` that does not end inside a multi-byte
 * character (also when `bytes` itself was cut mid-character upstream).
 */
export function utf8Prefix(bytes: Uint8Array, maxBytes: number): Uint8Array {
  let end = Math.max(0, Math.min(bytes.length, maxBytes));
  // Step back to the start of the character that straddles the cut, then keep it only if complete.
  let start = end;
  while (start > 0 && start > end - 4 && isContinuationByte(bytes[start - 1] ?? 0)) start--;
  if (start > 0) {
    const lead = bytes[start - 1] ?? 0;
    if (!isContinuationByte(lead) && start - 1 + utf8SequenceLength(lead) > end) end = start - 1;
  }
  return bytes.subarray(0, end);
}

/** The longest suffix of `bytes` of at most `maxBytes` that does not start inside a multi-byte character. */
export function utf8Suffix(bytes: Uint8Array, maxBytes: number): Uint8Array {
  let start = Math.max(0, bytes.length - Math.max(0, maxBytes));
  while (start < bytes.length && isContinuationByte(bytes[start] ?? 0)) start++;
  return bytes.subarray(start);
}

/**
 * Collects a stream of text in bounded memory and yields a head+tail excerpt of at most
 * `maxBytes` (UTF-8 bytes, marker included). Memory stays near `maxBytes` whatever the input size.
 */
export class HeadTailBuffer {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly maxBytes: number) {
    if (!Number.isInteger(maxBytes) || maxBytes < MIN_EXCERPT_BYTES) {
      throw new RangeError(
        `excerpt size must be an integer of at least ${MIN_EXCERPT_BYTES} bytes, got ${maxBytes}`,
      );
    }
    const budget = maxBytes - MARKER_RESERVE;
    this.headCap = Math.floor(budget / 2);
    this.tailCap = budget - this.headCap;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: string | Uint8Array): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
    if (bytes.length === 0) return;
    this.total += bytes.length;
    let rest = bytes;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Until the input outgrows maxBytes everything must be kept (no marker needed); after that
    // only the last tailCap bytes matter. Dropping whole chunks keeps this cheap.
    const keep = Math.max(this.maxBytes - this.headCap, this.tailCap);
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= keep) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  result(): Excerpt {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.total <= this.maxBytes) {
      return { text: Buffer.concat([head, tail]).toString("utf8"), truncated: false, omittedBytes: 0 };
    }
    const headPart = Buffer.from(utf8Prefix(head, this.headCap)).toString("utf8");
    const tailPart = Buffer.from(utf8Suffix(tail, this.tailCap)).toString("utf8");
    const omittedBytes = this.total - Buffer.byteLength(headPart) - Buffer.byteLength(tailPart);
    const lead = headPart === "" || headPart.endsWith("\n") ? "" : "\n";
    return {
      text: `${headPart}${lead}${omittedMarker(omittedBytes)}\n${tailPart}`,
      truncated: true,
      omittedBytes,
    };
  }
}

/** Head and tail of `text` within `maxBytes` UTF-8 bytes, with `[... N bytes omitted ...]` between them. */
export function excerpt(text: string, maxBytes: number): Excerpt {
  const buffer = new HeadTailBuffer(maxBytes);
  buffer.push(text);
  return buffer.result();
}
