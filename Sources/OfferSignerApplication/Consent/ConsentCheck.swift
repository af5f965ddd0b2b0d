import Foundation
import OfferSignerCore
import OfferSignerStore

/// The issuing pipeline's consent step: a customer linked to an app download whose consent
/// was rescinded (`RESCIND_CONSENT`, not cleared since) is offered nothing. The customer's
/// app downloads are the `appTransactionId`s of their history in the environment (transactions
/// and renewal infos carry it) and of the proof they sent.
package struct ConsentCheck: Sendable {
    let consents: any ConsentStore

    package init(consents: any ConsentStore) {
        self.consents = consents
    }

    /// The rescinding in force for a customer with `history` (and `proofDownloads`) in
    /// `environment`, or nil when none is.
    package func rescinded(history: UserHistory, proofDownloads: [String] = [],
                           environment: AppStoreEnvironment) throws -> ConsentEvent? {
        var downloads = Set(proofDownloads)
        for transaction in history.transactions where transaction.environment == environment {
            if let download = transaction.appTransactionId { downloads.insert(download) }
        }
        for renewal in history.renewals where renewal.environment == environment {
            if let download = renewal.appTransactionId { downloads.insert(download) }
        }
        guard !downloads.isEmpty else { return nil }
        return try consents.rescinded(appTransactionIds: downloads.sorted(), environment: environment).first
    }

    /// Refuses `customer` when a rescinding is in force for them.
    func check(_ customer: BoundCustomer, history: UserHistory) throws(SignRefusal) {
        let event: ConsentEvent?
        do {
            event = try rescinded(history: history, proofDownloads: customer.appDownloads, environment: customer.environment)
        } catch {
            throw .store(error)
        }
        if let event { throw .consentRescinded(appTransactionId: event.appTransactionId, since: event.at) }
    }
}
