import Foundation
import OfferSignerCore
import OfferSignerStore

/// Verifies App Store signed data and turns it into history items; nothing unverified is
/// ever stored.
package struct HistoryIngestor {
    let verification: AppStoreVerification
    let history: any SubscriptionHistoryStore
    let clock: WallClock

    package init(verification: AppStoreVerification, history: any SubscriptionHistoryStore, clock: WallClock) {
        self.verification = verification
        self.history = history
        self.clock = clock
    }

    /// Verifies a notification's `signedPayload` (and the signed data nested in it), of any
    /// type, carrying `data`, `summary`, `externalPurchaseToken` or `appData`; a
    /// `RESCIND_CONSENT` names the app download whose consent it withdraws.
    package func verifyNotification(_ signedPayload: String) throws(SignedItemRefusal) -> HistoryItem {
        let verified: VerifiedNotification
        do {
            verified = try verification.current.verifyNotification(signedPayload)
        } catch {
            throw .invalidSignedData(error)
        }
        let payload = verified.payload
        let subject = NotificationSubject(payload)
        let notification = StoredNotification(
            notificationUUID: payload.notificationUUID, notificationType: payload.rawNotificationType,
            subtype: payload.rawSubtype, bundleId: subject.bundleId, environment: subject.environment,
            signedDate: payload.signedDate ?? clock.now.milliseconds, receivedAt: clock.now.milliseconds,
            signedPayload: signedPayload,
            rescindsConsentOf: payload.notificationType == .rescindConsent ? verified.appTransaction?.appTransactionId : nil)
        let transaction = zip(verified.transaction, payload.data?.signedTransactionInfo).flatMap { decoded, jws in
            SubscriptionTransaction(verified: decoded).map {
                StoredTransaction(transaction: $0, signedTransaction: jws)
            }
        }
        let renewal = zip(verified.renewalInfo, payload.data?.signedRenewalInfo).flatMap { decoded, jws in
            SubscriptionRenewalState(verified: decoded).map {
                StoredRenewal(renewal: $0, signedRenewalInfo: jws)
            }
        }
        return .notification(notification, transaction, renewal)
    }

    /// Verifies a `signedTransactionInfo`; it must be an auto-renewable subscription transaction.
    func verifyTransaction(_ jws: String) throws(SignedItemRefusal) -> HistoryItem {
        let decoded: JWSTransactionDecodedPayload
        do {
            decoded = try verification.current.verifyTransaction(jws)
        } catch {
            throw .invalidSignedData(error)
        }
        guard let transaction = SubscriptionTransaction(verified: decoded) else { throw .notASubscriptionTransaction }
        return .transaction(StoredTransaction(transaction: transaction, signedTransaction: jws))
    }

    /// Verifies a `signedRenewalInfo`.
    func verifyRenewal(_ jws: String) throws(SignedItemRefusal) -> HistoryItem {
        let decoded: JWSRenewalInfoDecodedPayload
        do {
            decoded = try verification.current.verifyRenewalInfo(jws)
        } catch {
            throw .invalidSignedData(error)
        }
        guard let renewal = SubscriptionRenewalState(verified: decoded) else { throw .renewalWithoutSubscription }
        return .renewal(StoredRenewal(renewal: renewal, signedRenewalInfo: jws))
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
