// The stores written once over `SQLDatabase`, under the names each engine's callers know them by.

public typealias SQLiteHistoryStore = SQLHistoryStore
public typealias PostgreSQLHistoryStore = SQLHistoryStore
public typealias SQLiteRuleStore = SQLRuleStore
public typealias PostgreSQLRuleStore = SQLRuleStore
public typealias SQLiteRetentionRequestStore = SQLRetentionRequestStore
public typealias PostgreSQLRetentionRequestStore = SQLRetentionRequestStore
public typealias SQLiteAppStoreSyncStore = SQLAppStoreSyncStore
public typealias PostgreSQLAppStoreSyncStore = SQLAppStoreSyncStore
public typealias SQLiteOfferActivityStore = SQLOfferActivityStore
public typealias PostgreSQLOfferActivityStore = SQLOfferActivityStore
public typealias SQLiteCheckpointStore = SQLCheckpointStore
public typealias PostgreSQLCheckpointStore = SQLCheckpointStore
