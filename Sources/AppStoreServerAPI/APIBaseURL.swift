/// The base URL rules both of Apple's API clients share: `http` or `https`, a host, no query
/// or fragment, visible ASCII only, kept without a trailing slash.
enum APIBaseURL {
    /// `url` (the configured one, or Apple's) without its trailing slashes.
    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// Whether requests can be made under `url`.
    static func isUsable(_ url: String) -> Bool {
        let lowered = url.lowercased()
        let parts = url.split(separator: "/", omittingEmptySubsequences: false)
        return (lowered.hasPrefix("https://") || lowered.hasPrefix("http://")) && parts.count >= 3 && !parts[2].isEmpty
            && !url.contains("?") && !url.contains("#")
            && url.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }
    }
}
