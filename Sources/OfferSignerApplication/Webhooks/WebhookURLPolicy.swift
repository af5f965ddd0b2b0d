import Foundation

/// The rules a webhook URL must keep, checked when it is saved and again before each
/// connection (a name may answer another address by then: DNS rebinding): `https` (plain
/// `http` only to a loopback address, for development), no user information, and every
/// address of its host public — not loopback, link-local, private, the metadata service,
/// multicast or reserved — unless ``allowPrivate`` (`OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=on`).
public struct WebhookURLPolicy: Sendable {
    public let allowPrivate: Bool
    public let resolver: any HostResolver

    /// The longest URL accepted.
    public static let maxLength = 2048

    public init(allowPrivate: Bool, resolver: any HostResolver = SystemHostResolver()) {
        self.allowPrivate = allowPrivate
        self.resolver = resolver
    }

    /// The URL's host resolved now and checked, with the address to connect to.
    public func target(_ url: String) throws(WebhookURLRefusal) -> WebhookTarget {
        guard url.utf8.count <= Self.maxLength else { throw .init("the url is longer than \(Self.maxLength) bytes") }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f || $0.value > 0x7e }) else {
            throw .init("the url must be ASCII without spaces or control characters")
        }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased() else {
            throw .init("the url is not an absolute URL")
        }
        guard scheme == "https" || scheme == "http" else { throw .init("the url must be https (not \(scheme))") }
        guard parts.user == nil, parts.password == nil else { throw .init("the url must not carry a user name or password") }
        guard parts.fragment == nil else { throw .init("the url must not have a fragment") }
        var host = parts.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .init("the url has no host") }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw .init("the url's port \(port) is not between 1 and 65535") }
        let addresses: [String]
        if WebhookAddress.isAddress(host) {
            addresses = [host]
        } else {
            do {
                addresses = try resolver.addresses(of: host)
            } catch {
                throw .init(error.description)
            }
        }
        if scheme == "http", let outside = addresses.first(where: { !WebhookAddress.isLoopback($0) }) {
            throw .init("plain http is only for a loopback address (development); \(host) is \(outside): use https")
        }
        if !allowPrivate {
            for address in addresses {
                if let refusal = WebhookAddress.refusal(of: address) {
                    throw .init("the url's host \(host) is \(address), \(refusal): webhooks post only to public addresses "
                                + "(OFFER_SIGNER_WEBHOOK_ALLOW_PRIVATE=on allows others)")
                }
            }
        }
        return WebhookTarget(url: url, host: host, port: port, address: addresses[0], hostIsAddress: WebhookAddress.isAddress(host))
    }
}

/// A URL checked and the address its connection must go to.
public struct WebhookTarget: Sendable, Hashable {
    public let url: String
    public let host: String
    public let port: Int
    /// The checked address: the connection goes there and nowhere else.
    public let address: String
    /// The URL names an address, not a host name.
    public let hostIsAddress: Bool
}

/// A URL that breaks the rules, and which.
public struct WebhookURLRefusal: Error, Sendable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
