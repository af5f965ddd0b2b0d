import Foundation
import OfferSignerCore
import Synchronization

/// The verifier of App Store signed data in force: trusted roots and environments from the
/// settings, apps from the keys file (rebuilt when the keys file is reloaded).
public final class AppStoreVerification: Sendable {
    private let roots: [X509Certificate]
    private let environments: Set<String>
    private let strict: Bool
    private let verifier: Mutex<SignedDataVerifier>
    /// How old, in seconds, a signed app transaction sent as proof may be (by its `receiptCreationDate`).
    public let appTransactionMaxAge: Int

    /// A week: StoreKit hands out its cached app transaction, re-signed from time to time.
    public static let defaultAppTransactionMaxAge = 7 * 86_400

    /// - Parameters:
    ///   - strictCertificateChecks: RFC 5280 strictness; Apple's real chain passes it, Apple's
    ///     published test certificates do not.
    ///   - appTransactionMaxAge: seconds; an app transaction signed longer ago is no proof.
    public init(roots: [X509Certificate], environments: Set<String>, configuration: KeyConfiguration,
                strictCertificateChecks: Bool = true,
                appTransactionMaxAge: Int = AppStoreVerification.defaultAppTransactionMaxAge) throws(SignedDataConfigurationError) {
        self.roots = roots
        self.environments = environments
        self.strict = strictCertificateChecks
        self.appTransactionMaxAge = appTransactionMaxAge
        verifier = Mutex(try Self.makeVerifier(roots, environments, configuration, strictCertificateChecks))
    }

    /// Loads the roots named in the settings (DER or PEM files), or Apple Root CA - G3.
    public static func roots(from paths: [String]?) throws(StartupError) -> [X509Certificate] {
        guard let paths else {
            do {
                return [try X509Certificate(der: AppleRootCertificates.appleRootCAG3)]
            } catch {
                throw .builtInRootUnreadable(error)
            }
        }
        var roots: [X509Certificate] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .rootUnreadable(path: path)
            }
            do {
                roots.append(try X509Certificate(derOrPEM: Array(data)))
            } catch {
                throw .rootInvalid(path: path, error)
            }
        }
        return roots
    }

    /// The root certificates trusted for App Store signed data (the settings' or Apple Root CA - G3).
    public var trustedRoots: [X509Certificate] { roots }

    /// The environments whose signed data is accepted (`Production`, `Sandbox`), as the settings name them.
    public var acceptedEnvironments: Set<String> { environments }

    /// The verifier for the keys file in force now.
    public var current: SignedDataVerifier { verifier.withLock { $0 } }

    /// Accepts the apps of a reloaded keys file.
    public func update(for configuration: KeyConfiguration) throws(SignedDataConfigurationError) {
        let next = try Self.makeVerifier(roots, environments, configuration, strict)
        verifier.withLock { $0 = next }
    }

    private static func makeVerifier(_ roots: [X509Certificate], _ environments: Set<String>,
                                     _ configuration: KeyConfiguration, _ strict: Bool) throws(SignedDataConfigurationError) -> SignedDataVerifier {
        let apps = configuration.apps.values.map { SignedDataVerifier.App(bundleId: $0.bundleId, appAppleId: $0.appAppleId) }
        return try SignedDataVerifier(rootCertificates: roots, apps: apps, acceptedEnvironments: environments,
                                      strictCertificateChecks: strict)
    }
}
