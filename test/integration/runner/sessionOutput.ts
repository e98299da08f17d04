// What one session prints. Alone, its lines go out as they come; beside other sessions they are
// held and printed together when it ends (flush), so each suite's report reads in one piece
// instead of line by line interleaved with another's.

export class SessionOutput {
  private held: { text: string; error: boolean }[] | undefined;

  constructor(hold: boolean) {
    this.held = hold ? [] : undefined;
  }

  /** A runner line: "[integration] …". */
  log(message: string): void {
    this.write(`[integration] ${message}`, false);
  }

  /** A line of the suite's own output, as it printed it. */
  line(text: string): void {
    this.write(text, false);
  }

  error(text: string): void {
    this.write(text, true);
  }

  /** Prints what was held, once; from then on lines go out as they come. */
  flush(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const { text, error } of held) {
      (error ? console.error : console.log)(text);
    }
  }

  private write(text: string, error: boolean): void {
    if (this.held) {
      this.held.push({ text, error });
    } else {
      (error ? console.error : console.log)(text);
    }
  }
}
