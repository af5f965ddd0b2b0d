extension Substring.UTF8View {
    /// These bytes without the optional whitespace around them (space and tab, RFC 9110
    /// §5.6.3), or nil when there is nothing else. Byte-level: it runs on every request head.
    var trimmingOptionalWhitespace: Substring? {
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = firstIndex(where: { !isWhitespace($0) }), let last = lastIndex(where: { !isWhitespace($0) }) else {
            return nil
        }
        return Substring(self[first...last])
    }
}
