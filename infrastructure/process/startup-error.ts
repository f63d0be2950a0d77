/**
 * The process cannot start for a reason its operator must fix, not a bug (an unwritable DATA_DIR, say):
 * run-process prints the message as one line, without a stack, and exits with `exitCode`.
 */
export class StartupError extends Error {
  readonly kind = 'startup-error';
  /** 73, EX_CANTCREAT of sysexits.h, unless told otherwise. */
  readonly exitCode: number;
  constructor(message: string, { exitCode = 73 }: { exitCode?: number } = {}) {
    super(message);
    this.exitCode = exitCode;
  }
}
