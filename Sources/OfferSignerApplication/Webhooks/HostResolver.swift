import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns a host name into its addresses (textual IPv4 or IPv6). The system's resolver in the
/// service; a stub in tests (to show a name answering a public address at save and a private
/// one at delivery: DNS rebinding).
public protocol HostResolver: Sendable {
    /// The host's addresses; throws ``HostResolutionFailure`` when it has none.
    func addresses(of host: String) throws(HostResolutionFailure) -> [String]
}

/// A host that could not be resolved.
public struct HostResolutionFailure: Error, Sendable, CustomStringConvertible {
    public let host: String
    public let reason: String
    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }
    public var description: String { "the host '\(host)' cannot be resolved: \(reason)" }
}

/// The system's resolver (`getaddrinfo`).
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) throws(HostResolutionFailure) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw HostResolutionFailure(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !found.contains(address) { found.append(address) }
            }
            entry = current.pointee.ai_next
        }
        guard !found.isEmpty else { throw HostResolutionFailure(host: host, reason: "no address") }
        return found
    }
}
