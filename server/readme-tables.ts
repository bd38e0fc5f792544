// The server guide's generated tables: the command-line options (from SERVE_OPTIONS) and the error
// codes (from the ERRORS registry). scripts/generate.ts writes them; a test keeps them current.
import { markdownTable } from '../lib/cli-options.ts';
import { SERVE_OPTIONS } from './serve-options.ts';
import { ERRORS } from './errors.ts';

export const SERVER_GUIDE = new URL('./README.md', import.meta.url);

export function errorCodeTable(): string {
  const rows = Object.entries(ERRORS).map(([code, { status, when }]) => `| ${status} | \`${code}\` | ${when} |`);
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}

/** Every generated block of server/README.md, by block name. */
export function serverGuideBlocks(): Record<string, string> {
  return { 'serve-options': markdownTable(SERVE_OPTIONS), 'error-codes': errorCodeTable() };
}
