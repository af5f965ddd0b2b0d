import Foundation
import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// Databases made by earlier versions open under the current schema without losing anything.
@Suite("SQLite schema migrations")
struct SchemaMigrationTests {
    /// The schema as version 3 (before offers were keyed by app and history by environment)
    /// left it, its version in `PRAGMA user_version`.
    static let version3Schema = """
        CREATE TABLE signatures (seq INTEGER PRIMARY KEY, nonce TEXT NOT NULL UNIQUE, format TEXT NOT NULL,
            bundle_id TEXT NOT NULL, product_id TEXT NOT NULL, offer_id TEXT NOT NULL, user_id TEXT NOT NULL, key_id TEXT NOT NULL,
            timestamp_ms INTEGER NOT NULL, signature TEXT NOT NULL, transaction_id TEXT, api_key_name TEXT NOT NULL,
            request_id TEXT NOT NULL, recorded_at_ms INTEGER NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
        CREATE INDEX signatures_by_user_offer ON signatures(user_id, offer_id, timestamp_ms);
        CREATE INDEX signatures_by_time ON signatures(timestamp_ms);
        CREATE TABLE offers (offer_id TEXT PRIMARY KEY, bundle_id TEXT NOT NULL, rule_json TEXT NOT NULL, version INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);
        CREATE TABLE offer_changes (id INTEGER PRIMARY KEY, offer_id TEXT NOT NULL, version INTEGER NOT NULL, action TEXT NOT NULL,
            api_key_name TEXT NOT NULL, changed_at_ms INTEGER NOT NULL, before_json TEXT, after_json TEXT);
        CREATE INDEX offer_changes_by_offer ON offer_changes(offer_id, id);
        CREATE TABLE notifications (notification_uuid TEXT PRIMARY KEY, notification_type TEXT NOT NULL, subtype TEXT,
            bundle_id TEXT, environment TEXT, signed_date_ms INTEGER NOT NULL, received_at_ms INTEGER NOT NULL,
            signed_payload TEXT NOT NULL);
        CREATE TABLE transactions (transaction_id TEXT PRIMARY KEY, original_transaction_id TEXT NOT NULL, bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL, group_id TEXT NOT NULL, user_id TEXT, purchase_ms INTEGER NOT NULL, expires_ms INTEGER,
            revocation_ms INTEGER, offer_type INTEGER, offer_id TEXT, offer_discount_type TEXT, price INTEGER, storefront TEXT,
            signed_date_ms INTEGER NOT NULL, environment TEXT, signed_transaction TEXT NOT NULL);
        CREATE INDEX transactions_by_user ON transactions(bundle_id, user_id);
        CREATE INDEX transactions_by_original ON transactions(original_transaction_id);
        CREATE INDEX transactions_by_product ON transactions(bundle_id, product_id);
        CREATE TABLE renewals (original_transaction_id TEXT PRIMARY KEY, product_id TEXT, auto_renew_status INTEGER,
            in_billing_retry INTEGER, grace_expires_ms INTEGER, signed_date_ms INTEGER NOT NULL, environment TEXT,
            signed_renewal_info TEXT NOT NULL);
        CREATE TABLE signature_chain_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
        PRAGMA user_version=3;
        """

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A compact JWS with `payload`, as stored: the migration reads only its payload.
    static func jws(_ payload: [String: Any]) -> String {
        let part = { (object: [String: Any]) in
            Base64URL.encode(Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        }
        return part(["alg": "ES256", "x5c": ["MIIB"]]) + "." + part(payload) + ".c2lnbmF0dXJl"
    }

    /// Makes a version-3 database at `path` with two apps' offers and some history, by SQL.
    static func makeVersion3Database(at path: String) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute(version3Schema)
        let ms = t0.milliseconds
        for (offerId, bundleId) in [("winback", "com.a"), ("intro", "com.b")] {
            let rule = try RuleCoding.encode(OfferRule(offerId: offerId, bundleId: bundleId, productIds: ["\(bundleId).pro"], priority: 3))
            try connection.run("INSERT INTO offers VALUES (?, ?, ?, 2, ?, ?)",
                               [.text(offerId), .text(bundleId), .text(rule), .integer(ms), .integer(ms)])
            for version in [1, 2] {
                try connection.run("""
                    INSERT INTO offer_changes (offer_id, version, action, api_key_name, changed_at_ms, before_json, after_json)
                    VALUES (?, ?, ?, 'marketing', ?, NULL, ?)
                    """, [.text(offerId), .integer(Int64(version)), .text(version == 1 ? "create" : "update"), .integer(ms), .text(rule)])
            }
        }
        let refunded = jws([
            "transactionId": "t1", "originalTransactionId": "o1", "bundleId": "com.a", "environment": "Production",
            "revocationDate": ms + 3_600_000, "revocationReason": 0, "revocationType": "REFUND_PRORATED", "revocationPercentage": 50_000,
            "isUpgraded": false, "inAppOwnershipType": "FAMILY_SHARED", "transactionReason": "RENEWAL", "signedDate": ms,
        ])
        try connection.run("""
            INSERT INTO transactions VALUES ('t1', 'o1', 'com.a', 'com.a.pro', 'g1', 'user-1', ?, ?, ?, NULL, NULL, NULL, 9990, 'USA',
                ?, 'Production', ?)
            """, [.integer(ms), .integer(ms + 86_400_000), .integer(ms + 3_600_000), .integer(ms), .text(refunded)])
        let sandbox = jws(["transactionId": "t2", "originalTransactionId": "o2", "environment": "Sandbox", "transactionReason": "PURCHASE",
                           "signedDate": ms])
        try connection.run("""
            INSERT INTO transactions VALUES ('t2', 'o2', 'com.a', 'com.a.pro', 'g1', 'user-1', ?, ?, NULL, NULL, NULL, NULL, 9990, 'USA',
                ?, NULL, ?)
            """, [.integer(ms), .integer(ms + 86_400_000), .integer(ms), .text(sandbox)])
        let renewal = jws(["originalTransactionId": "o1", "environment": "Production", "expirationIntent": 3,
                           "eligibleWinBackOfferIds": ["apple_wb"], "signedDate": ms])
        try connection.run("INSERT INTO renewals VALUES ('o1', 'com.a.pro', 0, 0, NULL, ?, 'Production', ?)",
                           [.integer(ms), .text(renewal)])
    }

