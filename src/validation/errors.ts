/** One offending field and what is wrong with it. */
export interface FieldIssue {
  field: string
  message: string
}

/**
 * A value breaks a rule of the validation layer. The layer knows no HTTP: the error handler answers
 * this as `validation_failed` with `issues` as its details (src/http/error-handler.ts).
 */
export class InvalidFields extends Error {
  constructor(readonly issues: FieldIssue[]) {
    super(`Invalid ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`)
    this.name = 'InvalidFields'
  }
}
