import Foundation
import Synchronization

/// Apple's `Transaction`: the members the glue reads and `latest(for:)`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Transaction: Sendable, SignedByTestDouble {
    /// `let originalID: UInt64`
    public let originalID: UInt64
    /// `let purchaseDate: Date`
    public let purchaseDate: Date
    let jws: String

    init(originalID: UInt64, purchaseDate: Date, jws: String) {
        self.originalID = originalID
        self.purchaseDate = purchaseDate
        self.jws = jws
    }

    /// `static func latest(for productID: String) async -> VerificationResult<Transaction>?`
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? {
        latestByProduct.withLock { $0[productID] }
    }

    /// What `latest(for:)` answers, by product ID (set by tests).
    static let latestByProduct = Mutex<[String: VerificationResult<Transaction>]>([:])
}
