/// Why a ``SignedDataVerifier`` cannot be built from its configuration.
public enum SignedDataConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No root certificate was given, so nothing could ever verify.
    case noRootCertificates
    /// The root certificate at `index` could not be read.
    case invalidRootCertificate(index: Int, CertificateError)
    /// Two apps share a bundle identifier.
    case duplicateBundleId(String)
    /// No environment is accepted, so nothing could ever verify.
    case noAcceptedEnvironments
    /// An accepted environment is neither `Production` nor `Sandbox`.
    case unknownEnvironment(String)
    /// OpenSSL failed while setting up the trust store.
    case openSSL(String)

    public var description: String {
        switch self {
        case .noRootCertificates:
            "at least one root certificate is required to verify App Store signed data"
        case .invalidRootCertificate(let index, let error):
            "root certificate #\(index + 1): \(error.description)"
        case .duplicateBundleId(let bundleId):
            "bundleId '\(bundleId)' is configured twice"
        case .noAcceptedEnvironments:
            "at least one App Store environment (Production, Sandbox) must be accepted"
        case .unknownEnvironment(let name):
            "unknown App Store environment '\(name)' (expected Production or Sandbox)"
        case .openSSL(let detail):
            detail
        }
    }
}
