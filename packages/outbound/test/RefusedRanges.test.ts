import { describe, expect, it } from "@effect/vitest"
import ipaddr from "ipaddr.js"
import { addressRefusal, refusedRangeOf, refusedRanges } from "../src/index.js"

/** Addresses inside each row of the table, keyed by the row's range; the row must be the one that names them. */
const examples: Record<string, ReadonlyArray<string>> = {
  "0.0.0.0/8": ["0.1.2.3", "0.255.255.255"],
  "0.0.0.0/32": ["0.0.0.0"],
  "10.0.0.0/8": ["10.0.0.1", "10.255.255.254"],
  "100.64.0.0/10": ["100.64.0.1", "100.127.255.254"],
  "127.0.0.0/8": ["127.0.0.1", "127.255.255.254"],
  "169.254.0.0/16": ["169.254.1.1"],
  "169.254.169.254/32": ["169.254.169.254"],
  "172.16.0.0/12": ["172.16.5.4", "172.31.255.254"],
  "192.0.0.0/24": ["192.0.0.1", "192.0.0.9", "192.0.0.170"],
  "192.0.2.0/24": ["192.0.2.1"],
  "192.31.196.0/24": ["192.31.196.1"],
  "192.52.193.0/24": ["192.52.193.1"],
  "192.88.99.0/24": ["192.88.99.1"],
  "192.168.0.0/16": ["192.168.1.1"],
  "192.175.48.0/24": ["192.175.48.6"],
  "198.18.0.0/15": ["198.18.0.1", "198.19.255.254"],
  "198.51.100.0/24": ["198.51.100.7"],
  "203.0.113.0/24": ["203.0.113.7"],
  "240.0.0.0/4": ["240.0.0.1", "254.1.2.3", "255.255.255.254"],
  "255.255.255.255/32": ["255.255.255.255"],
  "224.0.0.0/4": ["224.0.0.1", "239.255.255.250"],
  "::/128": ["::"],
  "::1/128": ["::1"],
  "::ffff:0:0/96": ["::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:93.184.215.14"],
  "64:ff9b::/96": ["64:ff9b::a00:1", "64:ff9b::93.184.215.14", "64:ff9b::127.0.0.1"],
  "64:ff9b:1::/48": ["64:ff9b:1::a00:1"],
  "100::/64": ["100::1"],
  "100:0:0:1::/64": ["100:0:0:1::1"],
  "2001::/23": ["2001:1::1", "2001:3::1", "2001:4:112::1", "2001:30::1", "2001:1ff::1"],
  "2001::/32": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
  "2001:2::/48": ["2001:2::1"],
  "2001:10::/28": ["2001:10::1"],
  "2001:20::/28": ["2001:20::1"],
  "2001:db8::/32": ["2001:db8::1"],
  "2002::/16": ["2002:7f00:1::1", "2002:5db8:d70e::1"],
  "2620:4f:8000::/48": ["2620:4f:8000::1"],
  "3fff::/20": ["3fff::1", "3fff:fff::1"],
  "5f00::/16": ["5f00::1"],
  "fc00::/7": ["fc00::1", "fd12:3456::1"],
  "fd00:ec2::254/128": ["fd00:ec2::254"],
  "fe80::/10": ["fe80::1", "febf::1", "fe80::1%eth0"],
  "::/96": ["::127.0.0.1", "::10.0.0.1", "::8.8.8.8"],
  "::/8": ["::1:0:0:1", "64:ff9b:2::1", "ff:ffff::1"],
  "fec0::/10": ["fec0::1"],
  "ff00::/8": ["ff02::1", "ff0e::1"],
  "::/3": ["100:1::1", "1000::1", "1fff::1"],
  "4000::/2": ["4000::1", "7fff::1"],
  "8000::/1": ["8000::1", "e000::1", "fe00::1"]
}

/** Globally routable addresses, many just outside a refused block. */
const publicAddresses = [
  "93.184.215.14",
  "8.8.8.8",
  "1.1.1.1",
  "1.0.0.0",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.255",
  "192.0.3.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "2001:4860:4860::8888",
  "2001:200::1",
  "2003::1",
  "2620:4f:8001::1",
  "3ffe::1",
  "3fff:1000::1"
]

