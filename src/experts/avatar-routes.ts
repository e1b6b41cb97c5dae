import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { deleteAvatar, setAvatar } from '../media/avatar.js'
import { readUpload } from '../media/upload.js'
import { mediaWriteContextOf, registerUploadScope, type Uploads, uploadBody } from '../media/uploads.js'
import { profileCondition } from '../profiles/preconditions.js'
import { AvatarOutput } from '../profiles/read-sections.js'
import { IfMatchHeaders } from './schemas.js'

const errors = { '4xx': ErrorEnvelope }

const FocusQuery = Type.Object(
  {
    focus_x: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Crop centre, as a fraction of the width (0 left, 1 right)',
        'x-message': 'must be a number from 0 to 1',
      }),
    ),
    focus_y: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: 'Crop centre, as a fraction of the height (0 top, 1 bottom)',
        'x-message': 'must be a number from 0 to 1',
      }),
    ),
  },
  { additionalProperties: false },
)

const AvatarAnswer = Type.Object({ avatar: AvatarOutput }, { title: 'AvatarStored' })

/**
 * An expert's photo (CONTRACT §16): the upload in a scope of its own with the upload body parsers
 * (src/media/uploads.ts), the delete beside it. The images are made by src/media/avatar.ts.
 */
export async function expertAvatarRoutes(untyped: FastifyInstance, uploads: Uploads): Promise<void> {
  const { limit, media } = uploads

  await untyped.register(async (scope) => {
    await registerUploadScope(scope, uploads)
    typedRoutes(scope).put(
      '/v2/organization/:corporation/expert/:username/avatar',
      {
        schema: {
          operationId: 'setExpertAvatar',
          tags: ['photos and files'],
          summary: "Upload an expert's photo: a JPEG, PNG or WebP of at least 200x200 pixels",
          params: ExpertParams,
          headers: IfMatchHeaders,
          querystring: FocusQuery,
          body: uploadBody(
            'PhotoUpload',
            ['image/jpeg', 'image/png', 'image/webp'],
            'the photo (JPEG, PNG or WebP)',
          ),
          response: { 200: Success(AvatarAnswer), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request, reply) => {
        const upload = await readUpload(request, limit, ['jpeg', 'png', 'webp'], 'a JPEG, PNG or WebP image')
        const { focus_x: x, focus_y: y } = request.query
        const focus = x === undefined && y === undefined ? undefined : { x: x ?? 0.5, y: y ?? 0.5 }
        const { corporation, username } = request.params
        return ok({
          avatar: await setAvatar(
            mediaWriteContextOf(request, media, corporation),
            username,
            upload.bytes,
            focus,
            profileCondition(request, reply, corporation, 'expert', username),
          ),
        })
      },
    )
  })

  typedRoutes(untyped).delete(
    '/v2/organization/:corporation/expert/:username/avatar',
    {
      schema: {
        operationId: 'deleteExpertAvatar',
        tags: ['photos and files'],
        summary: "Delete an expert's photo and its files",
        params: ExpertParams,
        headers: IfMatchHeaders,
        response: { 200: Success(AvatarAnswer), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      await deleteAvatar(
        mediaWriteContextOf(request, media, corporation),
        username,
        profileCondition(request, reply, corporation, 'expert', username),
      )
      return ok({ avatar: { s: {}, m: {}, o: {}, l: {} } })
    },
  )
}
