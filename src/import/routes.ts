import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { CSV_FIELDS, csvTemplate } from './csv.js'
import { importCsv } from './csv-import.js'

const errors = { '4xx': ErrorEnvelope }

/** Largest CSV body: about 50,000 people of an HR export. */
export const CSV_IMPORT_BODY_LIMIT = 16 * 1024 * 1024

const Counts = Type.Object({ created: Type.Integer(), updated: Type.Integer(), unchanged: Type.Integer() })

const CsvImportBody = Type.Object(
  {
    csv: Type.String({
      minLength: 1,
      maxLength: CSV_IMPORT_BODY_LIMIT,
      description: 'The CSV file: a header row, then one expert per row (docs/import.md, "CSV")',
    }),
    mapping: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Column header -> field (`""`: the column is not imported); columns left out are matched by their header',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        description: 'Check everything and count what would change, without writing anything (default false)',
      }),
    ),
  },
  { additionalProperties: false, title: 'CsvImportRequest' },
)

const CsvImportResult = Type.Object(
  {
    dry_run: Type.Boolean(),
    rows: Type.Integer({ description: 'Data rows of the file' }),
    columns: Type.Array(
      Type.Object({ column: Type.String(), field: Type.Union([Type.String(), Type.Null()]) }),
      { description: 'Each column of the file and the field it fills (null: not imported)' },
    ),
    fields: Type.Array(
      Type.Object({ field: Type.String(), description: Type.String(), required: Type.Boolean() }),
      { description: 'Every field a column may be mapped to' },
    ),
    preview: Type.Array(Type.Object({ row: Type.Integer(), cells: Type.Array(Type.String()) }), {
      description: 'The first rows as given',
    }),
    problems: Type.Array(
      Type.Object({
        row: Type.Union([Type.Integer(), Type.Null()], {
          description: 'As a spreadsheet numbers it (the header is row 1); null for the file or the mapping',
        }),
        column: Type.Union([Type.String(), Type.Null()]),
        field: Type.String(),
        message: Type.String(),
        key: Type.Optional(Type.String()),
      }),
      { description: 'Every problem (a dry run only: an import with problems answers 400)' },
    ),
    experts: Type.Union([Counts, Type.Null()], {
      description: 'What the import wrote, or would write (dry run); null when there are problems',
    }),
  },
  { title: 'CsvImportResult' },
)

/**
 * People in bulk (CONTRACT §19): a CSV of experts (an HR export) through the import of docs/import.md,
 * with a dry run for the dashboard's preview, and the template to fill.
 */
export async function importRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)

  app.post(
    '/v2/organization/:corporation/experts/import',
    {
      bodyLimit: CSV_IMPORT_BODY_LIMIT,
      schema: {
        operationId: 'importExpertsCsv',
        tags: ['experts'],
        summary: 'Import experts from a CSV file, all or nothing (or check it: dry_run)',
        description:
          'Each row is an expert, matched by its `key` column: a re-import updates and leaves unchanged rows alone. ' +
          'Every problem is reported by row and column, and nothing is written unless the whole file is right.',
        params: CorporationParams,
        body: CsvImportBody,
        response: { 200: Success(CsvImportResult), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const write = writeContextOf(request, context, request.params.corporation)
      const outcome = await importCsv(write, {
        csv: request.body.csv,
        ...(request.body.mapping ? { mapping: request.body.mapping } : {}),
        dryRun: request.body.dry_run ?? false,
      })
      return ok({ ...outcome, fields: CSV_FIELDS })
    },
  )

  app.get(
    '/v2/organization/:corporation/experts/import/template',
    {
      schema: {
        operationId: 'getExpertsCsvTemplate',
        tags: ['experts'],
        summary: 'A CSV template for the experts import: every field as a column, with one example row',
        params: CorporationParams,
        response: {
          200: { description: 'The template, text/csv', content: { 'text/csv': { schema: Type.String() } } },
          ...errors,
        },
      },
      config: { scope: 'read' },
    },
    async (_request, reply) => {
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="experts-template.csv"')
      return csvTemplate()
    },
  )
}
