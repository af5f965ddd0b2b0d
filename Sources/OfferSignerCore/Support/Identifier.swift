/// The identifiers the service accepts (product, offer, bundle, key, transaction IDs and
/// API key names): visible ASCII only, so none can carry U+2063, the separator of Apple's
/// signed payload.
public enum Identifier {
    /// 1 to `maxLength` visible ASCII characters.
    public static func isValid(_ text: String, maxLength: Int = 256) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }
}
