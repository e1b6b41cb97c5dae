/**
 * `node:http`'s exports, as CommonJS code sees them. An ES import of `node:http` builds the module's
 * namespace by reading every export, and Node (22 to 26) exports `WebSocket`, `CloseEvent` and
 * `MessageEvent` there as lazy getters that load undici, and with it http2, tls and worker threads:
 * about 10 MiB resident for a server that uses none of them. `process.getBuiltinModule` reads nothing.
 * Type-only imports of `node:http` load nothing and stay as they are.
 */
export const nodeHttp = process.getBuiltinModule('node:http')
