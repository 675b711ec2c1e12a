/** The terminal as the CLI sees it; tests pass a capturing one. The library never touches this. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a TTY (progress bars only then). */
  readonly interactive: boolean;
  /** A command may set a non-zero exit code without throwing. */
  exitCode?: number;
}

export function defaultIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    interactive: Boolean(process.stderr.isTTY) && !process.env.CI,
  };
}

/** Collects output in memory; for tests that call `main` directly. */
export function captureIO(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    interactive: false,
    out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
  };
  return io;
}
