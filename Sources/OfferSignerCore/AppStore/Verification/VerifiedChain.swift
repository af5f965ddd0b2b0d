/// What a successful chain verification yields: the leaf's key, to check JWS signatures
/// with, and the validity period of each certificate, to re-check at each payload's
/// `signedDate` when the chain comes from the cache.
struct VerifiedChain: Sendable {
    /// A certificate's validity period in seconds since 1970. As in OpenSSL's checks, a
    /// certificate is valid from `notBefore` included to `notAfter` excluded.
    struct Validity: Sendable, Equatable {
        let position: CertificatePosition
        let notBefore: Int64
        let notAfter: Int64
    }

    let leafPublicKey: P256PublicKey
    /// Root first, then intermediate, then leaf: the order OpenSSL reports time errors in.
    let validities: [Validity]

    /// Throws the first certificate (root first) that is not valid at `seconds`.
    func checkValidity(atUnixSeconds seconds: Int64) throws(SignedDataError) {
        for validity in validities {
            if seconds < validity.notBefore { throw SignedDataError.certificateNotYetValid(validity.position) }
            if seconds >= validity.notAfter { throw SignedDataError.certificateExpired(validity.position) }
        }
    }
}
