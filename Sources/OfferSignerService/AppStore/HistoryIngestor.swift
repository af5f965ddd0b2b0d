import Foundation
import OfferSignerCore
import OfferSignerStore

/// Verifies App Store signed data and turns it into history items; nothing unverified is
/// ever stored.
struct HistoryIngestor {
    let verification: AppStoreVerification
    let history: any SubscriptionHistoryStore
    let clock: WallClock

    /// A verified item, or why the input was refused.
    enum Verdict {
        case verified(HistoryItem)
        case refused(String)
    }

    /// Verifies a notification's `signedPayload` (and the signed data nested in it).
    func verifyNotification(_ signedPayload: String) -> Verdict {
        let verified: VerifiedNotification
        do {
            verified = try verification.current.verifyNotification(signedPayload)
        } catch {
            return .refused(error.description)
        }
        let payload = verified.payload
        let environment = payload.data?.rawEnvironment ?? payload.summary?.rawEnvironment
        let notification = StoredNotification(
            notificationUUID: payload.notificationUUID, notificationType: payload.rawNotificationType,
            subtype: payload.rawSubtype, bundleId: payload.data?.bundleId ?? payload.summary?.bundleId,
            environment: environment, signedDate: payload.signedDate ?? clock.now.milliseconds,
            receivedAt: clock.now.milliseconds, signedPayload: signedPayload)
        let transaction = zip(verified.transaction, payload.data?.signedTransactionInfo).flatMap { decoded, jws in
            SubscriptionTransaction(verified: decoded).map {
                StoredTransaction(transaction: $0, environment: decoded.rawEnvironment, signedTransaction: jws)
            }
        }
        let renewal = zip(verified.renewalInfo, payload.data?.signedRenewalInfo).flatMap { decoded, jws in
            SubscriptionRenewalState(verified: decoded).map {
                StoredRenewal(renewal: $0, environment: decoded.rawEnvironment, signedRenewalInfo: jws)
            }
        }
        return .verified(.notification(notification, transaction, renewal))
    }

    /// Verifies a `signedTransactionInfo`; it must be an auto-renewable subscription transaction.
    func verifyTransaction(_ jws: String) -> Verdict {
        do {
            let decoded = try verification.current.verifyTransaction(jws)
            guard let transaction = SubscriptionTransaction(verified: decoded) else {
                return .refused("not an auto-renewable subscription transaction with transactionId, originalTransactionId, productId, subscriptionGroupIdentifier, purchaseDate and signedDate")
            }
            return .verified(.transaction(StoredTransaction(transaction: transaction, environment: decoded.rawEnvironment, signedTransaction: jws)))
        } catch {
            return .refused(error.description)
        }
    }

    /// Verifies a `signedRenewalInfo`.
    func verifyRenewal(_ jws: String) -> Verdict {
        do {
            let decoded = try verification.current.verifyRenewalInfo(jws)
            guard let renewal = SubscriptionRenewalState(verified: decoded) else {
                return .refused("renewal info without originalTransactionId or signedDate")
            }
            return .verified(.renewal(StoredRenewal(renewal: renewal, environment: decoded.rawEnvironment, signedRenewalInfo: jws)))
        } catch {
            return .refused(error.description)
        }
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
