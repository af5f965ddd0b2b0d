import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of offer-signer for apps: a signed promotional offer just before the purchase,
/// the signed introductory-offer eligibility of one or several products, and the customer's
/// offers for a paywall. Every refusal the service documents is thrown as an
/// ``OfferSignerError``; `503 unavailable` is retried by the ``RetryPolicy``.
///
/// ```swift
/// let signer = OfferSignerClient(baseURL: URL(string: "https://offers.example.com")!, apiKey: token)
/// let offer = try await signer.promotionalOffer(productID: product.id, offerID: "winback", userID: accountToken,
///                                              proof: await StoreKitProof.find(groupProductIDs: groupIDs))
/// let result = try await product.purchase(options: offer.purchaseOptions)
/// ```
public struct OfferSignerClient: Sendable {
    private let sender: RequestSender

    /// A client of the service at `baseURL` (the part before `/v1/…`) with an API token of role
    /// `client` (shipped in apps: mark it `"proof": "required"` and send ``CustomerProof``).
    /// - Parameters:
    ///   - session: the URL session requests go through.
    ///   - retryPolicy: how long a call keeps trying while the service is unavailable.
    public init(baseURL: URL, apiKey: String, session: URLSession = .shared, retryPolicy: RetryPolicy = .default) {
        self.init(baseURL: baseURL, apiKey: apiKey, session: session, retryPolicy: retryPolicy,
                  random: { Double.random(in: 0...1) })
    }

    /// A client whose jitter comes from `random` (tests).
    init(baseURL: URL, apiKey: String, session: URLSession, retryPolicy: RetryPolicy, random: @escaping @Sendable () -> Double) {
        sender = RequestSender(baseURL: baseURL, apiKey: apiKey, session: session, retryPolicy: retryPolicy, random: random)
    }

    /// Asks the service to sign promotional offer `offerID` of `productID` for the customer
    /// (`POST /v1/offers/sign`).
    /// - Parameters:
    ///   - userID: the app account token the purchase will carry (a UUID, lowercased by the
    ///     service), or `""` with `proof` for a customer whose purchases carry none.
    ///   - proof: the customer's Apple-signed transaction; required by keys shipped in apps.
    ///   - format: legacy (key ID, nonce, timestamp, signature) or a compact JWS.
    ///   - transactionID: bound into the JWS format's signature (with proof: the proven
    ///     transaction's ID or its original's).
    ///   - environment: `.sandbox` from TestFlight and development builds; Production if `nil`.
    ///   - bundleID: the app, when the service is configured for more than one.
    /// - Throws: ``OfferSignerError``: `notEligible` with the reasons, `proofRequired`,
    ///   `proofMismatch`, `invalidSignedData`, `consentRescinded`, `rateLimited`, `unavailable`
    ///   (after retrying), `invalidRequest`, `notFound`, `unauthorized`, `forbidden`, `transport`.
    public func promotionalOffer(productID: String, offerID: String, userID: String, proof: CustomerProof? = nil,
                                 format: PromotionalOfferFormat = .legacy, transactionID: String? = nil,
                                 environment: AppStoreEnvironment? = nil,
                                 bundleID: String? = nil) async throws(OfferSignerError) -> SignedPromotionalOffer {
        let body = try WireFormat.encode(WireFormat.SignRequest(
            productId: productID, offerId: offerID, userId: userID, format: format.rawValue, bundleId: bundleID,
            transactionId: transactionID, signedTransaction: proof?.signedTransaction,
            signedAppTransaction: proof?.signedAppTransaction, deviceVerificationId: proof?.deviceVerificationIdText,
            environment: environment?.rawValue))
        let data = try await sender.send("POST", path: ["v1", "offers", "sign"], body: body)
        return try WireFormat.decode(WireFormat.SignResponse.self, from: data).offer()
    }

