#if canImport(StoreKit)
import Foundation
import StoreKit

/// Reads the customer's proof from StoreKit: the latest verified transaction of a
/// subscription group and the app transaction of this download.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum StoreKitProof {
    /// The proof for the subscription group whose products are `groupProductIDs`: the
    /// `jwsRepresentation` of the most recently purchased of their latest verified
    /// transactions (`Transaction.latest(for:)`, active or long lapsed), its original
    /// transaction's ID, `AppTransaction.shared`'s (iOS 16 and later, when it verifies) and
    /// this device's `AppStore.deviceVerificationID`, which the service checks against the
    /// transaction's `deviceVerification` before it links the subscription to the user.
    /// `nil` when the customer has no verified transaction in the group.
    public static func find(groupProductIDs: [String]) async -> CustomerProof? {
        var newest: (purchased: Date, jws: String, originalID: UInt64)?
        for productID in groupProductIDs {
            guard let result = await Transaction.latest(for: productID), case .verified(let transaction) = result else {
                continue
            }
            if let current = newest, current.purchased >= transaction.purchaseDate { continue }
            newest = (transaction.purchaseDate, result.jwsRepresentation, transaction.originalID)
        }
        guard let newest else { return nil }
        var proof = CustomerProof(signedTransaction: newest.jws, transactionID: String(newest.originalID),
                                  deviceVerificationID: AppStore.deviceVerificationID)
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, visionOS 1.0, *),
           let result = try? await AppTransaction.shared, case .verified(_) = result {
            proof.signedAppTransaction = result.jwsRepresentation
        }
        return proof
    }
}
#endif
