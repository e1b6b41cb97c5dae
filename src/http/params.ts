import { Type } from 'typebox'

/** Route path parameters shared by the features' routes. */

/** What a `:username` path parameter may be. */
export const USERNAME_PATTERN = '^[a-z0-9-]{1,64}$'

/** `/v2/organization/:corporation/expert/:username` and the routes below it. */
export const ExpertParams = Type.Object({
  corporation: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Organization (corporation) ID',
    'x-message': 'must be a positive decimal integer (at most 2^53-1)',
  }),
  username: Type.String({
    pattern: USERNAME_PATTERN,
    description: 'Expert username',
    'x-message': 'must be a username: lowercase letters, digits and dashes',
  }),
})

/** Every route of one organization: `:corporation`. */
export const CorporationParams = Type.Object({ corporation: ExpertParams.properties.corporation })
