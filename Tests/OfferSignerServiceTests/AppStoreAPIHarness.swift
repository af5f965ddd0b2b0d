import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerService
@testable import OfferSignerStore

/// A service wired in process (`TestEnvironment`) whose App Store Server API is the mock on
/// 127.0.0.1, accepting the tokens of the keys file's active key (`ACTIVEKEY1`, issuer `issuer-1`).
final class AppStoreAPIHarness {
    static let day: TimeInterval = 86_400
    static let activeKey = try! P256PrivateKey(pkcs8PEM: String(contentsOf: TestEnvironment.fixtures.appendingPathComponent("testSigningKey.p8"),
                                                                 encoding: .utf8))
    static let jwt = MockAppStoreJWT(keyId: "ACTIVEKEY1", issuerId: "issuer-1", bundleId: TestEnvironment.bundleId,
                                     publicKey: activeKey.publicKey)
    /// Quick retries, so injected failures cost milliseconds; spread enough that a burst of
    /// queued faults cannot land on every attempt of one request.
    static let retry = AppStoreServerAPIRetryPolicy(maxRetries: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(40),
                                                    maxRateLimitRetries: 3, maxRetryAfterWait: .seconds(2))

    let env: TestEnvironment
    let store: MockAppStore
    let server: MockHTTPServer
    let clients: AppStoreAPIClients
    let syncStore: SQLiteAppStoreSyncStore

    init(requestsPerSecond: Double = 1000, environment: String = "Production", timeout: Duration = .seconds(5)) throws {
        env = try TestEnvironment()
        store = MockAppStore(jwt: Self.jwt, environment: environment)
        server = try store.start()
        let configuration = try KeyConfiguration.load(path: env.keysPath)
        clients = try AppStoreAPIClients(configuration: configuration, options: AppStoreAPIClients.Options(
            environments: [AppStoreServerAPIEnvironment(rawValue: environment)!], baseURL: server.baseURL,
            requestsPerSecond: requestsPerSecond, timeout: timeout, retry: Self.retry))
        syncStore = SQLiteAppStoreSyncStore(database: env.database)
        env.appStoreAPI = clients
        env.appStoreSync = syncStore
    }

    deinit { server.stop() }

    var ingestor: HistoryIngestor {
        HistoryIngestor(verification: env.appStore, history: env.history, clock: env.clock)
    }

    var sync: CustomerHistorySync { CustomerHistorySync(clients: clients, ingestor: ingestor) }

    func backfill(workers: Int = 16) -> HistoryBackfill {
        var backfill = HistoryBackfill(sync: sync, progressStore: syncStore, bundleId: TestEnvironment.bundleId, clock: env.clock)
        backfill.workers = workers
        return backfill
    }

    var recovery: NotificationRecovery { NotificationRecovery(clients: clients, ingestor: ingestor, syncStore: syncStore) }

    /// A customer of the mock: `months` paid monthly periods of one subscription, for the user
    /// `user`, the last ending `lapsedDays` before the environment's now (negative: still active),
    /// with the subscription's status and renewal info. Returns the transaction IDs, oldest first.
    @discardableResult
    func addCustomer(user: String, firstId: Int64, months: Int = 3, lapsedDays: Double = 100, consumable: Bool = false,
                     key: P256PrivateKey = TestSignedData.leafKey) -> [String] {
        let ids = (0..<Int64(months)).map { String(firstId + $0) }
        let end = env.now.addingTimeInterval(-lapsedDays * Self.day)
        let signed = ids.enumerated().map { index, id in
            let start = end.addingTimeInterval(-Double(months - index) * 30 * Self.day)
            return TestSignedData.transaction(id: id, original: ids[0], purchased: start, expires: start.addingTimeInterval(30 * Self.day),
                                              appAccountToken: user, signed: env.now.addingTimeInterval(-Self.day), environment: store.environment,
                                              key: key)
        }
        var history = signed
        if consumable { history.append(TestSignedData.consumable(id: String(firstId) + "99", purchased: end, environment: store.environment)) }
        let status = MockStatus(group: TestSignedData.group, status: lapsedDays > 0 ? 2 : 1, originalTransactionId: ids[0],
                                signedTransactionInfo: signed[signed.count - 1],
                                signedRenewalInfo: TestSignedData.renewal(original: ids[0], signed: env.now.addingTimeInterval(-Self.day),
                                                                          environment: store.environment))
        store.add(MockCustomer(transactionIds: Set(ids), signedTransactions: history, statuses: [status]))
        return ids
    }

    /// A value of one SQL query on the service's database.
    func count(_ sql: String) throws -> Int {
        Int(try env.database.read { db in try db.scalar(sql) } ?? 0)
    }

    /// The user's offer verdicts through `GET /v1/users/{userId}/offers`: offer ID → failed criteria.
    func verdicts(_ user: String) -> [String: [String]] {
        let response = env.send("GET", "/v1/users/\(user)/offers")
        var verdicts: [String: [String]] = [:]
        for offer in response.json["offers"] as? [[String: Any]] ?? [] {
            verdicts[offer["offerId"] as? String ?? ""] = (offer["reasons"] as? [[String: Any]] ?? []).compactMap { $0["criterion"] as? String }
        }
        return verdicts
    }
}
