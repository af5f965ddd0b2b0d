/// The identifiers of the Retention Messaging API (messages, images, performance tests):
/// UUIDs, which Apple's library sends in lowercase.
public enum RetentionIdentifier {
    /// What ``isValid(_:)`` requires, for refusals.
    public static let rule = "8-4-4-4-12 hexadecimal digits in lowercase, e.g. 4b1f3a52-9c3e-4f0a-8d2b-1e6f7a9c0d11"

    /// Whether `text` is a UUID in its canonical lowercase form.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                else { return false }
            }
        }
        return true
    }
}
