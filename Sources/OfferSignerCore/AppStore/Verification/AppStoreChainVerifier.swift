internal import COpenSSL
import Foundation

/// Verifies the certificate chain of App Store signed data as Apple's App Store Server
/// Library does (`ChainVerifier` in its Swift, Java and Python versions):
///
/// - the leaf (`x5c[0]`) and intermediate (`x5c[1]`) must chain, through OpenSSL's
///   `X509_verify_cert`, to one of the configured roots; the root the JWS carries is never
///   trusted, only the configured ones are;
/// - the verified chain is exactly leaf → intermediate → root;
/// - every certificate is valid at the given time (the payload's `signedDate`);
/// - the leaf carries OID 1.2.840.113635.100.6.11.1 and the intermediate
///   1.2.840.113635.100.6.2.1;
/// - with strict checks (the default, as in Apple's Python library), OpenSSL's
///   `X509_V_FLAG_X509_STRICT` RFC 5280 checks apply too.
///
/// Verified chains are cached for 15 minutes; a cached chain is still re-checked for validity
/// at each time asked.
final class AppStoreChainVerifier: Sendable {
    /// The extension Apple's WWDR intermediate certificates carry.
    static let intermediateOID = "1.2.840.113635.100.6.2.1"
    /// The extension Apple's App Store receipt-signing leaf certificates carry.
    static let leafOID = "1.2.840.113635.100.6.11.1"

    private let trustStore: X509TrustStore
    private let strict: Bool
    private let cache: VerifiedChainCache
    private let now: @Sendable () -> Date

    init(roots: [X509Certificate], strict: Bool = true, cache: VerifiedChainCache = VerifiedChainCache(),
         now: @escaping @Sendable () -> Date = { Date() }) throws(SignedDataConfigurationError) {
        guard !roots.isEmpty else { throw SignedDataConfigurationError.noRootCertificates }
        self.trustStore = try X509TrustStore(roots: roots)
        self.strict = strict
        self.cache = cache
        self.now = now
    }

    /// Verifies leaf and intermediate at `date`, using the cache.
    func verify(leaf: X509Certificate, intermediate: X509Certificate, at date: Date) throws(SignedDataError) -> VerifiedChain {
        try verify(leaf: leaf, intermediate: intermediate, atUnixSeconds: UnixTime.seconds(date))
    }

    /// Verifies leaf and intermediate at `seconds` since 1970, using the cache.
    /// The cached chain for these `x5c` bytes, checked for validity at `seconds`; nil when not cached.
    func cachedChain(leafDER: [UInt8], intermediateDER: [UInt8], rootDER: [UInt8],
                     atUnixSeconds seconds: Int64) throws(SignedDataError) -> VerifiedChain? {
        let key = VerifiedChainCache.Key(leafDER: leafDER, intermediateDER: intermediateDER, rootDER: rootDER)
        guard let cached = cache.chain(for: key, now: now()) else { return nil }
        try cached.checkValidity(atUnixSeconds: seconds)
        return cached
    }

    func verify(leaf: X509Certificate, intermediate: X509Certificate, rootDER: [UInt8] = [],
                atUnixSeconds seconds: Int64) throws(SignedDataError) -> VerifiedChain {
        let key = VerifiedChainCache.Key(leaf: leaf, intermediate: intermediate, rootDER: rootDER)
        if let cached = cache.chain(for: key, now: now()) {
            try cached.checkValidity(atUnixSeconds: seconds)
            return cached
        }
        let chain = try verifyWithoutCache(leaf: leaf, intermediate: intermediate, atUnixSeconds: seconds)
        cache.insert(chain, for: key, now: now())
        return chain
    }

    /// How many verified chains are cached.
    var cachedChainCount: Int { cache.count }

    /// Verifies leaf and intermediate at `seconds` since 1970 with OpenSSL, bypassing the cache.
    func verifyWithoutCache(leaf: X509Certificate, intermediate: X509Certificate, atUnixSeconds seconds: Int64) throws(SignedDataError) -> VerifiedChain {
        defer { withExtendedLifetime((leaf, intermediate, trustStore)) {} }
        guard let context = X509_STORE_CTX_new() else { throw SignedDataError.internalFailure("allocating an X509_STORE_CTX") }
        defer { X509_STORE_CTX_free(context) }
        guard let untrusted = copenssl_x509_stack_new() else { throw SignedDataError.internalFailure("allocating a certificate stack") }
        defer { copenssl_x509_stack_free(untrusted) }  // frees the stack only; `intermediate` owns its X509
        guard copenssl_x509_stack_push(untrusted, intermediate.x509) > 0,
              X509_STORE_CTX_init(context, trustStore.store, leaf.x509, untrusted) == 1 else {
            throw SignedDataError.internalFailure(OpenSSLError.drain("setting up chain verification").description)
        }
        if strict { X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT)) }
        X509_STORE_CTX_set_time(context, 0, time_t(seconds))  // also sets X509_V_FLAG_USE_CHECK_TIME

        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            ERR_clear_error()
            throw Self.error(code: code, depth: depth)
        }
        guard let chain = X509_STORE_CTX_get0_chain(context), copenssl_x509_stack_count(chain) == 3,
              let verifiedIntermediate = copenssl_x509_stack_value(chain, 1),
              X509_cmp(verifiedIntermediate, intermediate.x509) == 0,
              let root = copenssl_x509_stack_value(chain, 2) else {
            throw SignedDataError.invalidChain(.intermediate, reason: "the verified chain is not leaf → x5c intermediate → root")
        }
        guard leaf.hasExtension(oid: Self.leafOID) else {
            throw SignedDataError.missingAppleExtension(.leaf, oid: Self.leafOID)
        }
        guard intermediate.hasExtension(oid: Self.intermediateOID) else {
            throw SignedDataError.missingAppleExtension(.intermediate, oid: Self.intermediateOID)
        }
        guard let spki = leaf.subjectPublicKeyInfo, let key = try? P256PublicKey(spkiDER: spki) else {
            throw SignedDataError.unsupportedLeafKey
        }
        guard let rootNotBefore = X509Certificate.unixSeconds(X509_get0_notBefore(root)),
              let rootNotAfter = X509Certificate.unixSeconds(X509_get0_notAfter(root)) else {
            throw SignedDataError.invalidChain(.root, reason: "validity dates cannot be read")
        }
        return VerifiedChain(leafPublicKey: key, validities: [
            .init(position: .root, notBefore: rootNotBefore, notAfter: rootNotAfter),
            .init(position: .intermediate, notBefore: intermediate.notBeforeSeconds, notAfter: intermediate.notAfterSeconds),
            .init(position: .leaf, notBefore: leaf.notBeforeSeconds, notAfter: leaf.notAfterSeconds),
        ])
    }

    /// Maps an `X509_V_ERR_*` code at chain `depth` (0 leaf, 1 intermediate, 2 root) to an error.
    private static func error(code: Int32, depth: Int32) -> SignedDataError {
        let position: CertificatePosition = depth <= 0 ? .leaf : depth == 1 ? .intermediate : .root
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired(position)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid(position)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_CERT_UNTRUSTED:
            return .untrustedChain
        default:
            let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            return .invalidChain(position, reason: reason)
        }
    }
}
