import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import OfferSignerClient
import Testing

/// `503 unavailable` retried with backoff and jitter up to the caller's deadline, against a
/// real `serve` made unavailable for real: it allows one connection per address and the test
/// holds that one in the middle of a request, so every request of the client is answered 503 with `Retry-After: 1`
/// until the test lets go. No assertion depends on how fast the machine is.
@Suite("OfferSignerClient retries an unavailable service", .serialized)
struct UnavailableRetryTests {
    static let busy = ["OFFER_SIGNER_MAX_CONNECTIONS_PER_ADDRESS": "1", "OFFER_SIGNER_REQUEST_TIMEOUT": "120",
                       "OFFER_SIGNER_CONNECTION_TIMEOUT": "120"]

    static func client(_ service: SignerService, deadline: TimeInterval, waits: Counter) -> OfferSignerClient {
        OfferSignerClient(baseURL: service.baseURL, apiKey: SignerService.clientToken, session: URLSession(configuration: .ephemeral),
                          retryPolicy: RetryPolicy(deadline: deadline, initialBackoff: 0.05, maximumBackoff: 0.2),
                          random: { waits.increment(); return 0.5 })
    }

    @Test("while the service stays unavailable the call ends with unavailable at the deadline, having retried",
          .timeLimit(.minutes(2)))  // a client that waited on past its deadline would never end: only that is timed
    func untilTheDeadline() async throws {
        let service = try SignerService(settings: Self.busy)
        try service.putOffer("winback")
        let held = try service.holdTheOnlyConnection()
        defer { close(held) }
        let waits = Counter()
        let error = await OfferSignerClientTests.refusal { () async throws(OfferSignerError) in
            try await Self.client(service, deadline: 2.5, waits: waits)
                .promotionalOffer(productID: SignerService.product, offerID: "winback", userID: OfferSignerClientTests.user)
        }
        guard case .unavailable(let attempts, _)? = error else {
            Issue.record("not unavailable: \(String(describing: error))")
            return
        }
        #expect(attempts >= 1 && attempts == waits.value)
        // The call gives up at its deadline rather than waiting on. The service asks for a
        // second between attempts (Retry-After: 1), so 2.5 s leave room for at most 3 attempts
        // however fast or slow the machine: a slow one makes fewer. (Wall-clock time is not
        // asserted: under a parallel build a run took 64 s.)
        #expect(attempts <= 3, "\(attempts) attempts in a 2.5 s deadline with Retry-After: 1")
    }

    @Test("a call that meets 503 waits and tries again, and signs once the service can answer")
    func retriedThenSigned() async throws {
        let service = try SignerService(settings: Self.busy)
        try service.putOffer("winback")
        let held = try service.holdTheOnlyConnection()
        let waits = Counter()
        let client = Self.client(service, deadline: 120, waits: waits)
        let call = Task { () async throws(OfferSignerError) -> SignedPromotionalOffer in
            try await client.promotionalOffer(productID: SignerService.product, offerID: "winback", userID: OfferSignerClientTests.user)
        }
        // Let go of the connection once the client has been refused and is waiting to retry.
        let giveUp = Date().addingTimeInterval(100)
        while waits.value == 0 && Date() < giveUp { try await Task.sleep(nanoseconds: 20_000_000) }
        close(held)
        let offer = try await call.value
        #expect(waits.value >= 1)
        #expect(offer.offerID == "winback")
    }
}
