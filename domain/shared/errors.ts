/** A rule of the domain said no. `kind` is what callers switch on; the message is for humans. */
export abstract class DomainError extends Error {
  abstract readonly kind: string;
}

export type FieldViolation = { field: string; message: string };

/** The command is well-formed but breaks an invariant of the aggregate (for example an empty order). */
export class InvariantViolationError extends DomainError {
  readonly kind = 'invariant-violated';
  readonly violations: readonly FieldViolation[];
  constructor(violations: readonly FieldViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.message}`).join('; '));
    this.violations = violations;
  }
}