    @Test("migrations are numbered 1, 2, 3… in order")
    func numbering() {
        #expect(SQLiteSchema.migrations.map(\.version) == Array(1...SQLiteSchema.migrations.count))
        #expect(SQLiteSchema.latestVersion == SQLiteSchema.migrations.count)
    }

    @Test("a version-3 database opens at the latest version: offers keep their app, history rows get the new columns")
    func fromVersion3() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        try Self.makeVersion3Database(at: temp.path)
        let database = try temp.open()

        let applied = try database.read { db in
            try db.query("SELECT version, summary FROM schema_migrations ORDER BY version") { ($0.int(0), $0.text(1)) }
        }
        #expect(applied.map(\.0) == Array(1...SQLiteSchema.latestVersion))
        #expect(applied.prefix(3).allSatisfy { $0.1.contains("adopted from user_version") })
        #expect(try database.read { db in try db.scalar("PRAGMA user_version") } == Int64(SQLiteSchema.latestVersion))

        let offers = try SQLiteOfferStore(database: database)
        #expect(try offers.offer(bundleId: "com.a", offerId: "winback")?.version == 2)
        #expect(try offers.offer(bundleId: "com.b", offerId: "intro")?.rule.priority == 3)
        #expect(try offers.offer(bundleId: "com.b", offerId: "winback") == nil)
        let changes = try offers.changes(bundleId: "com.b", offerId: nil, afterId: 0, limit: 10)
        #expect(changes.map(\.offerId) == ["intro", "intro"] && changes.allSatisfy { $0.bundleId == "com.b" })
        // The same offer ID in the other app is now a new offer, not a move.
        let moved = try offers.put(OfferRule(offerId: "winback", bundleId: "com.b", productIds: ["com.b.pro"]), by: "m", at: Self.t0)
        #expect(moved.version == 1)
        #expect(try offers.offer(bundleId: "com.a", offerId: "winback")?.version == 2)

