import Foundation
import OfferSignerCore

/// The database schema, as numbered migrations applied in order.
///
/// How the schema changes: a new migration gets the next number, its SQL and, when SQL alone
/// cannot fill its new columns (say, from a signed JWS), a backfill. A migration once released
/// never changes (`ReleasedMigrationsTests` pins each by its digest). `migrate` applies every
/// migration a database lacks, each in its own IMMEDIATE transaction together with its row in
/// `schema_migrations` (version, summary, time applied), so the database always records its
/// version and two processes opening it at once apply each migration once. A database of a
/// newer version than this build knows is refused rather than misread. (The PostgreSQL store
/// numbers its migrations the same way.) A migration both engines take alike is written once,
/// as a ``SchemaStep`` in `SQL/`, and each engine lists it under its own next number.
enum SQLiteSchema {
    /// The version a database has once every migration is applied.
    static var latestVersion: Int { migrations.count }

    static let migrations: [SQLiteMigration] = [
        SQLiteMigration(version: 1, summary: "the signature log, offer rules and their change history", sql: """
        CREATE TABLE signatures (
            seq INTEGER PRIMARY KEY,
            nonce TEXT NOT NULL UNIQUE,
            format TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            key_id TEXT NOT NULL,
            timestamp_ms INTEGER NOT NULL,
            signature TEXT NOT NULL,
            transaction_id TEXT,
            api_key_name TEXT NOT NULL,
            request_id TEXT NOT NULL,
            recorded_at_ms INTEGER NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX signatures_by_user_offer ON signatures(user_id, offer_id, timestamp_ms);
        CREATE INDEX signatures_by_time ON signatures(timestamp_ms);
        CREATE TABLE offers (
            offer_id TEXT PRIMARY KEY,
            bundle_id TEXT NOT NULL,
            rule_json TEXT NOT NULL,
            version INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            updated_at_ms INTEGER NOT NULL
        );
        CREATE TABLE offer_changes (
            id INTEGER PRIMARY KEY,
            offer_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            action TEXT NOT NULL,
            api_key_name TEXT NOT NULL,
            changed_at_ms INTEGER NOT NULL,
            before_json TEXT,
            after_json TEXT
        );
        CREATE INDEX offer_changes_by_offer ON offer_changes(offer_id, id);
        """),
        SQLiteMigration(version: 2, summary: "verified App Store history", sql: """
        CREATE TABLE notifications (
            notification_uuid TEXT PRIMARY KEY,
            notification_type TEXT NOT NULL,
            subtype TEXT,
            bundle_id TEXT,
            environment TEXT,
            signed_date_ms INTEGER NOT NULL,
            received_at_ms INTEGER NOT NULL,
            signed_payload TEXT NOT NULL
        );
        CREATE TABLE transactions (
            transaction_id TEXT PRIMARY KEY,
            original_transaction_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            user_id TEXT,
            purchase_ms INTEGER NOT NULL,
            expires_ms INTEGER,
            revocation_ms INTEGER,
            offer_type INTEGER,
            offer_id TEXT,
            offer_discount_type TEXT,
            price INTEGER,
            storefront TEXT,
            signed_date_ms INTEGER NOT NULL,
            environment TEXT,
            signed_transaction TEXT NOT NULL
        );
        CREATE INDEX transactions_by_user ON transactions(bundle_id, user_id);
        CREATE INDEX transactions_by_original ON transactions(original_transaction_id);
        CREATE INDEX transactions_by_product ON transactions(bundle_id, product_id);
        CREATE TABLE renewals (
            original_transaction_id TEXT PRIMARY KEY,
            product_id TEXT,
            auto_renew_status INTEGER,
            in_billing_retry INTEGER,
            grace_expires_ms INTEGER,
            signed_date_ms INTEGER NOT NULL,
            environment TEXT,
            signed_renewal_info TEXT NOT NULL
        );
        """),
        // Written with every batch, so that records cut off the end of the log are missed.
        SQLiteMigration(version: 3, summary: "where the signature chain ends", sql: """
        CREATE TABLE signature_chain_head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        INSERT INTO signature_chain_head (id, seq, hash)
            SELECT 1, seq, hash FROM signatures ORDER BY seq DESC LIMIT 1;
        """),
        version4,
        // Anchors of the audit trail: signed checkpoints of the chain, gaps an operator accepted
        // after records were cut off the end, and the row readiness probes write.
        SQLiteMigration(version: 5, summary: "audit checkpoints, accepted gaps and the readiness probe", sql: """
        CREATE TABLE signature_checkpoints (
            id INTEGER PRIMARY KEY,
            seq INTEGER NOT NULL,
            chain_hash TEXT NOT NULL,
            timestamp_ms INTEGER NOT NULL,
            key_id TEXT NOT NULL,
            signature TEXT NOT NULL
        );
        CREATE INDEX signature_checkpoints_by_seq ON signature_checkpoints(seq);
        CREATE TABLE signature_log_gaps (
            seq INTEGER PRIMARY KEY,
            resumed_after_seq INTEGER NOT NULL,
            prev_hash TEXT NOT NULL,
            lost_through_seq INTEGER,
            lost_through_hash TEXT,
            accepted_by TEXT NOT NULL,
            reason TEXT NOT NULL,
            accepted_at_ms INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE TABLE signature_log_probe (
            id INTEGER PRIMARY KEY,
            filler BLOB NOT NULL
        );
        """),
        // What was fetched from the App Store Server API: transaction IDs a backfill is done
        // with, and the Notification History windows recovered.
        SQLiteMigration(version: 6, summary: "App Store Server API backfill progress and recovered notification windows", sql: """
        CREATE TABLE appstore_backfill (
            bundle_id TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            outcome TEXT NOT NULL,
            environment TEXT,
            covered_by TEXT,
            finished_at_ms INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, transaction_id)
        ) WITHOUT ROWID;
        CREATE TABLE appstore_recovered_windows (
            id INTEGER PRIMARY KEY,
            bundle_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            found INTEGER NOT NULL,
            stored INTEGER NOT NULL,
            completed_at_ms INTEGER NOT NULL
        );
        CREATE INDEX appstore_recovered_windows_by_app ON appstore_recovered_windows(bundle_id, environment, end_ms);
        """),
        // Offer activity for the console: refusals counted per day, app, offer and failed criterion
        // (criterion '' counts refused requests), and the signature log indexed by offer and time
        // so that signatures per offer and day are counted from the log itself.
        SQLiteMigration(version: 7, summary: "console offer activity: daily refusal counts, signatures by offer and time", sql: """
        CREATE TABLE offer_refusals_daily (
            bundle_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            day INTEGER NOT NULL,
            criterion TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (bundle_id, offer_id, day, criterion)
        ) WITHOUT ROWID;
        CREATE INDEX signatures_by_offer_time ON signatures(offer_id, timestamp_ms);
        """),
        SQLiteMigration(version: 8, .retentionRules),
        SQLiteMigration(version: 9, .appleData2026, backfill: { db throws(SQLiteError) in
            do {
                try HistoryFieldsBackfill.run(db)
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw SQLiteError(extendedCode: 1, message: "filling the 2026 history fields: \(error)", sql: nil)
            }
        }),
        version10,
        SQLiteMigration(version: 11, .offerOutcomes),
        SQLiteMigration(version: 12, .appAccountTokenLinks),
        SQLiteMigration(version: 13, .signaturesByTransaction),
        SQLiteMigration(version: 14, .experiments),
        SQLiteMigration(version: 15, .appStoreCatalogs),
        SQLiteMigration(version: 16, .webhooks),
        SQLiteMigration(version: 17, .transactionCurrency, backfill: { db throws(SQLiteError) in
            do {
                try TransactionCurrencyBackfill.run(db)
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw SQLiteError(extendedCode: 1, message: "filling the transactions' currency: \(error)", sql: nil)
            }
        }),
        version18,
        SQLiteMigration(version: 19, .webhookOutboxHeld),
    ]

