import Foundation

/// Whole seconds since 1970, as X.509 validity checks use them.
enum UnixTime {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range an X.509 time can express.
    /// Times outside it are clamped, so no conversion overflows and OpenSSL can still compare.
    static let range: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// `date` rounded down to a whole second, clamped to ``range``.
    static func seconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard value.isFinite else { return value < 0 ? range.lowerBound : range.upperBound }
        return clamp(Int64(max(Double(range.lowerBound), min(Double(range.upperBound), value))))
    }

    /// Apple's milliseconds since 1970 rounded down to a whole second, clamped to ``range``.
    static func seconds(milliseconds: Int64) -> Int64 {
        clamp(milliseconds / 1000 - (milliseconds % 1000 < 0 ? 1 : 0))
    }

    private static func clamp(_ seconds: Int64) -> Int64 {
        min(max(seconds, range.lowerBound), range.upperBound)
    }
}
