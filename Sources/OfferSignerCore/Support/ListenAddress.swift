/// A listening address as the settings give it: `host:port`, or `[IPv6]:port`.
public struct ListenAddress: Sendable, Hashable {
    public let host: String
    public let port: UInt16
}

extension ListenAddress {
    /// Parses `text`; nil when it is not `host:port` with a port number.
    public init?(_ text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = UInt16(port) else { return nil }
        self.host = String(host)
        self.port = number
    }
}