    /// Asks the service for the offer of placement `placement` (a moment of the app such as
    /// `cancel_flow`, configured by marketing with its offers in priority order): the service
    /// picks the first offer the customer is eligible for and signs it
    /// (`POST /v1/offers/placement`). The offer's ``SignedPromotionalOffer/offerID`` says which.
    /// While an experiment runs on the placement, the customer's arm picks the offer, and the
    /// answer names the experiment and the arm.
    /// - Parameters: as for ``promotionalOffer(productID:offerID:userID:proof:format:transactionID:environment:bundleID:)``.
    /// - Throws: ``OfferSignerError`` as that call does; `notEligible` with the reasons of every
    ///   offer of the placement (or of the customer's arm); `experimentControl` when the
    ///   customer's arm shows no offer; `notFound` for a placement the app does not have (or has disabled).
    public func offer(forPlacement placement: String, productID: String, userID: String, proof: CustomerProof? = nil,
                      format: PromotionalOfferFormat = .legacy, transactionID: String? = nil, environment: AppStoreEnvironment? = nil,
                      bundleID: String? = nil) async throws(OfferSignerError) -> PlacedPromotionalOffer {
        let body = try WireFormat.encode(WireFormat.SignRequest(
            placement: placement, productId: productID, userId: userID, format: format.rawValue, bundleId: bundleID,
            transactionId: transactionID, signedTransaction: proof?.signedTransaction,
            signedAppTransaction: proof?.signedAppTransaction, deviceVerificationId: proof?.deviceVerificationIdText,
            environment: environment?.rawValue))
        let data = try await sender.send("POST", path: ["v1", "offers", "placement"], body: body)
        let placed = try WireFormat.decode(WireFormat.PlacementResponse.self, from: data)
        return PlacedPromotionalOffer(placement: placed.placement, offer: try WireFormat.decode(WireFormat.SignResponse.self, from: data).offer(),
                                      experimentID: placed.experimentId, armID: placed.armId)
    }

    /// Asks the service to decide and sign whether the customer gets `productID`'s introductory
    /// offer (`POST /v1/offers/introductory-eligibility`). The answer is signed either way.
    /// - Parameters:
    ///   - userID: the customer's app account token, or `""` with `proof`.
    ///   - transactionID: any transaction of the customer (or their `appTransactionId`); with
    ///     proof, the proven transaction's, its original's or the proof's `appTransactionId`.
    ///     `nil` takes ``CustomerProof/transactionID``.
    ///   - proof, environment, bundleID: as for ``promotionalOffer(productID:offerID:userID:proof:format:transactionID:environment:bundleID:)``.
    /// - Throws: ``OfferSignerError`` as that call does (never `notEligible`: a withheld offer is
    ///   a signed `false`); `invalidRequest` when there is no transaction ID to send.
    public func introductoryOfferEligibility(productID: String, userID: String, transactionID: String? = nil,
                                             proof: CustomerProof? = nil, environment: AppStoreEnvironment? = nil,
                                             bundleID: String? = nil) async throws(OfferSignerError) -> IntroductoryOfferEligibility {
        guard let transaction = transactionID ?? proof?.transactionID else {
            throw .invalidRequest(detail: "a transaction ID of the customer is needed: pass transactionID or a proof that has one")
        }
        let body = try WireFormat.encode(WireFormat.IntroductoryRequest(
            productId: productID, userId: userID, transactionId: transaction, bundleId: bundleID,
            signedTransaction: proof?.signedTransaction, signedAppTransaction: proof?.signedAppTransaction,
            deviceVerificationId: proof?.deviceVerificationIdText, environment: environment?.rawValue))
        let data = try await sender.send("POST", path: ["v1", "offers", "introductory-eligibility"], body: body)
        let answer = try WireFormat.decode(WireFormat.IntroductoryResponse.self, from: data)
        return IntroductoryOfferEligibility(
            productID: productID, allowIntroductoryOffer: answer.allowIntroductoryOffer, compactJWS: answer.jws,
            nonce: try WireFormat.uuid(answer.nonce), keyID: answer.keyIdentifier, reasons: answer.reasons)
    }

