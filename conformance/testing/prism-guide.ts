// Writes anew the `<!-- run: prism-full -->` block of conformance/README.md, a transcript of real
// runs against Prism (FAIL rows cut after the check id); prism.test.ts fails when the guide differs.
//   npx tsx conformance/testing/prism-guide.ts --write
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KitError } from '../../lib/errors.ts';
import { main } from '../cli.ts';
import { isEntryPoint } from '../../lib/entry.ts';
import { startMock } from '../mock.ts';

export const GUIDE = 'conformance/README.md';
export const BLOCK_ID = 'prism-full';
/** Where the guide's lines say Prism is (`npm run mock`); a run substitutes the Prism it started. */
export const GUIDE_ORIGIN = 'http://127.0.0.1:4010';

const root = fileURLToPath(new URL('../..', import.meta.url));
const COMMAND = '$ npm run conform -- ';

/** The guide's transcript does not have the form this module writes. */
export class TranscriptError extends KitError {
  constructor(message: string) {
    super('transcript', message);
  }
}

/** The arguments of each `$ npm run conform -- …` line of a transcript (plain words: no quoting). */
export function transcriptCommands(block: string): string[][] {
  const lines = block.split('\n').filter((line) => line.startsWith('$ '));
  if (lines.length === 0) throw new TranscriptError(`the ${BLOCK_ID} block of ${GUIDE} has no "${COMMAND}…" line`);
  return lines.map((line) => {
    if (!line.startsWith(COMMAND)) throw new TranscriptError(`${JSON.stringify(line)} is not a "${COMMAND}…" line`);
    return line.slice(COMMAND.length).trim().split(/\s+/);
  });
}

/** What the transcript keeps of a run's output: its FAIL rows cut after the id, and the verdict. */
export function keptOf(output: string): string[] {
  const rows = output.split('\n').flatMap((line) => {
    const row = /^ {2}FAIL {2}(\S+)\s+(\S+)/.exec(line);
    return row ? [`FAIL  ${row[1]!.padEnd(6)}  ${row[2]}`] : [];
  });
  const verdict = /; ([A-Z ]+ \(exit \d\))\n*$/.exec(output)?.[1];
  return [...rows, verdict ?? `no verdict: ${output.trim().split('\n').at(-1) ?? ''}`];
}

/** The transcript the guide's lines give against the Prism at `origin`, in the guide's words. */
export async function transcript(block: string, origin: string): Promise<string> {
  const parts: string[] = [];
  for (const argv of transcriptCommands(block)) {
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t) };
    await main(
      argv.map((word) => word.replace(GUIDE_ORIGIN, origin)),
      io,
    );
    parts.push([`${COMMAND}${argv.join(' ')}`, ...keptOf(out.join(''))].join('\n'));
  }
  return parts.join('\n\n');
}

/** Where the body of the transcript block is in the guide: [start, end) offsets. */
function located(guide: string): [number, number] {
  const marker = `<!-- run: ${BLOCK_ID} -->\n`;
  const at = guide.indexOf(marker);
  if (at < 0 || !guide.startsWith('```', at + marker.length)) throw new TranscriptError(`${GUIDE} has no ${marker.trim()} right above a fenced block`);
  const start = guide.indexOf('\n', at + marker.length) + 1;
  const end = guide.indexOf('\n```', start);
  if (end < 0) throw new TranscriptError(`the ${BLOCK_ID} block of ${GUIDE} is not closed`);
  return [start, end];
}

/** The body of the transcript block as the guide has it. */
export function guideTranscript(guide: string): string {
  const [start, end] = located(guide);
  return guide.slice(start, end);
}

/** The guide with the body of its transcript block replaced. */
export function withTranscript(guide: string, body: string): string {
  const [start, end] = located(guide);
  return `${guide.slice(0, start)}${body}${guide.slice(end)}`;
}

if (isEntryPoint(import.meta.url)) {
  if (process.argv[2] !== '--write') {
    process.stderr.write("Usage: npx tsx conformance/testing/prism-guide.ts --write (starts Prism, runs the guide's lines, rewrites the block)\n");
    process.exitCode = 2;
  } else {
    const path = join(root, GUIDE);
    const guide = await readFile(path, 'utf8');
    const mock = await startMock({ port: 0 });
    try {
      await writeFile(path, withTranscript(guide, await transcript(guideTranscript(guide), mock.url)));
      process.stdout.write(`wrote the ${BLOCK_ID} block of ${GUIDE}\n`);
    } finally {
      await mock.stop();
    }
  }
}
