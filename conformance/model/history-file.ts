// A shrunk failing history as a file `conform --replay` sends again, and as the short table the
// reports print. The file holds the program (credentials by role and spelling, never a key), the
// finding, and what was seen, times relative to the first request.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/errors.ts';
import type { Exchange } from '../../judge/exchange.ts';
import type { Sent } from './execute.ts';
import { describeCredentials, type Program, type Step } from './program.ts';

export const HISTORY_FORMAT = 'adoption-store-kit/model-history@1';

export interface HistoryFile {
  format: typeof HISTORY_FORMAT;
  seed: number;
  check: string;
  finding: string;
  program: Program;
  /** What each step met when it was recorded: "201", "skipped: ..."; times in ms from the first request sent. */
  seen: Array<{ step: number; round: number; client: number; request: string; answer: string; sentMs?: number; receivedMs?: number }>;
}

function requestLine(step: Step, exchange: Exchange | undefined): string {
  if (exchange) {
    const url = new URL(exchange.request.url);
    return `${exchange.request.method} ${url.pathname}${url.search}`;
  }
  const r = step.request;
  return r.op === 'create' ? 'POST /pets' : r.op === 'next' ? `GET (next page of walk ${r.walk})` : r.op === 'list' ? 'GET /pets' : 'GET /pets/{id}';
}

/** What was seen of each step, in rounds, as the file and the table keep it. */
export function seenRows(program: Program, sent: readonly Sent[]): HistoryFile['seen'] {
  const byStep = new Map(sent.map((s) => [s.step.id, s]));
  const start = Math.min(...sent.filter((s) => s.exchange).map((s) => s.exchange!.sentAt));
  return program.rounds.flatMap((round, r) =>
    round.map((step) => {
      const s = byStep.get(step.id);
      const ex = s?.exchange;
      const answer = ex ? (ex.response ? String(ex.response.status) : `no answer (${ex.error ?? 'failed'})`) : `skipped: ${s?.skipped ?? 'not sent'}`;
      return {
        step: step.id,
        round: r + 1,
        client: step.client,
        request: `${requestLine(step, ex)} as ${describeCredentials(step.credentials)}: ${step.label}`,
        answer,
        ...(ex ? { sentMs: ex.sentAt - start, receivedMs: ex.receivedAt - start } : {}),
      };
    }),
  );
}

/** The rows as a plain-text table: round, client, step, request, answer, when. */
export function historyTable(rows: HistoryFile['seen']): string {
  const cells = rows.map((r) => [
    String(r.round),
    String(r.client),
    String(r.step),
    r.request,
    r.answer,
    r.sentMs === undefined ? '' : `${r.sentMs}-${r.receivedMs} ms`,
  ]);
  const head = ['round', 'client', 'step', 'request', 'answer', 'sent-answered'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...cells.map(line)].join('\n');
}

export function saveHistory(dir: string, file: HistoryFile): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${file.seed}-${file.check}.json`);
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  return path;
}

/** Reads a saved history; a file that is not one is a usage error naming what is wrong. */
export function loadHistory(path: string): HistoryFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--replay ${path}: ${(error as Error).message}`);
  }
  const file = parsed as Partial<HistoryFile> | null;
  if (!file || file.format !== HISTORY_FORMAT || !file.program || !Array.isArray(file.program.rounds))
    throw new UsageError(`--replay ${path} is not a history the model phase saved (format ${HISTORY_FORMAT})`);
  return file as HistoryFile;
}
