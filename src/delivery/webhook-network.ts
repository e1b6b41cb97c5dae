import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { parseCidr } from '../config.js'

/**
 * Which addresses a webhook may reach. An organization's admin chooses the URL, and the service then
 * POSTs to it from inside the operator's network: without this, a webhook (and its test event) reaches
 * the service's own loopback, the cloud's metadata endpoint (169.254.169.254) and every private host.
 *
 * By default only public addresses are targets. Refused: loopback, "this network" / unspecified,
 * private (RFC 1918), carrier-grade NAT (100.64/10), link-local, unique-local (fc00::/7), site-local,
 * multicast, documentation, benchmarking and reserved ranges, and every IPv6 form that carries an IPv4
 * address (mapped, compatible, translated, NAT64, 6to4) whose IPv4 address is one of those. `localhost`
 * and `*.localhost` are loopback by name (RFC 6761), whatever a resolver says. A name is refused when
 * any of its addresses is.
 *
 * The check is made where the connection is made: the socket's `lookup` resolves the name, checks
 * every address and hands only checked addresses to the connect, so a name cannot resolve to a public
 * address for the check and to a private one for the connection (DNS rebinding). An IP literal needs
 * no lookup and is checked before the request.
 *
 * The operator may allow more: `EXPERTDIR_WEBHOOK_ALLOW_PRIVATE=1` allows every address (receivers on
 * this machine or the operator's network), `EXPERTDIR_WEBHOOK_ALLOW_NETWORKS` named ranges only.
 */

/** "a loopback", "an unspecified", "a unique-local": the kind with its article. */
const withArticle = (kind: string) => (/^[aeio]|^un(?!i)/.test(kind) ? `an ${kind}` : `a ${kind}`)

/** Resolves a host name to every address it has (`dns.lookup` with `all`); injectable for tests. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>

export interface WebhookNetwork {
  /** False when every address is allowed (`EXPERTDIR_WEBHOOK_ALLOW_PRIVATE`): no check, the system's lookup. */
  readonly guarded: boolean
  /** The kind of a refused IP address ("loopback", "private", ...); undefined when it may be reached. */
  refusal(address: string): string | undefined
  /** The socket's lookup: resolves, then fails with a `RefusedTarget` when any address is refused. */
  readonly lookup: LookupFunction
  /** Resolves a name as the socket's lookup does (without the check). */
  readonly resolve: Resolver
}

/** A webhook host that may not be reached; the message says why, without the host or its addresses. */
export class RefusedTarget extends Error {}

export interface WebhookNetworkSettings {
  webhookAllowPrivate?: boolean | undefined
  webhookAllowNetworks?: readonly string[] | undefined
}

const IPV4_RANGES: [kind: string, network: string, prefix: number][] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['carrier-grade NAT', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
]

const IPV6_RANGES: [kind: string, network: string, prefix: number][] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['reserved', '100::', 64],
  ['reserved', '64:ff9b:1::', 48],
  ['reserved', '2001::', 32],
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['reserved', '5f00::', 16],
  ['unique-local', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['site-local', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
]

/** One list per kind, so that a match can be named. */
function rangeLists(): [kind: string, list: BlockList][] {
  const lists = new Map<string, BlockList>()
  const add = (kind: string, network: string, prefix: number, family: 'ipv4' | 'ipv6') => {
    const list = lists.get(kind) ?? new BlockList()
    list.addSubnet(network, prefix, family)
    lists.set(kind, list)
  }
  for (const [kind, network, prefix] of IPV4_RANGES) add(kind, network, prefix, 'ipv4')
  for (const [kind, network, prefix] of IPV6_RANGES) add(kind, network, prefix, 'ipv6')
  return [...lists]
}

let ranges: [string, BlockList][] | undefined

/** The eight 16-bit groups of a valid IPv6 address (zone dropped, a final dotted quad folded in). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0] ?? ''
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.slice(1).map(Number)
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const left = head === '' ? [] : head.split(':')
  const right = tail === undefined || tail === '' ? [] : tail.split(':')
  const gap = tail === undefined ? 0 : 8 - left.length - right.length
  return [...left, ...Array<string>(gap).fill('0'), ...right].map((group) => Number.parseInt(group, 16))
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, translated, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address)
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0)
  const quad = (high: number | undefined = 0, low: number | undefined = 0) =>
    `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  if (zeros(0, 5) && g[5] === 0xffff) return quad(g[6], g[7]) // ::ffff:a.b.c.d
  if (zeros(0, 6) && (g[6] !== 0 || (g[7] ?? 0) > 1)) return quad(g[6], g[7]) // ::a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return quad(g[6], g[7]) // ::ffff:0:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6], g[7]) // 64:ff9b::a.b.c.d
  if (g[0] === 0x2002) return quad(g[1], g[2]) // 2002:aabb:ccdd::
  return undefined
}

/** The kind of a non-public IP address, or undefined for a public one. */
export function addressKind(address: string): string | undefined {
  const family = isIP(address)
  if (family === 0) return 'invalid'
  ranges ??= rangeLists()
  const type = family === 4 ? 'ipv4' : 'ipv6'
  const direct = ranges.find(([, list]) => list.check(address, type))?.[0]
  if (direct !== undefined || family === 4) return direct
  const inner = embeddedIpv4(address)
  return inner === undefined ? undefined : addressKind(inner)
}

/** `localhost` and every name under it are loopback (RFC 6761), with or without the final dot. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return name === 'localhost' || name.endsWith('.localhost')
}

/** The operator's allowed ranges (checked by `loadConfig`; checked again for settings built in code). */
function allowedNetworks(ranges: readonly string[]): BlockList {
  const list = new BlockList()
  for (const range of ranges) {
    const cidr = parseCidr(range)
    if (!cidr) throw new Error(`"${range}" is no address/prefix range`)
    list.addSubnet(cidr.address, cidr.prefix, cidr.family === 4 ? 'ipv4' : 'ipv6')
  }
  return list
}

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true })

