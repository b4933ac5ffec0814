import { isIP } from "node:net"
import ipaddr from "ipaddr.js"

/** A block of addresses the guard never connects to. */
export interface RefusedRange {
  /** The block in CIDR notation, as the registry writes it. */
  readonly range: string
  /** How a refusal names it: "<address> is <name>". */
  readonly name: string
  /** The registry entry or RFC behind it, and what reaching it would mean. */
  readonly why: string
  /** Reachable under the guard's loopback allowance (tests, local development). */
  readonly loopback?: true
}

/**
 * Every address that is not globally routable, from IANA's IPv4 and IPv6 Special-Purpose Address
 * Registries (every entry, whatever its "globally reachable" flag: a protocol's anycast or sink is
 * never a webhook receiver or a media host) and Address Space Registries (multicast, 240/4, and
 * all of IPv6 outside 2000::/3), plus the cloud metadata addresses. The most specific block
 * containing an address names it; an address in no block is public.
 *
 * The forms that carry an IPv4 address inside an IPv6 one (mapped, compatible, NAT64, 6to4,
 * Teredo) are refused whole rather than judged by the address they carry: a translator or relay
 * on the way decides where they really go.
 */
export const refusedRanges: ReadonlyArray<RefusedRange> = [
  // IPv4 Special-Purpose Address Registry
  { range: "0.0.0.0/8", name: "a \"this network\" address", why: "RFC 791: a source address only; Linux connects 0.0.0.0 to the host itself" },
  { range: "0.0.0.0/32", name: "the unspecified address", why: "RFC 1122: \"this host\"; connecting to it reaches the host itself" },
  { range: "10.0.0.0/8", name: "a private address", why: "RFC 1918 private use" },
  { range: "100.64.0.0/10", name: "a carrier-grade NAT address", why: "RFC 6598 shared address space, inside a provider's network" },
  { range: "127.0.0.0/8", name: "a loopback address", why: "RFC 1122: the host itself", loopback: true },
  { range: "169.254.0.0/16", name: "a link-local address", why: "RFC 3927: the local link only" },
  { range: "169.254.169.254/32", name: "the cloud metadata address", why: "the instance metadata service (AWS, GCP, Azure): credentials" },
  { range: "172.16.0.0/12", name: "a private address", why: "RFC 1918 private use" },
  {
    range: "192.0.0.0/24",
    name: "an IETF protocol assignment",
    why: "RFC 6890: DS-Lite, the dummy address, PCP and TURN anycast, NAT64 discovery (RFC 6333, 7600, 7723, 8155, 8880)"
  },
  { range: "192.0.2.0/24", name: "a documentation address", why: "RFC 5737 TEST-NET-1" },
  { range: "192.31.196.0/24", name: "an AS112 address", why: "RFC 7535: a sink for stray reverse DNS queries" },
  { range: "192.52.193.0/24", name: "an AMT relay address", why: "RFC 7450 multicast tunnelling anycast" },
  { range: "192.88.99.0/24", name: "a 6to4 relay address", why: "RFC 7526: the deprecated 6to4 relay anycast" },
  { range: "192.168.0.0/16", name: "a private address", why: "RFC 1918 private use" },
  { range: "192.175.48.0/24", name: "an AS112 address", why: "RFC 7534: a sink for stray reverse DNS queries" },
  { range: "198.18.0.0/15", name: "a benchmarking address", why: "RFC 2544 device testing" },
  { range: "198.51.100.0/24", name: "a documentation address", why: "RFC 5737 TEST-NET-2" },
  { range: "203.0.113.0/24", name: "a documentation address", why: "RFC 5737 TEST-NET-3" },
  { range: "240.0.0.0/4", name: "a reserved address", why: "RFC 1112: reserved for future use" },
  { range: "255.255.255.255/32", name: "the broadcast address", why: "RFC 919 limited broadcast" },
  // IPv4 Address Space Registry
  { range: "224.0.0.0/4", name: "a multicast address", why: "RFC 5771 multicast" },

  // IPv6 Special-Purpose Address Registry
  { range: "::/128", name: "the unspecified address", why: "RFC 4291: connecting to it reaches the host itself" },
  { range: "::1/128", name: "a loopback address", why: "RFC 4291: the host itself", loopback: true },
  {
    range: "::ffff:0:0/96",
    name: "an IPv4-mapped address",
    why: "RFC 4291 §2.5.5.2: a socket connects to the IPv4 address in the low 32 bits"
  },
  { range: "64:ff9b::/96", name: "a NAT64 address", why: "RFC 6052: a NAT64 gateway connects to the IPv4 address in the low 32 bits" },
  { range: "64:ff9b:1::/48", name: "a NAT64 address", why: "RFC 8215: local-use IPv4/IPv6 translation" },
  { range: "100::/64", name: "a discard-only address", why: "RFC 6666: remotely triggered black holes" },
  { range: "100:0:0:1::/64", name: "a dummy address", why: "RFC 9780: a placeholder prefix, never routed" },
  {
    range: "2001::/23",
    name: "an IETF protocol assignment",
    why: "RFC 2928: Teredo, PCP, TURN and DNS-SD anycast, benchmarking, AMT, AS112, ORCHID, drone ids"
  },
  { range: "2001::/32", name: "a Teredo address", why: "RFC 4380: tunnels to an IPv4 address carried in the low 32 bits" },
  { range: "2001:2::/48", name: "a benchmarking address", why: "RFC 5180 device testing" },
  { range: "2001:10::/28", name: "an ORCHID address", why: "RFC 4843: deprecated cryptographic identifiers, not locators" },
  { range: "2001:20::/28", name: "an ORCHID address", why: "RFC 7343: cryptographic identifiers, not locators" },
  { range: "2001:db8::/32", name: "a documentation address", why: "RFC 3849" },
  { range: "2002::/16", name: "a 6to4 address", why: "RFC 3056: relays to the IPv4 address in bits 16 to 47" },
  { range: "2620:4f:8000::/48", name: "an AS112 address", why: "RFC 7534: a sink for stray reverse DNS queries" },
  { range: "3fff::/20", name: "a documentation address", why: "RFC 9637" },
  { range: "5f00::/16", name: "an SRv6 segment identifier", why: "RFC 9602: segment routing inside one domain" },
  { range: "fc00::/7", name: "a private (unique local) address", why: "RFC 4193 unique local addresses" },
  { range: "fd00:ec2::254/128", name: "the cloud metadata address", why: "the AWS instance metadata service over IPv6: credentials" },
  { range: "fe80::/10", name: "a link-local address", why: "RFC 4291: the local link only" },
  {
    range: "::/96",
    name: "an IPv4-compatible address",
    why: "RFC 4291 §2.5.5.1: deprecated; some stacks tunnel to the IPv4 address in the low 32 bits"
  },
  // IPv6 Address Space Registry: global unicast is 2000::/3; the rest is special or reserved.
  { range: "::/8", name: "a reserved address", why: "RFC 4291: reserved by the IETF" },
  { range: "fec0::/10", name: "a site-local address", why: "RFC 3879: deprecated site-local, private in practice" },
  { range: "ff00::/8", name: "a multicast address", why: "RFC 4291 multicast" },
  { range: "::/3", name: "not a global unicast address", why: "IANA: only 2000::/3 is allocated for global unicast" },
  { range: "4000::/2", name: "not a global unicast address", why: "IANA: only 2000::/3 is allocated for global unicast" },
  { range: "8000::/1", name: "not a global unicast address", why: "IANA: only 2000::/3 is allocated for global unicast" }
]

