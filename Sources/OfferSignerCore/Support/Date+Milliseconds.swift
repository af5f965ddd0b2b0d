import Foundation

extension Date {
    /// Milliseconds since 1970.
    public var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    public init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
