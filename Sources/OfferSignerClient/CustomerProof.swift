import Foundation

/// The customer's Apple-signed proof of who they are, sent with a request: StoreKit's
/// `jwsRepresentation` of their latest transaction of the subscription group and, optionally,
/// of `AppTransaction.shared`. Required by API keys shipped in apps (`"proof": "required"`).
/// On Apple platforms `StoreKitProof.find(groupProductIDs:)` reads it from StoreKit, with the
/// device's `AppStore.deviceVerificationID`: the service links a token-less subscription to the
/// user at Apple only when it sees the device holds the transaction.
public struct CustomerProof: Sendable, Equatable {
    /// `VerificationResult<Transaction>.jwsRepresentation` of the customer's latest transaction
    /// of the subscription group.
    public var signedTransaction: String
    /// `VerificationResult<AppTransaction>.jwsRepresentation`, when the app has it.
    public var signedAppTransaction: String?
    /// The ID of the proven transaction (or of its original): the `transactionId` an
    /// introductory-offer eligibility request names when the caller gives none.
    public var transactionID: String?
    /// `AppStore.deviceVerificationID` of this device, sent as `deviceVerificationId`: with the
    /// transaction's `deviceVerification` it shows the service that this device holds the
    /// transaction (a copy of its JWS sent from elsewhere does not match).
    public var deviceVerificationID: UUID?

    /// A proof with these values.
    public init(signedTransaction: String, signedAppTransaction: String? = nil, transactionID: String? = nil,
                deviceVerificationID: UUID? = nil) {
        self.signedTransaction = signedTransaction
        self.signedAppTransaction = signedAppTransaction
        self.transactionID = transactionID
        self.deviceVerificationID = deviceVerificationID
    }

    /// The device verification ID as the service compares it: the lowercased UUID string.
    var deviceVerificationIdText: String? { deviceVerificationID?.uuidString.lowercased() }
}
