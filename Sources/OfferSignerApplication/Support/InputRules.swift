import Foundation
import OfferSignerCore

/// What the service accepts in user IDs (identifiers: `Identifier` in OfferSignerCore).
package enum InputRules {
    /// The code points a user ID may not hold: controls (Cc), format characters (Cf, among
    /// them U+2063, the separator of Apple's payload), the line and paragraph separators,
    /// private use, and the noncharacters (U+FDD0–U+FDEF and the last two of each plane).
    /// A fixed list rather than Unicode's categories, so that the rule does not move with the
    /// toolchain's Unicode version: `openapi.yaml`'s `UserId` pattern is the same list.
    static let refusedInUserIds: [ClosedRange<UInt32>] = [
        0x0000...0x001F, 0x007F...0x009F, 0x00AD...0x00AD, 0x0600...0x0605, 0x061C...0x061C, 0x06DD...0x06DD,
        0x070F...0x070F, 0x0890...0x0891, 0x08E2...0x08E2, 0x180E...0x180E, 0x200B...0x200F, 0x2028...0x202E,
        0x2060...0x2064, 0x2066...0x206F, 0xE000...0xF8FF, 0xFDD0...0xFDEF, 0xFEFF...0xFEFF, 0xFFF9...0xFFFB,
        0x110BD...0x110BD, 0x110CD...0x110CD, 0x13430...0x1343F, 0x1BCA0...0x1BCA3, 0x1D173...0x1D17A,
        0xE0001...0xE0001, 0xE0020...0xE007F, 0xF0000...0x10FFFF,
    ]

    /// The code points that leave no mark on the screen: white space, Unicode's default
    /// ignorable code points (fillers such as U+3164 HANGUL FILLER, variation selectors,
    /// invisible operators) and U+2800 BRAILLE PATTERN BLANK. A user ID made only of them looks
    /// empty in every console and log, so it is refused. A fixed list, as `refusedInUserIds`.
    static let blankToTheEye: [ClosedRange<UInt32>] = [
        0x0009...0x000D, 0x0020...0x0020, 0x0085...0x0085, 0x00A0...0x00A0, 0x00AD...0x00AD, 0x034F...0x034F,
        0x061C...0x061C, 0x115F...0x1160, 0x1680...0x1680, 0x17B4...0x17B5, 0x180B...0x180F, 0x2000...0x200F,
        0x2028...0x202F, 0x205F...0x206F, 0x2800...0x2800, 0x3000...0x3000, 0x3164...0x3164, 0xFE00...0xFE0F,
        0xFEFF...0xFEFF, 0xFFA0...0xFFA0, 0xFFF0...0xFFF8, 0x1BCA0...0x1BCA3, 0x1D173...0x1D17A, 0xE0000...0xE0FFF,
    ]

    /// Why `text` cannot be a user ID, as a sentence about `field` (e.g. `'userId'`), or nil when
    /// it can. A user ID must be in Unicode Normalization Form C (NFC; U+212A KELVIN SIGN is not,
    /// nor `e` followed by a combining accent): such an ID is refused rather than normalised, so
    /// that the ID stored, signed and shown is the one the app sent. Only A–Z are case-folded
    /// (``UserIdFolding``), so folding never changes the length.
    package static func userIdRefusal(_ text: String, field: String) -> String? {
        if isPlainlyAccepted(text) { return nil }
        guard isUserId(text) else {
            return "\(field) must be 1–256 printable characters (no control or invisible characters such as U+2063)"
        }
        guard isNFC(text) else {
            return "\(field) must be in Unicode Normalization Form C (NFC): compose it before sending (U+212A KELVIN SIGN is K, a letter with a combining accent its precomposed letter)"
        }
        if text.unicodeScalars.allSatisfy({ scalar in blankToTheEye.contains { $0.contains(scalar.value) } }) {
            return "\(field) is blank to the eye (only spaces or invisible fillers such as U+3164)"
        }
        return nil
    }

    /// True for a user ID every rule of ``userIdRefusal(_:field:)`` accepts, told in one pass over
    /// its bytes: 1–256 bytes of printable ASCII (U+0020–U+007E: one scalar each, none refused,
    /// NFC) not all spaces (the only blank-to-the-eye code point among them). The usual ID, a
    /// UUID, skips the scalar passes (issue 38); any other text takes them.
    static func isPlainlyAccepted(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in  // a buffer's loop: `for … in text.utf8` cost ~40 instructions a byte
            guard (1...256).contains(bytes.count) else { return false }
            var allSpaces = true
            for byte in bytes {
                guard byte >= 0x20 && byte < 0x7F else { return false }
                if byte != 0x20 { allSpaces = false }
            }
            return !allSpaces
        }
    }

    /// Whether `text` is in Unicode Normalization Form C. Printable ASCII (U+0020–U+007E) is
    /// NFC whatever surrounds it (no ASCII character decomposes, and only a non-ASCII combining
    /// mark could compose with one), so an all-ASCII ID, the usual one, skips Foundation's
    /// normalisation: a third of the CPU of the request's validation (issue 38).
    static func isNFC(_ text: String) -> Bool {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return true }
        return Array(text.unicodeScalars) == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars)
    }

    /// The user ID as stored and compared (A–Z folded to a–z), or nil when `userIdRefusal` refuses it.
    static func normalizedUserId(_ text: String) -> String? {
        userIdRefusal(text, field: "") == nil ? UserIdFolding.folded(text) : nil
    }

    /// User IDs (app account tokens): 1–256 code points (Unicode scalars, so that combining
    /// marks cannot hide a long string in one character), none of them in `refusedInUserIds`
    /// nor a noncharacter.
    static func isUserId(_ text: String) -> Bool {
        guard !text.isEmpty, text.unicodeScalars.count <= 256 else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            if value >= 0x20 && value < 0x7F { return true }
            if value & 0xFFFE == 0xFFFE { return false }
            return !refusedInUserIds.contains { $0.contains(value) }
        }
    }
}