    /// The introductory-offer eligibility of each of `productIDs` (one request each, in turn),
    /// keyed by product ID. The first refusal ends the call.
    public func introductoryOfferEligibility(productIDs: [String], userID: String, transactionID: String? = nil,
                                             proof: CustomerProof? = nil, environment: AppStoreEnvironment? = nil,
                                             bundleID: String? = nil) async throws(OfferSignerError) -> [String: IntroductoryOfferEligibility] {
        var answers: [String: IntroductoryOfferEligibility] = [:]
        for productID in productIDs where answers[productID] == nil {
            answers[productID] = try await introductoryOfferEligibility(
                productID: productID, userID: userID, transactionID: transactionID, proof: proof,
                environment: environment, bundleID: bundleID)
        }
        return answers
    }

    /// The introductory-offer eligibility of every product of a store page in one request
    /// (`productIds`, 1–20 distinct products of one app), in the order given. A product the
    /// service does not know fails the whole call with `notFound` naming it (the per-product
    /// ``introductoryOfferEligibility(productIDs:userID:transactionID:proof:environment:bundleID:)``
    /// answers for any product, one request each). Needs a service that answers store pages.
    public func introductoryOfferEligibility(storePage productIDs: [String], userID: String, transactionID: String? = nil,
                                             proof: CustomerProof? = nil, environment: AppStoreEnvironment? = nil,
                                             bundleID: String? = nil) async throws(OfferSignerError) -> [IntroductoryOfferEligibility] {
        guard let transaction = transactionID ?? proof?.transactionID else {
            throw .invalidRequest(detail: "a transaction ID of the customer is needed: pass transactionID or a proof that has one")
        }
        let body = try WireFormat.encode(WireFormat.IntroductoryRequest(
            productIds: productIDs, userId: userID, transactionId: transaction, bundleId: bundleID,
            signedTransaction: proof?.signedTransaction, signedAppTransaction: proof?.signedAppTransaction,
            deviceVerificationId: proof?.deviceVerificationIdText, environment: environment?.rawValue))
        let data = try await sender.send("POST", path: ["v1", "offers", "introductory-eligibility"], body: body)
        let answer = try WireFormat.decode(WireFormat.IntroductoryPageResponse.self, from: data)
        guard answer.items.count == productIDs.count else {
            throw .unexpectedResponse(status: 200, code: nil,
                                      detail: "\(answer.items.count) answers for \(productIDs.count) products")
        }
        var answers: [IntroductoryOfferEligibility] = []
        for (productID, item) in zip(productIDs, answer.items) {
            answers.append(IntroductoryOfferEligibility(
                productID: productID, allowIntroductoryOffer: item.allowIntroductoryOffer, compactJWS: item.jws,
                nonce: try WireFormat.uuid(item.nonce), keyID: item.keyIdentifier, reasons: item.reasons))
        }
        return answers
    }

    /// The offers of the customer's app with whether the customer is eligible for each, best
    /// priority first (`GET /v1/users/{userId}/offers`), for a paywall.
    /// - Parameters:
    ///   - productID: only the offers for this product.
    ///   - environment, bundleID: as for signing.
    public func offers(userID: String, productID: String? = nil, environment: AppStoreEnvironment? = nil,
                       bundleID: String? = nil) async throws(OfferSignerError) -> CustomerOffers {
        var query: [URLQueryItem] = []
        if let productID { query.append(URLQueryItem(name: "productId", value: productID)) }
        if let environment { query.append(URLQueryItem(name: "environment", value: environment.rawValue)) }
        if let bundleID { query.append(URLQueryItem(name: "bundleId", value: bundleID)) }
        let data = try await sender.send("GET", path: ["v1", "users", userID, "offers"], query: query)
        return try WireFormat.decode(CustomerOffers.self, from: data)
    }
}
