@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("Client configuration")
struct ConfigurationTests {
    static let credentials = AppStoreServerAPICredentials(keyId: "KEY", issuerId: "ISSUER", bundleId: "com.example.app",
                                                          privateKey: try! P256PrivateKey.generate())

    @Test("Apple's base URLs by environment, or the override without its trailing slash")
    func baseURLs() throws {
        #expect(try AppStoreServerAPIClient(credentials: Self.credentials, configuration: .init(environment: .production)).baseURL
                == "https://api.storekit.apple.com")
        #expect(try AppStoreServerAPIClient(credentials: Self.credentials, configuration: .init(environment: .sandbox)).baseURL
                == "https://api.storekit-sandbox.apple.com")
        #expect(try AppStoreServerAPIClient(credentials: Self.credentials,
                                            configuration: .init(environment: .sandbox, baseURL: "http://127.0.0.1:9/api/")).baseURL
                == "http://127.0.0.1:9/api")
    }

    @Test("defaults: 50 requests per second, five-minute tokens, bounded retries")
    func defaults() {
        let configuration = AppStoreServerAPIConfiguration(environment: .production)
        #expect(configuration.requestsPerSecond == 50)
        #expect(configuration.retry.maxRetries == 3 && configuration.retry.maxRateLimitRetries == 5)
        #expect(AppStoreServerAPITokenIssuer.lifetime == 300)
    }

    @Test("settings the client cannot use are refused", arguments: [
        (AppStoreServerAPIConfiguration(environment: .production, baseURL: "ftp://example.com"),
         AppStoreServerAPIConfigurationError.invalidBaseURL("ftp://example.com")),
        (AppStoreServerAPIConfiguration(environment: .production, baseURL: "https://"), .invalidBaseURL("https:")),
        (AppStoreServerAPIConfiguration(environment: .production, baseURL: "https://x.test/?a=1"), .invalidBaseURL("https://x.test/?a=1")),
        (AppStoreServerAPIConfiguration(environment: .production, baseURL: "https://x.test\r\nHost: y"), .invalidBaseURL("https://x.test\r\nHost: y")),
        (AppStoreServerAPIConfiguration(environment: .production, timeout: .zero), .invalidTimeout),
        (AppStoreServerAPIConfiguration(environment: .production, requestsPerSecond: 0), .invalidRequestsPerSecond(0)),
        (AppStoreServerAPIConfiguration(environment: .production, requestsPerSecond: .infinity), .invalidRequestsPerSecond(.infinity)),
        (AppStoreServerAPIConfiguration(environment: .production, retry: AppStoreServerAPIRetryPolicy(maxRetries: -1)), .invalidRetryPolicy),
        (AppStoreServerAPIConfiguration(environment: .production, maxPages: 0), .invalidLimit("maxPages")),
    ])
    func refused(configuration: AppStoreServerAPIConfiguration, expected: AppStoreServerAPIConfigurationError) {
        let error = thrownError { () throws(AppStoreServerAPIConfigurationError) in
            try AppStoreServerAPIClient(credentials: Self.credentials, configuration: configuration)
        }
        #expect(error == expected)
    }

    @Test("empty credentials are refused")
    func emptyCredentials() {
        var credentials = Self.credentials
        credentials.issuerId = " "
        let error = thrownError { () throws(AppStoreServerAPIConfigurationError) in
            try AppStoreServerAPIClient(credentials: credentials, configuration: .init(environment: .production))
        }
        #expect(error == .missingCredential("issuer ID"))
    }
}
