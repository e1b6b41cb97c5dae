import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type TextContent,
} from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import type { FastifyBaseLogger } from 'fastify'
import { insufficientScope } from '../auth/bearer.js'
import { grants } from '../auth/scopes.js'
import type { ApiError } from '../errors.js'
import { toApiError } from '../http/error-handler.js'
import { type McpTool, TOOLS, type ToolCall } from './tools.js'

const INSTRUCTIONS =
  "This server is an organization's expert directory. Find experts with search_experts (free text and " +
  'facets) and read one with get_expert; find_experts_for_text finds experts for a press release, an ' +
  'abstract or a question, and similar_experts finds experts like one expert, with the reasons. ' +
  'search_posts and search_questions find its articles and Q&A. ' +
  'send_inquiry contacts an expert: use it only when the user asks to, with their own details.'

/**
 * The SDK's JSON Schema validator (for what clients send back to a server, which this one never asks
 * for), made once: each `Server` otherwise builds its own Ajv instance, which costs more than the rest
 * of a request.
 */
const schemaValidator = new AjvJsonSchemaValidator()

/** The tools a token may call: the others are not listed (and refused if called anyway). */
export function toolsFor(call: ToolCall): McpTool[] {
  return TOOLS.filter((tool) => grants(call.principal.scopes, tool.scope))
}

/**
 * A refusal the caller can act on, as a tool result (`isError`), so that an assistant reads it and can
 * correct its arguments: the API's message, then each offending field.
 */
function toolError(error: ApiError): CallToolResult {
  const fields = (error.details ?? []).map((detail) => `\n- ${detail.field}: ${detail.message}`).join('')
  return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}${fields}` }] }
}

const textBlock = (text: string): TextContent => ({ type: 'text', text })

async function callTool(tool: McpTool, call: ToolCall, args: unknown, log: FastifyBaseLogger) {
  if (!grants(call.principal.scopes, tool.scope)) return toolError(insufficientScope(tool.scope))
  try {
    const { text, structured, summary } = await tool.call(call, args)
    // The JSON block stays, as the protocol asks of a tool with structured content; a summary comes first.
    const content = summary === undefined ? [textBlock(text)] : [textBlock(summary), textBlock(text)]
    return { content, structuredContent: structured }
  } catch (error) {
    const refusal = error instanceof Error ? toApiError(error) : undefined
    if (refusal && refusal.code !== 'internal_error') return toolError(refusal)
    log.error({ err: error, tool: tool.definition.name }, 'tool call failed')
    // No stack trace or SQL text reaches a client: the request id is in the response headers.
    throw new McpError(
      ErrorCode.InternalError,
      'Something went wrong on our side. Quote the X-Request-Id response header if you report it.',
    )
  }
}

/**
 * The MCP server of one HTTP request (stateless: nothing outlives the request), acting for the bearer
 * token's principal in its organization. It answers `initialize`, `ping`, `tools/list` and
 * `tools/call`; any other method is JSON-RPC's -32601.
 */
export function mcpServer(call: ToolCall, log: FastifyBaseLogger): Server {
  const server = new Server(
    { name: 'expertdir', title: 'Expert directory', version: '2' },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: schemaValidator,
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolsFor(call).map((tool) => tool.definition),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((candidate) => candidate.definition.name === request.params.name)
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no tool "${request.params.name}": call one that tools/list names.`,
      )
    }
    return callTool(tool, call, request.params.arguments ?? {}, log)
  })
  return server
}
