import Foundation

/// One file of the web console: its name, bytes, media type and validator.
public struct ConsoleAsset: Sendable, Hashable {
    /// The file name, which is also the last segment of its URL.
    public let name: String
    public let body: [UInt8]
    /// The media type sent as `Content-Type`, from the file's extension.
    public let contentType: String
    /// A strong entity tag for `ETag` / `If-None-Match`: a hash of the body.
    public let etag: String

    public init(name: String, body: [UInt8]) {
        self.name = name
        self.body = body
        self.contentType = Self.contentType(of: name)
        // FNV-1a, 64-bit: enough to tell two versions of a file apart; not a security check.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        self.etag = "\"\(String(hash, radix: 16))-\(body.count)\""
    }

    /// The media type of a file name's extension; `application/octet-stream` when unknown.
    public static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
