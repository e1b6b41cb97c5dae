/** A raw MCP `initialize` request (JSON-RPC over Streamable HTTP, no session), for `fetch`. */
export function initializeRequest(token: string, clientName: string): RequestInit {
  return {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: clientName, version: '1' },
      },
    }),
  }
}
