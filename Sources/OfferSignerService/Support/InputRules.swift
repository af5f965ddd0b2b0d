/// What the service accepts in user IDs (identifiers: `Identifier` in OfferSignerCore).
enum InputRules {
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
