// k6 provides console in every script; @types/k6 does not declare it. Declared in the shape
// @types/node uses, so the repository's root TypeScript project (which also sees this file) merges.
interface Console {
  log(...data: any[]): void;
  info(...data: any[]): void;
  warn(...data: any[]): void;
  error(...data: any[]): void;
  debug(...data: any[]): void;
}
declare var console: Console;
