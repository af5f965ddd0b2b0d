/// Configure Default Message's body: the message shown for a product and locale when no
/// real-time answer names one.
///
/// [DefaultConfigurationRequest](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationrequest)
public struct DefaultConfigurationRequest: Codable, Hashable, Sendable {
    public var messageIdentifier: String

    public init(messageIdentifier: String) {
        self.messageIdentifier = messageIdentifier
    }
}

/// Get Default Message's answer.
///
/// [DefaultConfigurationResponse](https://developer.apple.com/documentation/retentionmessaging/defaultconfigurationresponse)
public struct DefaultConfigurationResponse: Codable, Hashable, Sendable {
    public var messageIdentifier: String

    public init(messageIdentifier: String) {
        self.messageIdentifier = messageIdentifier
    }
}

/// Configure Realtime URL's body and Get Realtime URL's answer: where Apple sends real-time
/// retention requests (this service's `POST /v1/retention/appstore`).
///
/// [RealtimeUrlRequest](https://developer.apple.com/documentation/retentionmessaging/realtimeurlrequest),
/// [RealtimeUrlResponse](https://developer.apple.com/documentation/retentionmessaging/realtimeurlresponse)
public struct RealtimeURL: Codable, Hashable, Sendable {
    public var realtimeURL: String

    public init(realtimeURL: String) {
        self.realtimeURL = realtimeURL
    }

    /// The longest URL taken (a bound of ours; Apple documents none).
    public static let maxLength = 2048

    /// Why Apple could not call the URL, or nil: it must be an absolute `https://` URL of
    /// visible ASCII whose host is not empty, without user information (`user:pass@`).
    public var problem: String? {
        let url = realtimeURL
        guard url.utf8.count <= Self.maxLength else { return "'realtimeURL' is longer than \(Self.maxLength) characters" }
        guard url.hasPrefix("https://"), url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "'realtimeURL' must be an absolute https:// URL of visible ASCII characters"
        }
        guard let first = url.utf8.dropFirst("https://".count).first, !"/?#:@".utf8.contains(first) else {
            return "'realtimeURL' must name a host after https://"
        }
        let authority = url.utf8.dropFirst("https://".count).prefix { !"/?#".utf8.contains($0) }
        guard !authority.contains(UInt8(ascii: "@")) else {
            return "'realtimeURL' must not carry a user name or password (user:pass@host): it would be stored and shown to auditors"
        }
        return nil
    }
}
