import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
import OfferSignerStore
import Testing

/// A rule store whose database cannot be reached, as a PostgreSQL store is while the server restarts.
struct UnreachableRuleStore: RuleStore {
    static let reason = "connection refused"

    func rule<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String) throws -> StoredRule<Rule>? {
        throw DatabaseUnavailable(reason: Self.reason)
    }

    func rules<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?) throws -> [StoredRule<Rule>] {
        throw DatabaseUnavailable(reason: Self.reason)
    }

    func put<Rule: ManagedRule>(_ rule: Rule, by actor: String, at now: Date) throws -> StoredRule<Rule> {
        throw DatabaseUnavailable(reason: Self.reason)
    }

    func disable<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String, ruleId: String, by actor: String,
                                    at now: Date) throws -> StoredRule<Rule>? {
        throw DatabaseUnavailable(reason: Self.reason)
    }

    func changes<Rule: ManagedRule>(_ type: Rule.Type, bundleId: String?, ruleId: String?, afterId: Int64,
                                    limit: Int) throws -> [RuleChange<Rule>] {
        throw DatabaseUnavailable(reason: Self.reason)
    }
}

@Suite("An unreachable database")
struct UnreachableDatabaseTests {
    @Test("introductory-offer eligibility is refused as unavailable (503, retry), not as an internal failure, and nothing is signed")
    func introductoryEligibility() throws {
        let env = try TestEnvironment()
        env.rules = UnreachableRuleStore()
        let request = IntroductoryOfferRequest(bundleId: nil, productId: TestEnvironment.product, userId: "user-1",
                                               transactionId: "2000000001", requestedBy: "client", requestId: "r-1")
        #expect {
            _ = try env.issuer.issue(request)
        } throws: { error in
            guard case .storeUnavailable(reason: UnreachableRuleStore.reason) = error as? SignRefusal else { return false }
            return (error as? SignRefusal)?.problem.status == 503
        }
        #expect(try env.signatures.verifyIntegrity().records == 0)
    }
}
