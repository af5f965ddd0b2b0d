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
    /// How much of one customer's history is held before it is stored.
    var limits = HistoryFetchLimits()

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
        /// The history is larger than ``HistoryFetchLimits`` allows (no real one is): nothing stored.
        case tooLarge(String)
        /// The caller's deadline passed before the history was read: nothing stored.
        case deadlinePassed

        package var description: String {
            switch self {
            case .notFound(let transactionId): "the App Store knows no transaction \(transactionId) for this app (4040010)"
            case .unavailable(let reason): reason.description
            case .api(let error): error.description
            case .refused(let item, let reason): "\(item): \(reason)"
            case .tooLarge(let what): "the history is too large to hold: \(what)"
            case .deadlinePassed: "the deadline passed before the history was read"
            }
        }

        /// Whether trying again later may succeed.
        var isTransient: Bool {
            if case .api(let error) = self { return error.isTransient }
            return false
        }
    }

    /// Fetches and verifies the history of the customer `transactionId` belongs to: any ID Apple
    /// accepts for the customer (a transaction, an original transaction or the app transaction ID).
    ///
    /// The statuses are asked for with a transaction the history holds (the one asked for when it
    /// is there, else the customer's newest subscription transaction), since Get All
    /// Subscription Statuses takes only transaction IDs. A history without any subscription is
    /// confirmed through Get App Transaction Info, whose app transaction is verified too.
    ///
    /// Each page is verified as it arrives and only what verified is kept, within ``limits``;
    /// past `deadline` the fetch stops at the next page (nothing stored).
    package func fetch(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant? = nil) throws(Failure) -> Fetched {
        for environment in clients.environments {
            let client = try self.client(bundleId: bundleId, environment: environment)
            var collected = Collected(bundleId: bundleId, environment: environment, ingestor: ingestor, limits: limits)
            var failure: Failure?
            let pages: Int
            do {
                pages = try client.transactionHistory(transactionId: transactionId) { page in
                    do throws(Failure) {
                        try collected.verify(page)
                        if let deadline, ContinuousClock.now >= deadline { throw .deadlinePassed }
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
            } catch .transactionNotFound {
                continue
            } catch {
                throw .api(error)
            }
            if let failure { throw failure }
            guard let asked = collected.statusesTransaction(preferring: transactionId) else {
                try confirmAppTransaction(transactionId, client: client)
                return collected.fetched(transactionId: transactionId, requests: pages + 1)
            }
            let statuses: StatusResponse
            do {
                statuses = try client.allSubscriptionStatuses(transactionId: asked)
            } catch {
                throw .api(error)
            }
            try collected.verify(statuses)
            return collected.fetched(transactionId: transactionId, requests: pages + 1)
        }
        throw .notFound(transactionId: transactionId)
    }

    /// Verifies the app transaction of a customer whose history holds no subscription.
    private func confirmAppTransaction(_ transactionId: String, client: AppStoreServerAPIClient) throws(Failure) {
        let response: AppTransactionInfoResponse
        do {
            response = try client.appTransactionInfo(transactionId: transactionId)
        } catch {
            throw .api(error)
        }
        do {
            _ = try ingestor.verification.current.verifyAppTransaction(response.signedAppTransactionInfo)
        } catch {
            throw .refused(item: "signedAppTransactionInfo", reason: error.description)
        }
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
}

/// The verified items of one customer's history and statuses, gathered as they are fetched.
private struct Collected {
    let bundleId: String
    let environment: AppStoreServerAPIEnvironment
    let ingestor: HistoryIngestor
    let limits: HistoryFetchLimits
    var items: [HistoryItem] = []
    /// Bytes of signed data held.
    var signedBytes = 0
    var ids: Set<String> = []
    var originals: Set<String> = []
    var users: Set<String> = []
    var ignored = 0
    /// The newest subscription transaction verified so far (by purchase date).
    var newest: SubscriptionTransaction?

    init(bundleId: String, environment: AppStoreServerAPIEnvironment, ingestor: HistoryIngestor, limits: HistoryFetchLimits) {
        self.bundleId = bundleId
        self.environment = environment
        self.ingestor = ingestor
        self.limits = limits
    }

    /// Verifies one page of history and keeps what verified, within the limits.
    mutating func verify(_ page: HistoryResponse) throws(CustomerHistorySync.Failure) {
        try checkEnvironment("history", page.rawEnvironment)
        let ingestor = ingestor
        let offset = transactionsSeen
        for (index, jws) in page.signedTransactions.enumerated() {
            try take("signedTransactions[\(offset + index)]") { () throws(SignedItemRefusal) in try ingestor.verifyTransaction(jws) }
            signedBytes += jws.utf8.count
        }
        transactionsSeen += page.signedTransactions.count
        if transactionsSeen > limits.maxTransactions {
            throw .tooLarge("more than \(limits.maxTransactions) transactions")
        }
        if signedBytes > limits.maxSignedBytes {
            throw .tooLarge("more than \(limits.maxSignedBytes >> 20) MiB of signed transactions")
        }
    }

    /// Transactions of the history read so far (verified or ignored).
    private var transactionsSeen = 0

    mutating func verify(_ statuses: StatusResponse) throws(CustomerHistorySync.Failure) {
        try checkEnvironment("statuses", statuses.rawEnvironment)
        let ingestor = ingestor
        for (groupIndex, group) in statuses.data.enumerated() {
            for (index, last) in group.lastTransactions.enumerated() {
                let place = "data[\(groupIndex)].lastTransactions[\(index)]"
                try take("\(place).signedTransactionInfo") { () throws(SignedItemRefusal) in try ingestor.verifyTransaction(last.signedTransactionInfo) }
                try take("\(place).signedRenewalInfo") { () throws(SignedItemRefusal) in try ingestor.verifyRenewal(last.signedRenewalInfo) }
            }
        }
    }

    /// The transaction to ask the statuses with: `asked` when the history holds it, else the
    /// newest subscription transaction's; nil when the history holds no subscription.
    func statusesTransaction(preferring asked: String) -> String? {
        if ids.contains(asked) || originals.contains(asked) { return asked }
        return newest?.originalTransactionId
    }

    func fetched(transactionId: String, requests: Int) -> CustomerHistorySync.Fetched {
        CustomerHistorySync.Fetched(transactionId: transactionId, environment: environment, items: items, transactionIds: ids,
                                    ignored: ignored, userIds: users, requests: requests)
    }

    private func checkEnvironment(_ what: String, _ named: String?) throws(CustomerHistorySync.Failure) {
        guard named == environment.rawValue else {
            throw .refused(item: what, reason: "the response names environment \(named ?? "(none)"), the request went to \(environment.rawValue)")
        }
    }

    private mutating func take(_ item: String, _ verify: () throws(SignedItemRefusal) -> HistoryItem) throws(CustomerHistorySync.Failure) {
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
            let transaction = stored.transaction
            guard transaction.bundleId == bundleId, transaction.environment.rawValue == environment.rawValue else {
                throw .refused(item: item, reason: "a transaction of \(transaction.bundleId) in \(transaction.environment.rawValue), "
                               + "asked of \(bundleId) in \(environment.rawValue)")
            }
            ids.insert(transaction.transactionId)
            originals.insert(transaction.originalTransactionId)
            if let user = transaction.appAccountToken { users.insert(user.lowercased()) }
            if newest.map({ ($0.purchaseDate, $0.transactionId) < (transaction.purchaseDate, transaction.transactionId) }) ?? true {
                newest = transaction
            }
        case .renewal(let stored):
            guard stored.renewal.environment.rawValue == environment.rawValue else {
                throw .refused(item: item, reason: "renewal info of \(stored.renewal.environment.rawValue), asked of \(environment.rawValue)")
            }
        case .notification:
            break
        }
        items.append(verified)
    }
}

extension CustomerHistorySync: HistoryFetcher {
    /// Fetches, verifies and stores; for the signing use case's unknown users.
    package func fetchHistory(bundleId: String, transactionId: String, deadline: ContinuousClock.Instant) throws {
        _ = try store(try fetch(bundleId: bundleId, transactionId: transactionId, deadline: deadline))
    }
}
