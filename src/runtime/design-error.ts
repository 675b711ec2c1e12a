import { MemsteerError } from '../errors.ts';
import type { FailureKind, StageFailure } from '../isolate/sandbox-api.ts';

/**
 * The design failed at run time: it did not load, or a stage threw, timed out, ran out of memory or returned
 * something malformed. `stage` and `kind` are the sandbox's own (see src/isolate/sandbox-api.ts); `reason`
 * is the design's message. The memory stays usable: a failed `add` keeps the previous records and memory.
 */
export class DesignError extends MemsteerError {
  readonly stage: StageFailure['stage'];
  readonly kind: FailureKind;
  readonly reason: string;

  constructor(failure: StageFailure, design: string) {
    super(`E_DESIGN_${failure.stage.toUpperCase()}`, `${design}: ${failure.stage} failed (${failure.kind}): ${failure.message}`);
    this.name = 'DesignError';
    this.stage = failure.stage;
    this.kind = failure.kind;
    this.reason = failure.message;
  }
}
