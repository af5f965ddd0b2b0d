@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("App Store Connect client configuration")
struct AppStoreConnectConfigurationTests {
    static let credentials = AppStoreConnectCredentials(keyId: "KEY", issuerId: "ISSUER", privateKey: try! P256PrivateKey.generate())

    @Test("Apple's base URL, or the override without its trailing slashes")
    func baseURLs() throws {
        #expect(try AppStoreConnectClient(credentials: Self.credentials, configuration: .init()).baseURL
                == "https://api.appstoreconnect.apple.com")
        #expect(try AppStoreConnectClient(credentials: Self.credentials, configuration: .init(baseURL: "http://127.0.0.1:9/asc//")).baseURL
                == "http://127.0.0.1:9/asc")
    }

    @Test("settings the client cannot use are refused, naming the fault", arguments: [
        (AppStoreConnectConfiguration(baseURL: "ftp://example.com"), AppStoreConnectConfigurationError.invalidBaseURL("ftp://example.com")),
        (AppStoreConnectConfiguration(baseURL: "https://"), .invalidBaseURL("https:")),
        (AppStoreConnectConfiguration(baseURL: "https://x.test/v1#top"), .invalidBaseURL("https://x.test/v1#top")),
        (AppStoreConnectConfiguration(baseURL: "https://x.test\r\nHost: y"), .invalidBaseURL("https://x.test\r\nHost: y")),
        (AppStoreConnectConfiguration(connectTimeout: .zero), .invalidSetting("timeouts must be positive")),
        (AppStoreConnectConfiguration(requestsPerSecond: .nan), .invalidSetting("the request rate must be positive")),
        (AppStoreConnectConfiguration(retry: AppStoreServerAPIRetryPolicy(initialBackoff: .seconds(9), maxBackoff: .seconds(8))),
         .invalidSetting("the retry policy needs non-negative counts and waits")),
        (AppStoreConnectConfiguration(hourlyReserve: -1), .invalidSetting("limits must be positive")),
    ])
    func refused(configuration: AppStoreConnectConfiguration, expected: AppStoreConnectConfigurationError) {
        let error = thrownError { () throws(AppStoreConnectConfigurationError) in
            try AppStoreConnectClient(credentials: Self.credentials, configuration: configuration)
        }
        #expect(error == expected)
    }

    @Test("an empty key ID is refused")
    func emptyCredentials() {
        let credentials = AppStoreConnectCredentials(keyId: "", issuerId: "ISSUER", privateKey: try! P256PrivateKey.generate())
        let error = thrownError { () throws(AppStoreConnectConfigurationError) in
            try AppStoreConnectClient(credentials: credentials, configuration: .init())
        }
        #expect(error == .missingCredential("key ID"))
    }
}
