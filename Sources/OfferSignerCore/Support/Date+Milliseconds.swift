import Foundation

extension Date {
    /// Milliseconds since 1970, rounded down; a date beyond what 64 bits of milliseconds can
    /// hold (about 292 million years either way) gives `Int64.max` or `Int64.min` rather than a
    /// trap, and NaN gives 0.
    public var milliseconds: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded(.down)
        if value.isNaN { return 0 }
        // 2^63 is exactly representable; every smaller Double converts.
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    public init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
