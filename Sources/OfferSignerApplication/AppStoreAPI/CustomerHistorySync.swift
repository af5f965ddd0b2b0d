import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// Fetches one customer's history from the App Store Server API (Get Transaction History, every
/// page, and Get All Subscription Statuses), verifies every signed item exactly as a
/// notification's (`HistoryIngestor`), and stores it. Nothing unverified is stored: a customer
/// with any item that does not verify is stored not at all.
///
/// The environments are tried in the order of the clients' (Production first): a transaction
/// the App Store does not know in one is looked for in the next, as Apple advises for receipts.
package struct CustomerHistorySync: Sendable {
    let clients: AppStoreAPIClients
    let ingestor: HistoryIngestor
    /// Another timeout and retry policy than the clients' (a caller with a deadline).
    var policy: (timeout: Duration, retry: AppStoreServerAPIRetryPolicy)?

    package init(clients: AppStoreAPIClients, ingestor: HistoryIngestor,
                 policy: (timeout: Duration, retry: AppStoreServerAPIRetryPolicy)? = nil) {
        self.clients = clients
        self.ingestor = ingestor
        self.policy = policy
    }

    /// A customer's verified history, ready to store.
    package struct Fetched: Sendable {
        /// The transaction ID the history was asked for.
        let transactionId: String
        package let environment: AppStoreServerAPIEnvironment
        /// Verified transactions (history and statuses) and renewal infos, in that order.
        let items: [HistoryItem]
        /// The subscription transaction IDs the history holds (all of this customer).
        let transactionIds: Set<String>
        /// Verified items that are not about subscriptions (consumables, other purchases).
        package let ignored: Int
        /// The users (lowercased app account tokens) the transactions name.
        package let userIds: Set<String>
        /// Requests made (pages of history, plus statuses).
        let requests: Int

        package var transactionCount: Int { items.count { if case .transaction = $0 { true } else { false } } }
        package var renewalCount: Int { items.count { if case .renewal = $0 { true } else { false } } }
    }

    /// What storing a customer's history changed.
    package struct Stored: Sendable, Equatable {
        /// Items stored new, or newer than the copy held.
        package var accepted = 0
        /// Items of which a copy at least as new was held.
        package var duplicates = 0
    }

    /// Why a customer's history was not fetched.
    package enum Failure: Error, Sendable, CustomStringConvertible {
        /// No accepted environment knows the transaction (4040010).
        case notFound(transactionId: String)
        /// The app cannot call the API.
        case unavailable(AppStoreAPIUnavailable)
        /// The call failed (after the client's retries).
        case api(AppStoreServerAPIError)
        /// A signed item did not verify, or is not about this app and environment.
        case refused(item: String, reason: String)

        package var description: String {
            switch self {
            case .notFound(let transactionId): "the App Store knows no transaction \(transactionId) for this app (4040010)"
            case .unavailable(let reason): reason.description
            case .api(let error): error.description
            case .refused(let item, let reason): "\(item): \(reason)"
            }
        }

        /// Whether trying again later may succeed.
        var isTransient: Bool {
            if case .api(let error) = self { return error.isTransient }
            return false
        }
    }

    /// Fetches and verifies the history of the customer `transactionId` belongs to.
    package func fetch(bundleId: String, transactionId: String) throws(Failure) -> Fetched {
        for environment in clients.environments {
            let client = try self.client(bundleId: bundleId, environment: environment)
            let history: TransactionHistory
            let statuses: StatusResponse
            do {
                history = try client.transactionHistory(transactionId: transactionId)
                statuses = try client.allSubscriptionStatuses(transactionId: transactionId)
            } catch .transactionNotFound {
                continue
            } catch {
                throw .api(error)
            }
            return try verify(history, statuses, bundleId: bundleId, environment: environment)
        }
        throw .notFound(transactionId: transactionId)
    }

    /// Stores a fetched history in one transaction.
    package func store(_ fetched: Fetched) throws -> Stored {
        var stored = Stored()
        for changed in try ingestor.history.record(batch: fetched.items) {
            if changed { stored.accepted += 1 } else { stored.duplicates += 1 }
        }
        return stored
    }

    /// The client of the app in the environment, with this sync's policy when it has one.
    private func client(bundleId: String, environment: AppStoreServerAPIEnvironment) throws(Failure) -> AppStoreServerAPIClient {
        let client: AppStoreServerAPIClient
        do {
            client = try clients.client(bundleId: bundleId, environment: environment)
        } catch {
            throw .unavailable(error)
        }
        guard let policy else { return client }
        do {
            return try client.with(timeout: policy.timeout, retry: policy.retry)
        } catch {
            throw .api(.invalidArgument(error.description))
        }
    }

    private func verify(_ history: TransactionHistory, _ statuses: StatusResponse, bundleId: String,
                        environment: AppStoreServerAPIEnvironment) throws(Failure) -> Fetched {
        for (what, named) in [("history", history.rawEnvironment), ("statuses", statuses.rawEnvironment)] where named != environment.rawValue {
            throw .refused(item: what, reason: "the response names environment \(named ?? "(none)"), the request went to \(environment.rawValue)")
        }
        var items: [HistoryItem] = []
        var ids: Set<String> = []
        var users: Set<String> = []
        var ignored = 0
        func take(_ item: String, _ verify: () throws(SignedItemRefusal) -> HistoryItem) throws(Failure) {
            let verified: HistoryItem
            do {
                verified = try verify()
            } catch {
                switch error {
                case .notASubscriptionTransaction, .renewalWithoutSubscription:
                    ignored += 1
                    return
                case .invalidSignedData, .appTransactionWithoutDate, .appTransactionTooOld, .appTransactionFromTheFuture:
                    throw .refused(item: item, reason: error.description)
                }
            }
            switch verified {
            case .transaction(let stored):
                guard stored.transaction.bundleId == bundleId, stored.transaction.environment.rawValue == environment.rawValue else {
                    throw .refused(item: item, reason: "a transaction of \(stored.transaction.bundleId) in \(stored.transaction.environment.rawValue), "
                                   + "asked of \(bundleId) in \(environment.rawValue)")
                }
                ids.insert(stored.transaction.transactionId)
                if let user = stored.transaction.appAccountToken { users.insert(user.lowercased()) }
            case .renewal(let stored):
                guard stored.renewal.environment.rawValue == environment.rawValue else {
                    throw .refused(item: item, reason: "renewal info of \(stored.renewal.environment.rawValue), asked of \(environment.rawValue)")
                }
            case .notification:
                break
            }
            items.append(verified)
        }
        for (index, jws) in history.signedTransactions.enumerated() {
            try take("signedTransactions[\(index)]") { () throws(SignedItemRefusal) in try ingestor.verifyTransaction(jws) }
        }
        for (groupIndex, group) in statuses.data.enumerated() {
            for (index, last) in group.lastTransactions.enumerated() {
                let place = "data[\(groupIndex)].lastTransactions[\(index)]"
                try take("\(place).signedTransactionInfo") { () throws(SignedItemRefusal) in try ingestor.verifyTransaction(last.signedTransactionInfo) }
                try take("\(place).signedRenewalInfo") { () throws(SignedItemRefusal) in try ingestor.verifyRenewal(last.signedRenewalInfo) }
            }
        }
        return Fetched(transactionId: history.transactionId, environment: environment, items: items, transactionIds: ids,
                       ignored: ignored, userIds: users, requests: history.pages + 1)
    }
}

extension CustomerHistorySync: HistoryFetcher {
    /// Fetches, verifies and stores; for the signing use case's unknown users.
    package func fetchHistory(bundleId: String, transactionId: String) throws {
        _ = try store(try fetch(bundleId: bundleId, transactionId: transactionId))
    }
}