    /// Brings the database to ``latestVersion``, applying each missing migration in its own
    /// transaction. A database made before `schema_migrations` existed kept its version in
    /// `PRAGMA user_version`; it is adopted from there.
    static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
        try transaction(connection) { () throws(SQLiteError) in
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    summary TEXT NOT NULL,
                    applied_at_ms INTEGER NOT NULL
                )
                """)
            let adopted = Int(try connection.scalar("PRAGMA user_version") ?? 0)
            guard try version(connection) == 0, adopted > 0 else { return }
            for migration in migrations.prefix(adopted) {
                try record(migration, connection, summary: migration.summary + " (adopted from user_version)")
            }
        }
        for migration in migrations {
            try transaction(connection) { () throws(SQLiteError) in
                // Read again inside the transaction: another process may have just applied it.
                let current = try version(connection)
                guard current < migration.version else { return }
                try connection.execute(migration.sql)
                try migration.backfill?(connection)
                try record(migration, connection, summary: migration.summary)
            }
        }
        let current = try version(connection)
        guard current <= latestVersion else {
            throw SQLiteError(extendedCode: 1, message: "the database's schema is version \(current), newer than the version \(latestVersion) this build knows; run a newer offer-signer", sql: nil)
        }
    }

    /// The highest migration recorded in `schema_migrations`; 0 for an empty database.
    static func version(_ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        Int(try connection.scalar("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0)
    }

    /// Records `migration` as applied, mirrored in `PRAGMA user_version` for the `sqlite3` shell.
    private static func record(_ migration: SQLiteMigration, _ connection: SQLiteConnection, summary: String) throws(SQLiteError) {
        try connection.run("INSERT INTO schema_migrations (version, summary, applied_at_ms) VALUES (?, ?, ?)",
                           [.integer(Int64(migration.version)), .text(summary), .integer(Date().milliseconds)])
        try connection.execute("PRAGMA user_version=\(migration.version)")
    }

    private static func transaction(_ connection: SQLiteConnection, _ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

/// One numbered step of the schema.
struct SQLiteMigration: Sendable {
    /// 1, 2, 3…: the database's version once this step is applied.
    let version: Int
    /// What the step adds, as `schema_migrations` records it.
    let summary: String
    /// The statements of the step.
    let sql: String
    /// Fills in what `sql` cannot, in the same transaction, after it.
    let backfill: (@Sendable (SQLiteConnection) throws(SQLiteError) -> Void)?

    init(version: Int, summary: String, sql: String, backfill: (@Sendable (SQLiteConnection) throws(SQLiteError) -> Void)? = nil) {
        self.version = version
        self.summary = summary
        self.sql = sql
        self.backfill = backfill
    }

    /// `step`, which PostgreSQL takes too, as SQLite's version `version`.
    init(version: Int, _ step: SchemaStep, backfill: (@Sendable (SQLiteConnection) throws(SQLiteError) -> Void)? = nil) {
        self.init(version: version, summary: step.summary, sql: step.sql(.sqlite), backfill: backfill)
    }
}
