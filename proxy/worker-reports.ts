// The live view's reads of a judge in a worker thread: the view reads a key's report at once, the
// worker answers later. Each report asked for is kept (a few pages' worth) and asked for again once its
// key changes; until the answer comes the view shows what it had, and hears the key again when it does.
import { Listeners } from '../lib/live/source.ts';
import type { JudgedKeyReport, WorkerReply } from './judge-messages.ts';

/** Reports kept for the view: a few pages of its 50 keys. */
const KEPT = 400;

export class WorkerReports {
  readonly #ask: (label: string) => Promise<WorkerReply>;
  readonly #kept = new Map<string, JudgedKeyReport>();
  /** Keys whose kept report is older than their last exchange. */
  readonly #stale = new Set<string>();
  /** Keys asked for and not answered yet. */
  readonly #asked = new Set<string>();
  /** Keys the judge said it no longer has (or never had), until they pass again. */
  readonly #gone = new Set<string>();
  readonly #refreshed = new Listeners();

  constructor(ask: (label: string) => Promise<WorkerReply>) {
    this.#ask = ask;
  }

  /** The key's report as last told, asking for a newer one when it changed since; undefined until first told. */
  get(label: string): JudgedKeyReport | undefined {
    if (this.#gone.has(label)) return undefined;
    const kept = this.#kept.get(label);
    if ((!kept || this.#stale.has(label)) && !this.#asked.has(label)) {
      this.#asked.add(label);
      void this.#ask(label).then((reply) => this.#answered(label, reply));
    }
    return kept;
  }

  /** Whether the key's report is on its way (then an undefined report does not mean the key is gone). */
  pending(label: string): boolean {
    return this.#asked.has(label) && !this.#kept.has(label);
  }

  changed(label: string): void {
    this.#gone.delete(label);
    if (this.#kept.has(label)) this.#stale.add(label);
  }

  /** `listener` hears a key whose report came. */
  subscribe(listener: (label: string) => void): () => void {
    return this.#refreshed.add(listener);
  }

  #answered(label: string, reply: WorkerReply): void {
    this.#asked.delete(label);
    this.#stale.delete(label);
    const report = reply.t === 'report' ? reply.report : undefined;
    this.#kept.delete(label);
    if (report) {
      this.#kept.set(label, report);
      if (this.#kept.size > KEPT) {
        const oldest = this.#kept.keys().next().value!;
        this.#kept.delete(oldest);
        this.#stale.delete(oldest);
      }
    } else {
      this.#gone.add(label);
      if (this.#gone.size > KEPT) this.#gone.delete(this.#gone.values().next().value!);
    }
    this.#refreshed.tell(label);
  }
}
