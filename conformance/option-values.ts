// What the values of the kit's structured options become and must be: options.ts names these as an
// option's `convert` and `check`. Rules that relate two options, or need the catalogue (which the
// options sit below), stay in resolveOptions (run.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../lib/errors.ts';
import { OPTIONAL_PHASES, type OptionalPhase } from '../judge/phases.ts';
import { parseChoices, type Choices } from './open-points.ts';

export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--base-url ${JSON.stringify(value)} is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '--base-url must be http:// or https://';
  if (url.search || url.hash) return '--base-url must not carry a query or fragment';
  return undefined;
}

/** `--header` values ("Name: value", taken whole: a value may hold commas) as a record by lower-case name. */
export function headersOf(values: readonly string[], from: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/.exec(value);
    if (!m) throw new UsageError(`${from} ${JSON.stringify(value)} is not "Name: value"`);
    // Refused under the name as written, before it is lower-cased.
    const problem = headersProblem({ [m[1]!]: m[2]! });
    if (problem !== undefined) throw new UsageError(problem);
    headers[m[1]!.toLowerCase()] = m[2]!.trim();
  }
  return headers;
}

/** The headers the kit sets itself cannot be given. */
export function headersProblem(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (['authorization', 'host', 'content-length', 'transfer-encoding'].includes(lower))
      return `--header cannot set ${name}: the kit sets it${lower === 'authorization' ? ' (use --api-key)' : ''}`;
  }
  return undefined;
}

/** The PEM certificates of --ca, read once where the option enters. */
export function readCa(file: string, from = '--ca'): string {
  let ca: string;
  try {
    ca = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new UsageError(`${from} ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`${from} ${file} holds no PEM certificate`);
  return ca;
}

/** `--phases`: a list of phases, or "none" for only the fixed checks. */
export function phasesOf(list: readonly string[]): readonly OptionalPhase[] {
  return (list.length === 1 && list[0] === 'none' ? [] : list) as readonly OptionalPhase[];
}

export function phasesProblem(phases: readonly string[]): string | undefined {
  const unknown = phases.filter((p) => !(OPTIONAL_PHASES as readonly string[]).includes(p));
  if (unknown.length === 0) return undefined;
  return `--phases must name some of ${OPTIONAL_PHASES.join(', ')} (or none), not ${unknown.join(', ')}`;
}

/** `--choice`: a record by open point; parseChoices refuses a point or a value it does not know. */
export function choicesProblem(choices: Readonly<Record<string, string>>): string | undefined {
  parseChoices(Object.entries(choices).map(([point, value]) => `${point}=${value}`));
  return undefined;
}

export const choicesOf = (values: readonly string[]): Choices => parseChoices(values);

/** A path on the command line, relative to where the command ran. */
export const pathOf = (value: string): string => resolve(value);

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
/** Bounds of --max-body: below 1 KiB no list of pets fits; above 256 MiB the text of a body may pass a string's maximum length. */
export const MAX_BODY_RANGE = { min: 1024, max: 256 * 1024 ** 2 } as const;

/** `--max-body`: bytes, or a number with KiB, MiB or GiB ("8MiB", "512 KiB"). */
export function sizeOf(value: string, from: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new UsageError(`${from} ${JSON.stringify(value)} is not a size: bytes, or a number with KiB, MiB or GiB (8MiB)`);
  return Math.floor(Number(m[1]) * unit);
}

export function maxBodyProblem(bytes: number): string | undefined {
  if (!Number.isInteger(bytes)) return `--max-body must be a whole number of bytes, not ${JSON.stringify(bytes)}`;
  if (bytes < MAX_BODY_RANGE.min || bytes > MAX_BODY_RANGE.max)
    return `--max-body must be between 1 KiB and 256 MiB (${MAX_BODY_RANGE.min} to ${MAX_BODY_RANGE.max} bytes), not ${bytes}`;
  return undefined;
}
