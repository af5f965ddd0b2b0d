/// A decoded, verified app transaction: the App Store's signed record of a customer's
/// download or purchase of the app (StoreKit's `AppTransaction.shared.jwsRepresentation`).
///
/// Every field is optional, as Apple's own libraries decode it (Apple's server library names
/// this type `AppTransaction`). Unknown fields are ignored and enumerations keep Apple's raw
/// value. Dates are Apple's: integer milliseconds since 1970. The App Store signs it at
/// ``receiptCreationDate``, which plays the part of other signed data's `signedDate`.
///
/// [JWSAppTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreserverapi/jwsapptransactiondecodedpayload)
public struct JWSAppTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// The environment as Apple sent it; see ``receiptType``.
    public var rawReceiptType: String?
    /// The app's App Store identifier.
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app version the app transaction applies to.
    public var applicationVersion: String?
    /// The version external identifier of the app.
    public var versionExternalIdentifier: Int64?
    /// When the App Store signed the app transaction, in milliseconds since 1970.
    public var receiptCreationDate: Int64?
    /// When the customer first bought or downloaded the app, in milliseconds since 1970.
    public var originalPurchaseDate: Int64?
    /// The app version the customer first bought or downloaded.
    public var originalApplicationVersion: String?
    /// The base64 device verification value.
    public var deviceVerification: String?
    /// The UUID used to compute ``deviceVerification``.
    public var deviceVerificationNonce: String?
    /// When the customer pre-ordered the app, in milliseconds since 1970.
    public var preorderDate: Int64?
    /// The identifier of the app download of this Apple Account; transactions of the same
    /// download carry it too (iOS 18.4 and later).
    public var appTransactionId: String?
    /// The platform the customer first bought the app on (`iOS`, `macOS`, `tvOS`, `visionOS`).
    public var originalPlatform: String?

    /// The environment, or nil when absent or not known yet.
    public var receiptType: AppStoreEnvironment? { rawReceiptType.flatMap(AppStoreEnvironment.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawReceiptType = "receiptType"
        case appAppleId, bundleId, applicationVersion, versionExternalIdentifier, receiptCreationDate
        case originalPurchaseDate, originalApplicationVersion, deviceVerification, deviceVerificationNonce
        case preorderDate, appTransactionId, originalPlatform
    }
}
