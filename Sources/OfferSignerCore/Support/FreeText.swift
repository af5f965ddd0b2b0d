/// What free text typed by people (the reason for clearing a rescinded consent, for accepting
/// a truncated log) may hold: no control characters (Cc), no bidirectional formatting
/// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: an override makes a log or
/// terminal show the text in another order than it is stored) and no zero-width characters
/// (U+200B–U+200D, U+2060, U+FEFF: they hide text inside text). A fixed list, so the rule does
/// not move with the toolchain's Unicode version.
public enum FreeText {
    /// The code points refused in free text beside the controls.
    static let invisible: [ClosedRange<UInt32>] = [
        0x061C...0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2060, 0x2066...0x2069, 0xFEFF...0xFEFF,
    ]

    /// The first code point `text` may not hold, or nil when it holds none.
    public static func refusedCharacter(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            let value = scalar.value
            return value < 0x20 || (0x7F...0x9F).contains(value) || invisible.contains { $0.contains(value) }
        }
    }

    /// `U+202E`: how a refused code point is named in a message.
    public static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
