import type { AppContext } from '../app-context.js'
import type { DelegationCheck, InquiryRecipient, PrincipalResolver } from './bearer.js'
import type { FailureLimit } from './failure-limit.js'
import type { Lockout } from './lockout.js'

/** What authentication needs beyond the app's infrastructure: token resolution and its limits. */
export interface AuthContext extends AppContext {
  readonly principals: PrincipalResolver
  /** The reach check of expert-limited tokens: whom an inquiry was sent to. */
  readonly inquiryRecipient: InquiryRecipient
  /** Whether a person holds a live grant on a profile as its delegate (CONTRACT §21). */
  readonly delegation: DelegationCheck
  /** Consecutive bad client secrets per (client id, IP). */
  readonly lockout: Lockout
  /** Failed client authentications per address and minute, whatever the client id. */
  readonly authFailures: FailureLimit
}
