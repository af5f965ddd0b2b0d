import Foundation
import Synchronization

/// Apple's `AppStore`: only `deviceVerificationID`.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum AppStore {
    /// `static var deviceVerificationID: UUID? { get }`
    public static var deviceVerificationID: UUID? { currentDeviceVerificationID.withLock { $0 } }

    /// What `deviceVerificationID` answers (set by tests).
    static let currentDeviceVerificationID = Mutex<UUID?>(nil)
}
