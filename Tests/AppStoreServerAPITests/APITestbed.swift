@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore

/// A mock App Store Server API on 127.0.0.1 and clients pointed at it.
final class APITestbed {
    static let keyId = "TESTKEY123"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"

    let key: P256PrivateKey
    let store: MockAppStore
    let server: MockHTTPServer

    init(pageSize: Int = 20) throws {
        key = try P256PrivateKey.generate()
        store = MockAppStore(jwt: MockAppStoreJWT(keyId: Self.keyId, issuerId: Self.issuerId, bundleId: TestSignedData.bundleId,
                                                  publicKey: key.publicKey), pageSize: pageSize)
        server = try store.start()
    }

    deinit { server.stop() }

    /// A client of the mock: short timeouts and backoffs so failures are quick to test.
    func client(key: P256PrivateKey? = nil, keyId: String = APITestbed.keyId,
                _ adjust: (inout AppStoreServerAPIConfiguration) -> Void = { _ in }) throws -> AppStoreServerAPIClient {
        var configuration = AppStoreServerAPIConfiguration(
            environment: .production, baseURL: server.baseURL, timeout: .seconds(5), connectTimeout: .seconds(2),
            retry: AppStoreServerAPIRetryPolicy(maxRetries: 3, initialBackoff: .milliseconds(10), maxBackoff: .milliseconds(80),
                                                maxRateLimitRetries: 3, maxRetryAfterWait: .seconds(5)),
            requestsPerSecond: 1000)
        adjust(&configuration)
        let credentials = AppStoreServerAPICredentials(keyId: keyId, issuerId: Self.issuerId, bundleId: TestSignedData.bundleId,
                                                       privateKey: key ?? self.key)
        return try AppStoreServerAPIClient(credentials: credentials, configuration: configuration)
    }

    /// A customer whose history holds `count` monthly renewals of one subscription, the first
    /// transaction ID being `first`; returns the transaction IDs in order.
    @discardableResult
    func addCustomer(first: Int64, count: Int, products: [String] = [TestSignedData.product],
                     statuses: [MockStatus] = []) -> [String] {
        let ids = (0..<Int64(count)).map { String(first + $0) }
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let signed = ids.enumerated().map { index, id in
            TestSignedData.transaction(id: id, original: ids[0], product: products[index % products.count],
                                       purchased: start.addingTimeInterval(Double(index) * 30 * 86_400))
        }
        store.add(MockCustomer(transactionIds: Set(ids), signedTransactions: signed, statuses: statuses))
        return ids
    }
}

/// Runs `body` and returns how long it took, in seconds.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, (ContinuousClock.now - start).seconds)
}

/// The error `body` throws, or nil when it returns.
func thrownError<E: Error, T>(_ body: () throws(E) -> T) -> E? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
