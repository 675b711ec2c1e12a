/** The terminal as the CLI sees it; tests pass a capturing one. The library never touches this. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a TTY (progress bars only then). */
  readonly interactive: boolean;
  /** A command may set a non-zero exit code without throwing. */
  exitCode?: number;
}

let pipeGuard = false;

/**
 * A reader that stops early (`memsteer archive run | head`) closes the pipe. That is not our error and the rest of
 * the output is no longer wanted: end quietly instead of dying with an EPIPE stack trace.
 */
function endQuietlyOnClosedPipe(): void {
  if (pipeGuard) return;
  pipeGuard = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}

export function defaultIO(): CliIO {
  endQuietlyOnClosedPipe();
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
