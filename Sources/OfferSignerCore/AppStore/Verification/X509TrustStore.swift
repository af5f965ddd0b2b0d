internal import COpenSSL

/// An OpenSSL `X509_STORE` holding the configured root certificates, and nothing else: no
/// system trust store, no file or directory lookups.
///
/// OpenSSL locks the store internally, so concurrent verifications may share it.
final class X509TrustStore: @unchecked Sendable { // @unchecked: owns an X509_STORE, filled once at init; OpenSSL locks it for concurrent verifications
    let store: OpaquePointer
    /// The roots, kept alive alongside the store.
    let roots: [X509Certificate]

    init(roots: [X509Certificate]) throws(SignedDataConfigurationError) {
        guard let store = X509_STORE_new() else {
            throw SignedDataConfigurationError.openSSL(OpenSSLError.drain("allocating an X509_STORE").description)
        }
        for root in roots where X509_STORE_add_cert(store, root.x509) != 1 {
            let detail = OpenSSLError.drain("adding a root certificate").description
            X509_STORE_free(store)
            throw SignedDataConfigurationError.openSSL(detail)
        }
        self.store = store
        self.roots = roots
    }

    deinit { X509_STORE_free(store) }
}
