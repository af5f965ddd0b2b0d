/// How user IDs are compared: only the ASCII letters A–Z are case-folded (to a–z); every other
/// character is kept as sent. Unicode's full lowercasing would make U+212A KELVIN SIGN the
/// letter `k` and U+0130 (İ) two code points, so that different IDs met and lengths grew.
/// (IDs that are not in Unicode Normalization Form C are refused where they enter.)
public enum UserIdFolding {
    /// `text` with A–Z made a–z.
    public static func folded(_ text: String) -> String {
        guard text.utf8.contains(where: { (0x41...0x5A).contains($0) }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append((0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
        }
        return String(scalars)
    }
}