        let history = SQLiteHistoryStore(database: database)
        defer { history.close() }
        let user = try history.history(userId: "user-1", bundleId: "com.a")
        let refunded = try #require(user.transactions.first { $0.transactionId == "t1" })
        #expect(refunded.environment == .production)
        #expect(refunded.revocationReason == 0 && refunded.revocationType == "REFUND_PRORATED" && refunded.revocationPercentage == 50_000)
        #expect(refunded.isUpgraded == false && refunded.inAppOwnershipType == "FAMILY_SHARED" && refunded.transactionReason == "RENEWAL")
        #expect(refunded.price == 9990 && refunded.storefront == "USA", "the old columns are kept")
        let sandbox = try #require(user.transactions.first { $0.transactionId == "t2" })
        #expect(sandbox.environment == .sandbox, "a row stored without its environment gets the one its JWS names")
        #expect(user.renewals.map(\.expirationIntent) == [3])
        #expect(user.renewals.map(\.eligibleWinBackOfferIds) == [["apple_wb"]])
        #expect(user.renewals.map(\.environment) == [.production])
    }

    @Test("reopening applies nothing again; a database newer than this build is refused")
    func reopenAndNewer() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        _ = try temp.open()
        let reopened = try temp.open()
        #expect(try reopened.read { db in try db.scalar("SELECT COUNT(*) FROM schema_migrations") } == Int64(SQLiteSchema.latestVersion))

        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        try connection.run("INSERT INTO schema_migrations (version, summary, applied_at_ms) VALUES (?, 'from the future', 0)",
                           [.integer(Int64(SQLiteSchema.latestVersion + 1))])
        #expect {
            _ = try temp.open()
        } throws: { error in
            "\(error)".contains("newer than the version \(SQLiteSchema.latestVersion) this build knows")
        }
    }

    @Test("a version-8 database gets the 2026 history fields filled from the stored JWS; rows without them stay empty")
    func fromVersion8() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        try connection.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, summary TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)")
        for migration in SQLiteSchema.migrations.prefix(8) {
            try connection.execute(migration.sql)
            try migration.backfill?(connection)
            try connection.run("INSERT INTO schema_migrations VALUES (?, ?, 0)", [.integer(Int64(migration.version)), .text(migration.summary)])
        }
        let withFields = Self.jws(["transactionId": "t1", "appTransactionId": "704289572911", "offerPeriod": "P3M",
                                   "billingPlanType": "MONTHLY_COMMITMENT", "commitmentInfo": ["commitmentPeriodCount": 12]])
        for (id, jws) in [("t1", withFields), ("t2", Self.jws(["transactionId": "t2"])), ("t3", "not a jws")] {
            try connection.run("""
                INSERT INTO transactions (environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id, user_id,
                    purchase_ms, expires_ms, signed_date_ms, signed_transaction)
                VALUES ('Production', ?, 'o1', 'com.a', 'p', 'g', 'u', 1, 2, 3, ?)
                """, [.text(id), .text(jws)])
        }
        try connection.run("""
            INSERT INTO renewals (environment, original_transaction_id, win_back_offer_ids, signed_date_ms, signed_renewal_info)
            VALUES ('Production', 'o1', '[]', 3, ?)
            """, [.text(Self.jws(["originalTransactionId": "o1", "appTransactionId": "704289572911"]))])

        let database = try temp.open()
        #expect(try SQLiteSchema.version(connection) == SQLiteSchema.latestVersion)
        let store = SQLiteHistoryStore(database: database)
        defer { store.close() }
        let history = try store.history(userId: "u", bundleId: "com.a")
        let byId = Dictionary(uniqueKeysWithValues: history.transactions.map { ($0.transactionId, $0) })
        #expect(byId["t1"]?.appTransactionId == "704289572911" && byId["t1"]?.offerPeriod == "P3M")
        #expect(byId["t1"]?.billingPlanType == "MONTHLY_COMMITMENT")
        #expect(byId["t1"]?.commitmentInfo == .dictionary(["commitmentPeriodCount": .int(12)]))
        #expect(byId["t2"]?.appTransactionId == nil && byId["t3"]?.appTransactionId == nil)
        #expect(history.renewals.first?.appTransactionId == "704289572911")
    }

    @Test("a version-17 database's experiment assignments are kept, in a table in their key's order without row IDs (version 18)")
    func fromVersion17() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let connection = try SQLiteConnection(path: temp.path, readOnly: false)
        try connection.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, summary TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)")
        for migration in SQLiteSchema.migrations.prefix(17) {
            try connection.execute(migration.sql)
            try migration.backfill?(connection)
            try connection.run("INSERT INTO schema_migrations VALUES (?, ?, 0)", [.integer(Int64(migration.version)), .text(migration.summary)])
        }
        let rows = "SELECT bundle_id || ' ' || experiment_id || ' ' || user_key || ' ' || arm_id || ' ' || weight_period || ' ' || environment"
            + " || ' ' || assigned_at_ms || ' ' || eligible || ' ' || COALESCE(first_signed_at_ms, '-') FROM experiment_assignments"
            + " ORDER BY bundle_id, experiment_id, user_key"
        for (user, arm, signed) in [("u2", "half", "7"), ("u1", "control", "NULL"), ("transaction:9", "half", "NULL")] {
            try connection.execute("""
                INSERT INTO experiment_assignments VALUES ('com.a', 'exp1', '\(user)', '\(arm)', 1, 'Production', 5, 1, \(signed))
                """)
        }
        let before = try connection.query(rows) { $0.text(0) }
        #expect(before.count == 3)
        #expect(try connection.query("SELECT wr FROM pragma_table_list WHERE name = 'experiment_assignments'") { $0.int64(0) } == [0])

        let database = try temp.open()
        #expect(try SQLiteSchema.version(connection) == SQLiteSchema.latestVersion)
        #expect(try database.read { db in try db.query(rows) { $0.text(0) } } == before, "every row kept as it was")
        #expect(try database.read { db in try db.query("SELECT wr FROM pragma_table_list WHERE name = 'experiment_assignments'") { $0.int64(0) } } == [1],
                "WITHOUT ROWID")
        // The key still holds: a user's second assignment in an experiment is refused.
        #expect(throws: SQLiteError.self) {
            try database.write { db in
                try db.execute("INSERT INTO experiment_assignments VALUES ('com.a', 'exp1', 'u1', 'half', 1, 'Production', 6, 0, NULL)")
            }
        }
    }

    @Test("a PostgreSQL database of version 2 gets the 2026 history fields filled from the stored JWS")
    func postgreSQLFromVersion2() throws {
        let database = try EngineDatabase(.postgreSQL)
        defer { database.cleanup() }
        guard case .postgreSQL(let url) = database.location else { return }
        let connection = try PostgreSQLConnection(url: url, applicationName: "test", timeout: .seconds(10))
        try connection.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, summary TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)")
        for migration in PostgreSQLSchema.migrations.prefix(2) {
            try connection.execute(migration.sql)
            try connection.query("INSERT INTO schema_migrations VALUES ($1, $2, 0)", [.integer(Int64(migration.version)), .text(migration.summary)])
        }
        let jws = Self.jws(["transactionId": "t1", "appTransactionId": "704289572911", "advancedCommerceInfo": ["requestReferenceId": "r"]])
        try connection.query("""
            INSERT INTO transactions (environment, transaction_id, original_transaction_id, bundle_id, product_id, group_id, user_id,
                purchase_ms, expires_ms, signed_date_ms, signed_transaction)
            VALUES ('Production', 't1', 'o1', 'com.a', 'p', 'g', 'u', 1, 2, 3, $1)
            """, [.text(jws)])
        let stores = try database.open()
        defer { stores.close() }
        #expect(stores.schemaVersion == PostgreSQLSchema.latestVersion)
        let transaction = try stores.history.history(userId: "u", bundleId: "com.a").transactions.first
        #expect(transaction?.appTransactionId == "704289572911")
        #expect(transaction?.advancedCommerceInfo == .dictionary(["requestReferenceId": .string("r")]))
    }
}
