internal import COpenSSL
import Foundation

/// An X.509 certificate held by OpenSSL, such as Apple Root CA - G3 or a certificate of a JWS
/// `x5c` chain.
///
/// Immutable once parsed, so it may be shared between threads.
public final class X509Certificate: @unchecked Sendable { // @unchecked: owns an X509, immutable once parsed (OpenSSL locks the caches it fills lazily)
    let x509: OpaquePointer
    /// The DER encoding.
    public let derBytes: [UInt8]
    /// The start of the validity period, in seconds since 1970.
    let notBeforeSeconds: Int64
    /// The end of the validity period, in seconds since 1970.
    let notAfterSeconds: Int64

    /// Takes ownership of `x509`; fails (and frees it) if its validity dates cannot be read.
    private init(takingOwnershipOf x509: OpaquePointer, der: [UInt8]) throws(CertificateError) {
        guard let notBefore = X509Certificate.unixSeconds(X509_get0_notBefore(x509)),
              let notAfter = X509Certificate.unixSeconds(X509_get0_notAfter(x509)) else {
            X509_free(x509)
            throw CertificateError.unreadableValidity
        }
        self.x509 = x509
        self.derBytes = der
        self.notBeforeSeconds = notBefore
        self.notAfterSeconds = notAfter
    }

    deinit { X509_free(x509) }

    /// Reads one DER-encoded certificate; trailing bytes are refused.
    public convenience init(der: [UInt8]) throws(CertificateError) {
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = start
            let x509 = d2i_X509(nil, &cursor, buffer.count)
            consumed = cursor.map { start.distance(to: $0) } ?? 0
            return x509
        }
        guard let parsed else {
            throw CertificateError.notDER(OpenSSLError.drain("reading a DER certificate").description)
        }
        guard consumed == der.count else {
            X509_free(parsed)
            throw CertificateError.notDER("\(der.count - consumed) bytes follow the certificate")
        }
        try self.init(takingOwnershipOf: parsed, der: der)
    }

    /// Reads the first `-----BEGIN CERTIFICATE-----` block of a PEM text.
    public convenience init(pem: String) throws(CertificateError) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(clamping: buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else {
            throw CertificateError.notPEM(OpenSSLError.drain("reading a PEM certificate").description)
        }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(parsed, &buffer)
        guard length > 0, let buffer else {
            X509_free(parsed)
            throw CertificateError.notPEM(OpenSSLError.drain("encoding a certificate").description)
        }
        defer { copenssl_free(buffer) }
        try self.init(takingOwnershipOf: parsed, der: Array(UnsafeBufferPointer(start: buffer, count: Int(length))))
    }

    /// Reads a certificate file's contents, PEM if it holds a `-----BEGIN CERTIFICATE-----`
    /// block, DER otherwise.
    public convenience init(derOrPEM bytes: [UInt8]) throws(CertificateError) {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            try self.init(pem: text)
        } else {
            try self.init(der: bytes)
        }
    }

    /// The start of the validity period.
    public var notBefore: Date { Date(timeIntervalSince1970: TimeInterval(notBeforeSeconds)) }
    /// The end of the validity period.
    public var notAfter: Date { Date(timeIntervalSince1970: TimeInterval(notAfterSeconds)) }

    /// Whether the certificate is within its validity period at `date`, judged as OpenSSL
    /// does: whole seconds, from `notBefore` included to `notAfter` excluded.
    public func isValid(at date: Date) -> Bool {
        let seconds = UnixTime.seconds(date)
        return notBeforeSeconds <= seconds && seconds < notAfterSeconds
    }

    /// The subject name in OpenSSL's one-line form, e.g. `/C=US/O=Apple Inc./CN=Apple Root CA - G3`.
    public var subject: String {
        guard let name = X509_get_subject_name(x509), let line = X509_NAME_oneline(name, nil, 0) else { return "" }
        defer { copenssl_free(line) }
        return String(cString: line)
    }

    /// Whether the certificate carries an extension with the dotted object identifier `oid`,
    /// critical or not.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            ERR_clear_error()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(x509, object, -1) >= 0
    }

    /// The DER SubjectPublicKeyInfo, or nil if OpenSSL cannot decode the key.
    var subjectPublicKeyInfo: [UInt8]? {
        guard let key = X509_get0_pubkey(x509) else {
            ERR_clear_error()
            return nil
        }
        let spki = P256PublicKey.spkiDER(of: key)
        return spki.isEmpty ? nil : spki
    }

    /// Seconds since 1970 of an ASN1_TIME, nil if absent or unreadable.
    static func unixSeconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var broken = tm()
        guard ASN1_TIME_to_tm(time, &broken) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Int64(timegm(&broken))
    }
}

/// Why bytes are not a usable X.509 certificate.
public enum CertificateError: Error, Equatable, Sendable, CustomStringConvertible {
    case notDER(String)
    case notPEM(String)
    case unreadableValidity

    public var description: String {
        switch self {
        case .notDER(let detail): "not a DER X.509 certificate (\(detail))"
        case .notPEM(let detail): "not a PEM X.509 certificate (\(detail))"
        case .unreadableValidity: "the certificate's validity dates cannot be read"
        }
    }
}
