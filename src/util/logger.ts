/** Where plain-Node modules write their log lines: matches VS Code's LogOutputChannel, so the extension passes its channel straight in. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
