/**
 * Splits streamed text into lines with no length limit (JSON event streams can carry a
 * multi-megabyte line). A trailing "\r" is dropped; the last unterminated line comes out of end().
 */
export class LineSplitter {
  private pending = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(text: string): void {
    let start = 0;
    let newline = text.indexOf("\n");
    if (newline < 0) {
      this.pending += text;
      return;
    }
    let line = this.pending + text.slice(0, newline);
    this.pending = "";
    while (newline >= 0) {
      this.emit(line);
      start = newline + 1;
      newline = text.indexOf("\n", start);
      if (newline >= 0) line = text.slice(start, newline);
    }
    this.pending = text.slice(start);
  }

  end(): void {
    if (this.pending !== "") this.emit(this.pending);
    this.pending = "";
  }

  private emit(line: string): void {
    this.onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
  }
}
