import { Type } from 'typebox'
import { ROLES } from '../auth/roles.js'
import { MAX_PASSWORD_LENGTH } from '../people/passwords.js'
import { Email } from '../validation/text.js'

const Password = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_PASSWORD_LENGTH,
    description,
    'x-message': `must be a text of at most ${MAX_PASSWORD_LENGTH} characters`,
  })

const LinkToken = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The token from the fragment of the emailed link (`#token=...`)',
})

export const SignIn = Type.Object(
  { email: Email('Sign-in email'), password: Password('The password') },
  { additionalProperties: false, title: 'SignIn' },
)

export const PasswordChange = Type.Object(
  {
    current_password: Password('The password in use now'),
    new_password: Password('At least 12 characters, not a common password'),
  },
  { additionalProperties: false, title: 'PasswordChange' },
)

export const ResetRequest = Type.Object(
  { email: Email('The email of the account') },
  { additionalProperties: false, title: 'PasswordResetRequest' },
)

export const LinkUse = Type.Object(
  { token: LinkToken, password: Password('The new password: at least 12 characters, not a common password') },
  { additionalProperties: false, title: 'LinkUse' },
)

export const EmptyBody = Type.Object({}, { additionalProperties: false, title: 'EmptyBody' })

export const Me = Type.Object(
  {
    id: Type.Integer(),
    organization: Type.Integer({ description: 'The organization id (`:corporation`)' }),
    email: Type.String(),
    name: Type.String(),
    role: Type.Enum(ROLES),
    expert: Type.Union([Type.String(), Type.Null()], {
      description: 'For the expert role: the username of its expert',
    }),
    scope: Type.String({ description: 'What the bearer tokens of POST /auth/token hold, space-separated' }),
    password_change_required: Type.Boolean({
      description: 'The password was generated: change it (POST /auth/password) before anything else',
    }),
    session_expires_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SignedInPerson' },
)

export const DashboardToken = Type.Object(
  {
    access_token: Type.String({ description: 'A bearer token for /v2, valid while the session lives' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds' }),
    scope: Type.String(),
    organization: Type.Integer(),
  },
  { title: 'DashboardToken' },
)

export const Done = Type.Object({ done: Type.Literal(true) }, { title: 'Done' })