/** The policy of the configuration; `resolve` replaces the system's resolver (tests). */
export function webhookNetwork(
  settings: WebhookNetworkSettings,
  resolve: Resolver = systemResolver,
): WebhookNetwork {
  const guarded = settings.webhookAllowPrivate !== true
  const allowed = allowedNetworks(settings.webhookAllowNetworks ?? [])
  const isAllowed = (address: string) => {
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6'
    if (allowed.check(address, type)) return true
    const inner = type === 'ipv6' ? embeddedIpv4(address) : undefined
    return inner !== undefined && allowed.check(inner, 'ipv4')
  }
  const refusal = (address: string) => {
    if (!guarded) return undefined
    const kind = addressKind(address)
    return kind === undefined || isAllowed(address) ? undefined : kind
  }

  const lookup: LookupFunction = (hostname, options: LookupOptions, callback) => {
    checkedAddresses(hostname, options).then(
      (addresses) => {
        const [first] = addresses
        if (options.all) callback(null, addresses)
        else if (first) callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }

  async function checkedAddresses(hostname: string, options: LookupOptions): Promise<LookupAddress[]> {
    const localKind = isLocalhostName(hostname) ? refusal('127.0.0.1') && refusal('::1') : undefined
    if (localKind) throw new RefusedTarget(`the host is ${withArticle(localKind)} name`)
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
    const addresses = (await resolve(hostname)).filter((address) => !family || address.family === family)
    if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' })
    const kind = addresses.map((address) => refusal(address.address)).find((found) => found)
    if (kind) throw new RefusedTarget(`the host resolves to ${withArticle(kind)} address`)
    return addresses
  }

  return { guarded, refusal, lookup, resolve }
}

/** The URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1')
}

/**
 * Why a URL's host may not be a webhook target when that needs no DNS (an IP literal, a `localhost`
 * name); undefined otherwise.
 */
export function literalRefusal(network: WebhookNetwork, url: URL): string | undefined {
  const host = hostOf(url)
  if (isIP(host) !== 0) {
    const kind = network.refusal(host)
    return kind && `the host is ${withArticle(kind)} address`
  }
  if (!isLocalhostName(host)) return undefined
  // Refused by name unless the operator allows one of its addresses; then the lookup checks each.
  const kind = network.refusal('127.0.0.1') && network.refusal('::1')
  return kind && `the host is ${withArticle(kind)} name`
}

/** How long a settings write waits for the name's addresses before it leaves the check to delivery. */
const WRITE_LOOKUP_MS = 3000

/**
 * The settings write's check: why the URL's host may not be a webhook target (an IP literal, a
 * `localhost` name, or a name that resolves to a refused address now); undefined when it may. A name
 * that does not resolve (yet) is accepted: every delivery checks again where it connects.
 */
export async function targetRefusal(network: WebhookNetwork, url: URL): Promise<string | undefined> {
  if (!network.guarded) return undefined
  const literal = literalRefusal(network, url)
  if (literal || isIP(hostOf(url)) !== 0) return literal
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<LookupAddress[]>((resolve) => {
    timer = setTimeout(() => resolve([]), WRITE_LOOKUP_MS)
  })
  try {
    const addresses = await Promise.race([network.resolve(hostOf(url)), timeout])
    const kind = addresses.map((address) => network.refusal(address.address)).find((found) => found)
    return kind && `the host resolves to ${withArticle(kind)} address`
  } catch {
    return undefined
  } finally {
    clearTimeout(timer)
  }
}
