import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an IP address is, for the webhook URL rules: an address a webhook may not reach
/// (unless `OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=on`) has the reason it names.
public enum WebhookAddress {
    /// Why `address` (textual IPv4 or IPv6) may not be posted to, or nil when it is a public
    /// unicast address. Text that is no address is refused too.
    public static func refusal(of address: String) -> String? {
        if let v4 = ipv4(address) { return refusal(v4: v4) }
        guard let v6 = ipv6(address) else { return "not an IP address" }
        if v6.allSatisfy({ $0 == 0 }) { return "unspecified" }
        if v6[0..<15].allSatisfy({ $0 == 0 }) && v6[15] == 1 { return "loopback" }
        // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the IPv4 address inside.
        if v6[0..<10].allSatisfy({ $0 == 0 }) && ((v6[10] == 0xff && v6[11] == 0xff) || (v6[10] == 0 && v6[11] == 0)) {
            return refusal(v4: Array(v6[12..<16]))
        }
        if v6[0] == 0x00 && v6[1] == 0x64 && v6[2] == 0xff && v6[3] == 0x9b && v6[4..<12].allSatisfy({ $0 == 0 }) {
            return refusal(v4: Array(v6[12..<16]))
        }
        if v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80 { return "link-local" }
        if (v6[0] & 0xfe) == 0xfc { return "private (unique local)" }  // fd00:ec2::254, the EC2 metadata service, is one
        if v6[0] == 0xff { return "multicast" }
        if v6[0] == 0x20 && v6[1] == 0x01 && v6[2] == 0x0d && v6[3] == 0xb8 { return "documentation" }
        return nil
    }

    /// Whether `address` is a loopback address (127.0.0.0/8, ::1).
    public static func isLoopback(_ address: String) -> Bool {
        if let v4 = ipv4(address) { return v4[0] == 127 }
        guard let v6 = ipv6(address) else { return false }
        return (v6[0..<15].allSatisfy { $0 == 0 } && v6[15] == 1)
            || (v6[0..<10].allSatisfy { $0 == 0 } && v6[10] == 0xff && v6[11] == 0xff && v6[12] == 127)
    }

    /// Whether `text` is an IP address (a URL host that needs no resolving).
    public static func isAddress(_ text: String) -> Bool {
        ipv4(text) != nil || ipv6(text) != nil
    }

    private static func refusal(v4 a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "unspecified (0.0.0.0/8)"
        case (127, _): return "loopback"
        case (10, _): return "private (10.0.0.0/8)"
        case (172, 16...31): return "private (172.16.0.0/12)"
        case (192, 168): return "private (192.168.0.0/16)"
        case (100, 64...127): return "private (shared address space 100.64.0.0/10)"
        case (169, 254): return a[2] == 169 && a[3] == 254 ? "the metadata service (169.254.169.254)" : "link-local"
        case (192, 0) where a[2] == 0: return "private (192.0.0.0/24)"
        case (198, 18...19): return "private (benchmarking 198.18.0.0/15)"
        case (224...239, _): return "multicast"
        case (240...255, _): return "reserved"
        default: return nil
        }
    }

    static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }

    static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0) }
    }
}
