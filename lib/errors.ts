// The one base class of every error the kit throws on purpose: a stable machine-readable `code`
// that callers switch on, and a message written for the person who has to act on it.

export class KitError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A command line or an options object the kit cannot use; the message names the option. */
export class UsageError extends KitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('usage', message, options);
  }
}
