/// What the service accepts in user IDs (identifiers: `Identifier` in OfferSignerCore).
enum InputRules {
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
