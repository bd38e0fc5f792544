// What the values of the kit's structured options become and must be: options.ts names these as an
// option's `convert` and `check`. Rules that relate two options, or need the catalogue (which the
// options sit below), stay in resolveOptions (run.ts).
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
