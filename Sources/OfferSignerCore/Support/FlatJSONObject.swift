/// A fast reader for the commonest request body: one JSON object whose members are all plain
/// strings. It reads only what it is sure of, and otherwise says "not for me" (nil), so the
/// caller hands the body to the general, strict decoder, which gives the refusal its wording.
///
/// A member name or value qualifies when it is printable ASCII without `"` or `\` (no escapes,
/// no control characters, no other encoding). Any other value (number, `null`, nested object or
/// array), a repeated name, anything after the closing brace but whitespace, or more than
/// `maxMembers` members: nil. So every body it accepts is valid JSON that `JSONDecoder` reads
/// to the same strings.
public enum FlatJSONObject {
    /// The members, in order; nil when the body is not such an object.
    public static func strings(_ body: [UInt8], maxMembers: Int = 16) -> [(name: String, value: String)]? {
        body.withUnsafeBufferPointer { bytes in
            var reader = Reader(bytes: bytes)
            return reader.object(maxMembers: maxMembers)
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func object(maxMembers: Int) -> [(name: String, value: String)]? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [(name: String, value: String)] = []
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    guard members.count < maxMembers, let name = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let value = string(), !members.contains(where: { $0.name == name }) else { return nil }
                    members.append((name, value))
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) {
                        skipWhitespace()
                        continue
                    }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return index == bytes.count ? members : nil
        }

        /// A string of printable ASCII without escapes.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// JSON's whitespace: space, tab, line feed, carriage return.
        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}
