import Foundation

/// A JSON text written byte by byte into one reserved buffer, for documents written by hand
/// on a hot path (the signing answer): the same text `JSONValue` writes, without a `String`
/// grown piece by piece and copied into the response's bytes afterwards.
public struct JSONBytes {
    /// The text so far, UTF-8.
    public private(set) var bytes: [UInt8] = []

    /// An empty text with room for `capacity` bytes.
    public init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` as it is (JSON punctuation, member names that need no escaping, numbers).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` as a JSON string, escaped exactly as ``JSONValue/write(string:to:)`` does.
    public mutating func string(_ value: String) {
        var value = value
        let plain = value.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !plain {  // rare: the general writer, then its bytes
            var escaped = ""
            JSONValue.write(string: value, to: &escaped)
            bytes.append(contentsOf: escaped.utf8)
        }
    }

    /// Appends `date` as a JSON string in RFC 3339 (``RFC3339/string(from:)``'s text, which
    /// needs no escaping), written in place.
    public mutating func string(rfc3339 date: Date) {
        bytes.append(UInt8(ascii: "\""))
        RFC3339.withText(of: date) { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as a JSON integer.
    public mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
