import Foundation
@testable import OfferSignerCore

/// The App Store Server Library's public test data (MIT, see Fixtures/apple/LICENSE.txt).
enum AppleFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apple", isDirectory: true)

    /// A compact JWS from `mock_signed_data`.
    static func signedData(_ name: String) throws -> String {
        let url = directory.appendingPathComponent("mock_signed_data/\(name)")
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A DER certificate from `certs`.
    static func certificate(_ name: String) throws -> X509Certificate {
        try X509Certificate(der: Array(Data(contentsOf: directory.appendingPathComponent("certs/\(name)"))))
    }
}
