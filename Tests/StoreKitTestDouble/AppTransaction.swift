import Synchronization

/// Apple's `AppTransaction`: only `shared`.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *)
public struct AppTransaction: Sendable, SignedByTestDouble {
    let jws: String

    /// `static var shared: VerificationResult<AppTransaction> { get async throws }`
    public static var shared: VerificationResult<AppTransaction> {
        get async throws {
            guard let result = current.withLock({ $0 }) else { throw Unavailable() }
            return result
        }
    }

    /// What `shared` answers; `nil` throws, as StoreKit does when the customer is not signed in (set by tests).
    static let current = Mutex<VerificationResult<AppTransaction>?>(nil)

    struct Unavailable: Error {}
}
