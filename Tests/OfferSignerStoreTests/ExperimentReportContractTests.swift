import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

extension StorageContract {
    /// The report's join (``ExperimentStore/forEachAssignedUser(bundleId:experimentId:environment:_:)``)
    /// and the `currency` column it reads, on both engines: the same users in the same order
    /// with the same periods, so the same numbers.
    @Suite("Storage contract: an experiment's assigned users joined to their periods")
    struct ExperimentReportContract {
        static let bundle = "com.example.app"
        static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        static let day: TimeInterval = 86_400
        static let tokenA = "6f1c2a34-0000-4000-8000-000000000001"
        static let tokenB = "6f1c2a34-0000-4000-8000-000000000002"

        static func jws(currency: String?) -> String {
            SignedPayloadCurrencyTests.jws(currency.map { #"{"price":1,"currency":"\#($0)"}"# } ?? #"{"price":1}"#)
        }

        static func period(_ id: String, original: String, user: String?, from: Date, days: Double, price: Int, currency: String?,
                           offer: Bool = false, revoked: Date? = nil, environment: AppStoreEnvironment = .production,
                           bundleId: String = bundle) -> HistoryItem {
            .transaction(StoredTransaction(transaction: SubscriptionTransaction(
                transactionId: id, originalTransactionId: original, bundleId: bundleId, productId: "pro", subscriptionGroupIdentifier: "g1",
                environment: environment, purchaseDate: from, expiresDate: from + days * day, revocationDate: revoked,
                revocationType: revoked == nil ? nil : "REFUND_FULL", offerType: offer ? 2 : nil, offerIdentifier: offer ? "half" : nil,
                offerDiscountType: offer ? "PAY_AS_YOU_GO" : nil, price: price, appAccountToken: user, signedDate: revoked ?? from),
                signedTransaction: jws(currency: currency)))
        }

        static func assignment(_ user: String, arm: String, experimentId: String = "exp1", environment: String = "Production",
                               at: Date = t0) -> ExperimentAssignment {
            ExperimentAssignment(bundleId: bundle, experimentId: experimentId, userKey: user, armId: arm, weightPeriod: 0,
                                 environment: environment, assignedAt: at.milliseconds, eligible: arm == "half",
                                 firstSignedAt: arm == "half" ? at.milliseconds : nil)
        }

        /// Four users of exp1 in Production (a token without periods, a token whose periods were
        /// stored with its capitals, a `transaction:` user, a key after the `transaction:` ones),
        /// one in Sandbox, one of another experiment; periods of another app, environment, or
        /// ended before the first assignment, which no user may get.
        static func seed(_ stores: Stores) throws {
            _ = try ExperimentStoreContract.set(stores.experiments, .running)
            for assigned in [assignment(tokenA, arm: "control"), assignment(tokenB, arm: "half"),
                             assignment("transaction:o-t", arm: "control", at: t0 - 5 * day), assignment("zz-after", arm: "half"),
                             assignment("6f1c2a34-0000-4000-8000-000000000003", arm: "half", environment: "Sandbox"),
                             assignment(tokenA, arm: "half", experimentId: "exp2")] {
                try stores.experiments.record(assigned, previous: nil)
            }
            let items: [HistoryItem] = [
                period("b1", original: "o-b", user: tokenB.uppercased(), from: t0 + 3_600, days: 30, price: 4_990, currency: "EUR", offer: true),
                period("b2", original: "o-b", user: tokenB, from: t0 + 31 * day, days: 30, price: 9_990, currency: "USD"),
                period("b-old", original: "o-b-old", user: tokenB, from: t0 - 100 * day, days: 30, price: 9_990, currency: "USD"),
                period("b-sandbox", original: "o-b-s", user: tokenB, from: t0 + 3_600, days: 60, price: 9_990, currency: "USD",
                       environment: .sandbox),
                period("b-other", original: "o-b-x", user: tokenB, from: t0 + 3_600, days: 60, price: 9_990, currency: "USD",
                       bundleId: "com.example.other"),
                period("t1", original: "o-t", user: nil, from: t0 + 7_200, days: 40, price: 9_990, currency: nil),
                period("t2", original: "o-t", user: nil, from: t0 + 10_800, days: 40, price: 9_990, currency: "GBP", revoked: t0 + 14_400),
                period("t-other", original: "o-t", user: nil, from: t0 + 7_200, days: 40, price: 9_990, currency: "USD",
                       bundleId: "com.example.other"),
                period("z1", original: "o-z", user: "zz-after", from: t0 + day, days: 60, price: 9_990, currency: "USD"),
            ]
            for item in items { #expect(try stores.history.record(item)) }
        }

        /// What each user of exp1 in `environment` comes with: key, arm, and the periods' purchase offsets (hours) with currencies.
        static func joined(_ stores: Stores, environment: String = "Production") throws -> [String] {
            var users: [String] = []
            try stores.experiments.forEachAssignedUser(bundleId: bundle, experimentId: "exp1", environment: environment) { assignment, periods in
                let found = periods.sorted { $0.purchasedAt < $1.purchasedAt }.map { period in
                    "\((period.purchasedAt - t0.milliseconds) / 3_600_000)h \(period.currency)\(period.revokedAt == nil ? "" : " refunded")"
                }
                users.append("\(assignment.userKey) \(assignment.armId) [\(found.joined(separator: ", "))]")
            }
            return users
        }

        static let expected = [
            "\(tokenA) control []",
            "\(tokenB) half [1h EUR, 744h USD]",
            "transaction:o-t control [2h XXX, 3h GBP refunded]",
            "zz-after half [24h USD]",
        ]

        @Test("each assigned user once, in key order, with their periods of the app and environment that end after the first assignment; the currency from its column",
              arguments: Engine.allCases)
        func joinedInKeyOrder(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try stores.experiments.forEachAssignedUser(bundleId: Self.bundle, experimentId: "exp1", environment: "Production") { _, _ in
                Issue.record("no assignment yet")
            }
            try Self.seed(stores)
            let joined = try Self.joined(stores)
            #expect(joined == Self.expected)
            #expect(try Self.joined(stores, environment: "Sandbox") == ["6f1c2a34-0000-4000-8000-000000000003 half []"],
                    "the Sandbox user alone, without the Production users' periods")
        }

        @Test("the numbers added up from the join are the same on both engines", arguments: Engine.allCases)
        func sameNumbers(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            defer { stores.close() }
            try Self.seed(stores)
            let experiment = try #require(try stores.experiments.experiment(bundleId: Self.bundle, experimentId: "exp1")).rule
            var tally = ExperimentTally(experiment: experiment)
            let now = (Self.t0 + 90 * Self.day).milliseconds
            try stores.experiments.forEachAssignedUser(bundleId: Self.bundle, experimentId: "exp1", environment: "Production") { user, periods in
                let horizon = tally.horizon(assignedAt: user.assignedAt)
                tally.add(armId: user.armId, weightPeriod: user.weightPeriod, assignedAt: user.assignedAt, eligible: user.eligible,
                          signed: user.firstSignedAt != nil, redeemed: false, now: now) {
                    (ExperimentUserOutcome.judge(periods, assignedAt: user.assignedAt, horizon: horizon),
                     ExperimentUserOutcome.revenue(periods, assignedAt: user.assignedAt, horizon: horizon))
                }
            }
            let arms = tally.results(now: Date(milliseconds: now)).arms
            #expect(arms.map(\.armId) == ["control", "half"])
            #expect(arms.map(\.assigned) == [2, 2] && arms.map(\.matured) == [2, 2] && arms.map(\.signed) == [0, 2])
            #expect(arms.map(\.retained) == [0, 1] && arms.map(\.churned) == [1, 0] && arms.map(\.refunded) == [1, 0] && arms.map(\.inOffer) == [0, 1])
            #expect(arms.map(\.revenue) == [["XXX": 9_990], ["EUR": 4_990, "USD": 9_990]])
        }

        @Test("the migration fills the currency of transactions stored before it from their JWS", arguments: Engine.allCases)
        func backfilled(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            var stores = try database.open()
            try Self.seed(stores)
            stores.close()
            // Back to the schema before the column, the rows as an older build stored them.
            let summary = SchemaStep.transactionCurrency.summary
            let version = try #require(engine == .sqlite ? SQLiteSchema.migrations.first { $0.summary == summary }?.version
                                                         : PostgreSQLSchema.migrations.first { $0.summary == summary }?.version)
            try database.execute("ALTER TABLE transactions DROP COLUMN currency; DELETE FROM schema_migrations WHERE version >= \(version)")
            stores = try database.open()
            defer { stores.close() }
            let joined = try Self.joined(stores)
            #expect(joined == Self.expected)
            #expect(try stores.experiments.revenuePerUser(bundleId: Self.bundle, environment: "Production", from: 0, to: .max)
                .mapValues { $0.sorted() } == ["EUR": [4_990], "USD": [9_990, 19_980], "XXX": [9_990]])
        }

