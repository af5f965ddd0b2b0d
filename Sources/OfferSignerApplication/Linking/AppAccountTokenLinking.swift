import AppStoreServerAPI
import Foundation
import OfferSignerCore
import OfferSignerStore

/// One link of a subscription to a user at Apple: asks Set App Account Token to set the
/// subscription's app account token, never over a different one already set unless forced,
/// and records how it ended (`app_account_token_links`). Used by the background linker for
/// proven requests and by `offer-signer appstore link`.
///
/// Before asking, unless forced: the stored history of the subscription, the links recorded
/// here, and Apple's own copy of the original transaction (Get Transaction Info, verified like
/// any signed data) must carry no other token. A token already equal to the one asked is
/// recorded as linked without a call.
public struct AppAccountTokenLinking: Sendable {
    let clients: AppStoreAPIClients
    let verification: AppStoreVerification
    let history: any SubscriptionHistoryStore
    let links: any AppAccountTokenLinkStore
    let clock: WallClock

    public init(clients: AppStoreAPIClients, verification: AppStoreVerification, history: any SubscriptionHistoryStore,
                links: any AppAccountTokenLinkStore, clock: WallClock) {
        self.clients = clients
        self.verification = verification
        self.history = history
        self.links = links
        self.clock = clock
    }

    /// What to link.
    public struct Request: Sendable, Hashable {
        public var bundleId: String
        public var environment: AppStoreEnvironment
        public var originalTransactionId: String
        public var appAccountToken: UUID
        /// `service` or `cli:$USER`.
        public var actor: String
        public var requestId: String?
        /// Set the token whatever token is already set (the operator's decision).
        public var force: Bool = false

        /// The token as Apple and the history spell it.
        public var token: String { appAccountToken.uuidString.lowercased() }

        var apiEnvironment: AppStoreServerAPIEnvironment {
            AppStoreServerAPIEnvironment(rawValue: environment.rawValue) ?? .production
        }
    }

    /// How one attempt went.
    public enum Attempt: Sendable {
        /// It ended (linked, refused, or failed for good) and is recorded.
        case ended(AppAccountTokenLink)
        /// The subscription was linked here to this token before: nothing asked, nothing recorded again.
        case alreadyLinked
        /// Apple could not answer now (rate limit, 5xx, timeout, connection): try again later.
        case retry(AppStoreServerAPIError)
    }

    /// One attempt; `attempts` is the number of calls made so far, for the record.
    public func attempt(_ request: Request, attempts: Int = 0) throws -> Attempt {
        let linked = try links.linkedToken(bundleId: request.bundleId, environment: request.environment,
                                           originalTransactionId: request.originalTransactionId)
        if !request.force, linked == request.token { return .alreadyLinked }
        if !request.force, let existing = try existingToken(request, linked: linked) {
            switch existing {
            case .same(let source):
                return .ended(try record(request, .linked, reason: "already set (\(source))", attempts: attempts))
            case .other(let token, let source):
                return .ended(try record(request, .refused, existing: token,
                                         reason: "a different app account token is already set (\(source)); use --force to replace it",
                                         attempts: attempts))
            case .familyShared:
                return .ended(try record(request, .refused, reason: "a Family Sharing purchase takes no app account token",
                                         attempts: attempts))
            case .apple(let error) where error.isTransient:
                return .retry(error)
            case .apple(let error):
                // A transaction Apple does not know is a refusal of what was asked, as Set App Account Token's own answer is.
                var refused = false
                if case .transactionNotFound = error { refused = true }
                return .ended(try record(request, refused ? .refused : .failed, reason: "Get Transaction Info: \(error.description)",
                                         attempts: attempts))
            }
        }
        let client: AppStoreServerAPIClient
        do {
            client = try clients.client(bundleId: request.bundleId, environment: request.apiEnvironment)
        } catch {
            return .ended(try record(request, .failed, reason: error.description, attempts: attempts))
        }
        let answer: Result<Void, AppStoreServerAPIError>
        do {
            try client.setAppAccountToken(originalTransactionId: request.originalTransactionId, appAccountToken: request.appAccountToken)
            answer = .success(())
        } catch {
            answer = .failure(error)
        }
        switch answer {
        case .success:
            return .ended(try record(request, .linked, reason: nil, attempts: attempts + 1))
        case .failure(let error) where error.isTransient:
            return .retry(error)
        case .failure(let error):
            var refused = false
            if case .requestRejected(_, let code?, _) = error, ErrorPayload.appAccountTokenRefusals.contains(code) { refused = true }
            if case .transactionNotFound = error { refused = true }
            return .ended(try record(request, refused ? .refused : .failed, reason: error.description, attempts: attempts + 1))
        }
    }

    /// Records that Apple kept failing after `attempts` calls.
    public func gaveUp(_ request: Request, error: AppStoreServerAPIError, attempts: Int) throws -> AppAccountTokenLink {
        try record(request, .failed, reason: "gave up after \(attempts == 1 ? "1 attempt" : "\(attempts) attempts"): \(error.description)", attempts: attempts)
    }

    /// What is already set on the subscription.
    private enum Existing {
        case same(String)
        case other(String, String)
        case familyShared
        case apple(AppStoreServerAPIError)
    }

    /// The token already set, here or at Apple; nil when none is.
    private func existingToken(_ request: Request, linked: String?) throws -> Existing? {
        let subscription = try history.history(originalTransactionId: request.originalTransactionId, environment: request.environment,
                                               bundleId: request.bundleId)
        if let stored = subscription.transactions.sorted(by: { $0.signedDate > $1.signedDate }).compactMap(\.appAccountToken).first {
            return stored.lowercased() == request.token ? .same("in the stored history") : .other(stored.lowercased(), "in the stored history")
        }
        if let linked {
            return linked == request.token ? .same("linked here before") : .other(linked, "linked here before")
        }
        let info: TransactionInfoResponse
        do {
            let client = try clients.client(bundleId: request.bundleId, environment: request.apiEnvironment)
            info = try client.transactionInfo(transactionId: request.originalTransactionId)
        } catch let error as AppStoreServerAPIError {
            return .apple(error)
        } catch {
            return .apple(.invalidArgument(String(describing: error)))
        }
        let decoded: JWSTransactionDecodedPayload
        do {
            decoded = try verification.current.verifyTransaction(info.signedTransactionInfo)
        } catch {
            return .apple(.malformedResponse("Get Transaction Info sent a transaction that does not verify: \(error)"))
        }
        guard let transaction = SubscriptionTransaction(verified: decoded) else { return nil }
        if transaction.inAppOwnershipType == "FAMILY_SHARED" { return .familyShared }
        guard let token = transaction.appAccountToken?.lowercased() else { return nil }
        return token == request.token ? .same("at Apple") : .other(token, "at Apple")
    }

    private func record(_ request: Request, _ outcome: AppAccountTokenLink.Outcome, existing: String? = nil, reason: String?,
                        attempts: Int) throws -> AppAccountTokenLink {
        try links.record(AppAccountTokenLink(
            bundleId: request.bundleId, environment: request.environment, originalTransactionId: request.originalTransactionId,
            appAccountToken: request.token, outcome: outcome, existingToken: existing, reason: reason, actor: request.actor,
            requestId: request.requestId, forced: request.force, attempts: attempts, at: clock.now))
    }
}