describe("the refused ranges table", () => {
  it("is well formed: each range is a network address in CIDR form, with a name and a reason", () => {
    for (const row of refusedRanges) {
      const [network, bits] = ipaddr.parseCIDR(row.range)
      const first = network.kind() === "ipv4"
        ? ipaddr.IPv4.networkAddressFromCIDR(row.range)
        : ipaddr.IPv6.networkAddressFromCIDR(row.range)
      expect(`${first.toString()}/${bits}`, row.range).toBe(row.range)
      expect(row.name, row.range).not.toBe("")
      expect(row.why, row.range).not.toBe("")
    }
    expect(new Set(refusedRanges.map((row) => row.range)).size).toBe(refusedRanges.length)
  })

  it("has examples for exactly its rows", () => {
    expect(Object.keys(examples).sort()).toEqual(refusedRanges.map((row) => row.range).sort())
  })

  for (const row of refusedRanges) {
    it(`refuses ${row.range} (${row.name})`, () => {
      for (const address of examples[row.range] ?? []) {
        expect(refusedRangeOf(address)?.range, address).toBe(row.range)
        expect(addressRefusal(address, { allowLoopback: false }), address).toBe(row.name)
      }
    })
  }

  it("allows globally routable addresses", () => {
    for (const address of publicAddresses) {
      expect(refusedRangeOf(address), address).toBeUndefined()
      expect(addressRefusal(address, { allowLoopback: false }), address).toBeUndefined()
    }
  })

  it("refuses what is not an IP address", () => {
    expect(addressRefusal("example.com", { allowLoopback: false })).toBe("not an IP address")
    expect(addressRefusal("", { allowLoopback: false })).toBe("not an IP address")
  })
})

describe("addressRefusal", () => {
  it("names loopback, private, metadata and the other special addresses", () => {
    const allowLoopback = false
    expect({
      "127.0.0.1": addressRefusal("127.0.0.1", { allowLoopback }),
      "::1": addressRefusal("::1", { allowLoopback }),
      "::ffff:127.0.0.1": addressRefusal("::ffff:127.0.0.1", { allowLoopback }),
      "::ffff:10.1.2.3": addressRefusal("::ffff:10.1.2.3", { allowLoopback }),
      "::127.0.0.1": addressRefusal("::127.0.0.1", { allowLoopback }),
      "10.0.0.1": addressRefusal("10.0.0.1", { allowLoopback }),
      "172.16.5.4": addressRefusal("172.16.5.4", { allowLoopback }),
      "192.168.1.1": addressRefusal("192.168.1.1", { allowLoopback }),
      "169.254.169.254": addressRefusal("169.254.169.254", { allowLoopback }),
      "fd00:ec2::254": addressRefusal("fd00:ec2::254", { allowLoopback }),
      "169.254.1.1": addressRefusal("169.254.1.1", { allowLoopback }),
      "fe80::1": addressRefusal("fe80::1", { allowLoopback }),
      "100.64.0.1": addressRefusal("100.64.0.1", { allowLoopback }),
      "224.0.0.1": addressRefusal("224.0.0.1", { allowLoopback }),
      "0.0.0.0": addressRefusal("0.0.0.0", { allowLoopback }),
      "::": addressRefusal("::", { allowLoopback }),
      "240.0.0.1": addressRefusal("240.0.0.1", { allowLoopback }),
      "fc00::1": addressRefusal("fc00::1", { allowLoopback }),
      "64:ff9b::a00:1": addressRefusal("64:ff9b::a00:1", { allowLoopback })
    }).toEqual({
      "127.0.0.1": "a loopback address",
      "::1": "a loopback address",
      "::ffff:127.0.0.1": "an IPv4-mapped address",
      "::ffff:10.1.2.3": "an IPv4-mapped address",
      "::127.0.0.1": "an IPv4-compatible address",
      "10.0.0.1": "a private address",
      "172.16.5.4": "a private address",
      "192.168.1.1": "a private address",
      "169.254.169.254": "the cloud metadata address",
      "fd00:ec2::254": "the cloud metadata address",
      "169.254.1.1": "a link-local address",
      "fe80::1": "a link-local address",
      "100.64.0.1": "a carrier-grade NAT address",
      "224.0.0.1": "a multicast address",
      "0.0.0.0": "the unspecified address",
      "::": "the unspecified address",
      "240.0.0.1": "a reserved address",
      "fc00::1": "a private (unique local) address",
      "64:ff9b::a00:1": "a NAT64 address"
    })
  })

  it("lets loopback through only with the allowance, and nothing else private", () => {
    expect(addressRefusal("127.0.0.1", { allowLoopback: true })).toBeUndefined()
    expect(addressRefusal("::1", { allowLoopback: true })).toBeUndefined()
    expect(addressRefusal("10.0.0.1", { allowLoopback: true })).toBe("a private address")
    expect(addressRefusal("169.254.169.254", { allowLoopback: true })).toBe("the cloud metadata address")
    expect(addressRefusal("::ffff:127.0.0.1", { allowLoopback: true })).toBe("an IPv4-mapped address")
    expect(addressRefusal("::127.0.0.1", { allowLoopback: true })).toBe("an IPv4-compatible address")
  })
})
