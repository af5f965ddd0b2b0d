/// A table `offer-signer db copy` moves, with its columns (each an integer or text) and the
/// key it is read in order of. Both engines' schemas name tables and columns alike.
struct CopiedTable: Sendable {
    enum Kind: Sendable {
        case integer
        case text
    }

    let name: String
    let columns: [(name: String, kind: Kind)]
    /// The columns of its primary key, read in this order a page at a time.
    let key: [String]

    /// `spec` lists `column:i` (integer) or `column:t` (text), space-separated.
    init(_ name: String, key: [String], _ spec: String) {
        self.name = name
        self.key = key
        columns = spec.split(separator: " ").map { item in
            let parts = item.split(separator: ":")
            return (String(parts[0]), parts[1] == "i" ? .integer : .text)
        }
    }

    var columnList: String { columns.map(\.name).joined(separator: ", ") }

    /// Positions of the key columns among `columns`.
    var keyPositions: [Int] { key.map { name in columns.firstIndex { $0.name == name }! } }

    /// Every table of a deployment, in an order that keeps each chain's parts together:
    /// offers and their changes, history, the signature log with its gaps, checkpoints and
    /// recorded end, then the console's refusal counts, the App Store Server API's progress, the
    /// retention and introductory-offer rules with their changes, answered retention
    /// requests, consent rescinded and cleared, and the offers' outcomes (matched redemptions, holdout decisions), links made at Apple and the App Store Connect catalogs. Not copied: `schema_migrations` (each engine numbers its own) and
    /// `signature_log_probe` (always empty between probes). A table added to the schema is
    /// added here too (a test compares this list with the SQLite schema).
    static let all: [CopiedTable] = [
        CopiedTable("offers", key: ["bundle_id", "offer_id"],
                    "bundle_id:t offer_id:t rule_json:t version:i created_at_ms:i updated_at_ms:i"),
        CopiedTable("offer_changes", key: ["id"],
                    "id:i bundle_id:t offer_id:t version:i action:t api_key_name:t changed_at_ms:i before_json:t after_json:t"),
        CopiedTable("notifications", key: ["notification_uuid"],
                    "notification_uuid:t notification_type:t subtype:t bundle_id:t environment:t signed_date_ms:i received_at_ms:i signed_payload:t"),
        CopiedTable("transactions", key: ["environment", "transaction_id"], """
                    environment:t transaction_id:t original_transaction_id:t bundle_id:t product_id:t group_id:t user_id:t purchase_ms:i \
                    expires_ms:i revocation_ms:i revocation_reason:i revocation_type:t revocation_percentage:i is_upgraded:i ownership_type:t \
                    transaction_reason:t offer_type:i offer_id:t offer_discount_type:t price:i storefront:t signed_date_ms:i signed_transaction:t \
                    app_transaction_id:t offer_period:t billing_plan_type:t commitment_info:t advanced_commerce_info:t currency:t
                    """),
        CopiedTable("renewals", key: ["environment", "original_transaction_id"], """
                    environment:t original_transaction_id:t product_id:t auto_renew_status:i in_billing_retry:i grace_expires_ms:i \
                    expiration_intent:i win_back_offer_ids:t signed_date_ms:i signed_renewal_info:t app_transaction_id:t
                    """),
        CopiedTable("signatures", key: ["seq"], """
                    seq:i nonce:t format:t bundle_id:t product_id:t offer_id:t user_id:t key_id:t timestamp_ms:i signature:t \
                    transaction_id:t api_key_name:t request_id:t recorded_at_ms:i prev_hash:t hash:t source:t \
                    allow_introductory_offer:i
                    """),
        CopiedTable("signature_log_gaps", key: ["seq"],
                    "seq:i resumed_after_seq:i prev_hash:t lost_through_seq:i lost_through_hash:t accepted_by:t reason:t accepted_at_ms:i hash:t"),
        CopiedTable("signature_checkpoints", key: ["id"], "id:i seq:i chain_hash:t timestamp_ms:i key_id:t signature:t"),
        CopiedTable("signature_chain_head", key: ["id"], "id:i seq:i hash:t"),
        CopiedTable("offer_refusals_daily", key: ["bundle_id", "offer_id", "day", "criterion"],
                    "bundle_id:t offer_id:t day:i criterion:t count:i"),
        CopiedTable("appstore_backfill", key: ["bundle_id", "transaction_id"],
                    "bundle_id:t transaction_id:t outcome:t environment:t covered_by:t finished_at_ms:i"),
        CopiedTable("appstore_recovered_windows", key: ["id"],
                    "id:i bundle_id:t environment:t start_ms:i end_ms:i found:i stored:i completed_at_ms:i"),
        CopiedTable("managed_rules", key: ["kind", "bundle_id", "rule_id"],
                    "kind:t bundle_id:t rule_id:t rule_json:t version:i created_at_ms:i updated_at_ms:i"),
        CopiedTable("managed_rule_changes", key: ["id"],
                    "id:i kind:t bundle_id:t rule_id:t version:i action:t api_key_name:t changed_at_ms:i before_json:t after_json:t"),
        CopiedTable("retention_requests", key: ["bundle_id", "environment", "request_identifier"], """
                    request_identifier:t bundle_id:t environment:t original_transaction_id:t product_id:t user_locale:t user_id:t \
                    rule_id:t answer:t signature_nonce:t response_json:t signed_date_ms:i answered_at_ms:i
                    """),
        CopiedTable("consent_events", key: ["id"],
                    "id:i app_transaction_id:t environment:t bundle_id:t action:t at_ms:i recorded_at_ms:i notification_uuid:t actor:t reason:t"),
        CopiedTable("offer_redemptions", key: ["id"], """
                    id:i environment:t transaction_id:t bundle_id:t offer_id:t offer_type:i original_transaction_id:t group_id:t \
                    app_account_token:t purchase_ms:i refunded:i retained:i ends_ms:i revenue_json:t signature_nonce:t managed:i updated_at_ms:i
                    """),
        CopiedTable("offer_holdouts", key: ["bundle_id", "offer_id", "user_key"],
                    "bundle_id:t offer_id:t user_key:t environment:t decided_at_ms:i percent:i"),
        CopiedTable("app_account_token_links", key: ["id"], """
                    id:i bundle_id:t environment:t original_transaction_id:t app_account_token:t outcome:t existing_token:t \
                    reason:t actor:t request_id:t forced:i attempts:i at_ms:i
                    """),
        CopiedTable("experiment_placements", key: ["bundle_id", "placement_id"], "bundle_id:t placement_id:t experiment_id:t"),
        CopiedTable("experiment_assignments", key: ["bundle_id", "experiment_id", "user_key"], """
                    bundle_id:t experiment_id:t user_key:t arm_id:t weight_period:i environment:t assigned_at_ms:i eligible:i \
                    first_signed_at_ms:i
                    """),
        CopiedTable("appstore_catalogs", key: ["bundle_id"], "bundle_id:t catalog_json:t synced_at_ms:i attempted_at_ms:i last_error:t"),
        CopiedTable("webhooks", key: ["webhook_id"], """
                    webhook_id:t url:t events:t bundle_ids:t enabled:i secret:t previous_secret:t previous_secret_until_ms:i \
                    created_at_ms:i updated_at_ms:i
                    """),
        CopiedTable("webhook_changes", key: ["id"], "id:i webhook_id:t action:t actor:t at_ms:i document:t"),
        CopiedTable("webhook_outbox", key: ["id"], """
                    id:i webhook_id:t event_id:t event_type:t ordering_key:t occurred_at_ms:i body:t state:t attempts:i \
                    queued_at_ms:i next_attempt_ms:i lease_until_ms:i claim:t last_attempt_ms:i last_status:i last_answer:t \
                    last_error:t delivered_at_ms:i
                    """),
    ]

    /// Tables of the schema that are deliberately not copied.
    static let notCopied: Set<String> = ["schema_migrations", "signature_log_probe"]
}

/// One value of a copied row.
enum CopyValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
}

/// A connection `db copy` reads from (inside one snapshot) or writes to (inside one transaction).
protocol CopyConnection {
    func copyCount(_ table: CopiedTable) throws -> Int
    /// Up to `limit` rows in key order, after the row whose key is `after` (from the start when nil).
    func copyRows(_ table: CopiedTable, after: [CopyValue]?, limit: Int) throws -> [[CopyValue]]
    func copyInsert(_ table: CopiedTable, _ rows: [[CopyValue]]) throws
    /// Once every table is written: whatever the engine needs (identity sequences moved past
    /// the copied IDs).
    func copyFinish() throws
}
