/// What the service accepts in identifiers and user IDs.
enum InputRules {
    /// Product, offer, bundle, key and transaction IDs: 1–256 visible ASCII characters.
    static func isIdentifier(_ text: String, maxLength: Int = 256) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// User IDs (app account tokens): 1–256 printable characters (Unicode scalars, so that
    /// combining marks cannot hide a long string in one character; at most 1 KiB of UTF-8):
    /// no control or format characters (so no U+2063, the separator of Apple's payload).
    static func isUserId(_ text: String) -> Bool {
        guard !text.isEmpty, text.unicodeScalars.count <= 256, text.utf8.count <= 1024 else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: false
            default: true
            }
        }
    }
}