        @Test("the backfill writes page by page: every page's currencies, a payload without one left NULL, on both engines",
              arguments: Engine.allCases)
        func backfilledInPages(engine: Engine) throws {
            let database = try EngineDatabase(engine)
            defer { database.cleanup() }
            let stores = try database.open()
            try Self.seed(stores)
            stores.close()
            let filled = "SELECT transaction_id || ' ' || COALESCE(currency, '-') FROM transactions ORDER BY environment, transaction_id"
            let expected = try database.text(filled)
            #expect(expected.contains("t1 -") && expected.contains("b1 EUR") && expected.split(separator: "\n").count == 9)
            try database.execute("UPDATE transactions SET currency = NULL")
            try database.backfillCurrency(pageSize: 2)
            #expect(try database.text(filled) == expected)
        }
    }
}

extension EngineDatabase {
    /// Runs the currency's backfill (``TransactionCurrencyBackfill``) over the database in one transaction, `pageSize` rows a statement.
    func backfillCurrency(pageSize: Int) throws {
        switch location {
        case .sqlite(let path):
            try SQLiteDatabase(path: path).inTransaction { db in try TransactionCurrencyBackfill.run(db, pageSize: pageSize) }
        case .postgreSQL(let url):
            try PostgreSQLDatabase(url: url).inTransaction { db in try TransactionCurrencyBackfill.run(db, pageSize: pageSize) }
        }
    }
}
