/**
 * Every error memsteer raises on purpose. `code` is stable (scripts and tests match on it); the message says
 * what went wrong, where (file, line), and what to do about it. The CLI prints `memsteer: <code>: <message>`
 * and exits non-zero.
 */
export class MemsteerError extends Error {
  readonly code: string;
  /** File the problem is in, when there is one. */
  readonly file: string | undefined;
  /** 1-based line in `file`, when known. */
  readonly line: number | undefined;

  constructor(code: string, message: string, options: { file?: string; line?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemsteerError';
    this.code = code;
    this.file = options.file;
    this.line = options.line;
  }
}

/** A history source could not be read: missing file, unknown format, malformed content, unknown `#history`. */
export class InputError extends MemsteerError {
  constructor(code: string, message: string, options: { file?: string; line?: number; cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'InputError';
  }
}

/** Configuration (CLI flags, config file, environment) is missing or contradictory. */
export class ConfigError extends MemsteerError {
  constructor(code: string, message: string, options: { file?: string; cause?: unknown } = {}) {
    super(code, message, options);
    this.name = 'ConfigError';
  }
}

/** Formats a zod issue list as one line a user can act on. */
export function describeZodIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return (
    issues
      .slice(0, 3)
      .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
      .join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '')
  );
}