// Most specific first, so the first block that contains an address is the one that names it.
const blocks = refusedRanges
  .map((row) => ({ row, cidr: ipaddr.parseCIDR(row.range) }))
  .sort((a, b) => b.cidr[1] - a.cidr[1])

/**
 * ipaddr.js reads "::a.b.c.d" as the IPv4-mapped "::ffff:a.b.c.d"; written in hex groups (and
 * without a zone, which names an interface, not an address) it reads the address as it is.
 */
const hexGroups = (ipv6: string): string =>
  ipv6.replace(/%.*$/, "").replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${(Number(a) * 256 + Number(b)).toString(16)}:${(Number(c) * 256 + Number(d)).toString(16)}`)

/** The most specific refused block containing `address`, or undefined when it is public (or not an IP address). */
export const refusedRangeOf = (address: string): RefusedRange | undefined => {
  const family = isIP(address)
  if (family === 0) return undefined
  const parsed = family === 4 ? ipaddr.IPv4.parse(address) : ipaddr.IPv6.parse(hexGroups(address))
  for (const { row, cidr } of blocks) {
    if (cidr[0].kind() === parsed.kind() && parsed.match(cidr)) return row
  }
  return undefined
}

/**
 * Why `address` is not a public destination, or undefined when it is. The loopback allowance
 * lets the loopback blocks through and nothing else.
 */
export const addressRefusal = (address: string, options: { readonly allowLoopback: boolean }): string | undefined => {
  if (isIP(address) === 0) return "not an IP address"
  const range = refusedRangeOf(address)
  if (range === undefined || (range.loopback === true && options.allowLoopback)) return undefined
  return range.name
}
