import COpenSSL
import Foundation
@testable import OfferSignerCore

/// A certificate the tests made with OpenSSL, with its private key.
struct AppStoreTestCertificate: Sendable {
    let key: P256PrivateKey
    let der: [UInt8]

    /// The `x5c` form: standard base64 of the DER.
    var base64: String { Data(der).base64EncodedString() }
    /// The certificate parsed by the code under test.
    var certificate: X509Certificate { try! X509Certificate(der: der) }
}

/// Makes certificate chains shaped like Apple's (root → WWDR-like intermediate → leaf), with
/// P-256 keys, RFC 5280 extensions (so OpenSSL's strict checks pass) and chosen validity.
enum AppStoreTestPKI {
    static let defaultValidity = date("2020-01-01T00:00:00Z")...date("2040-01-01T00:00:00Z")

    static func date(_ iso8601: String) -> Date {
        ISO8601DateFormatter().date(from: iso8601)!
    }

    /// A self-signed root CA.
    static func root(name: String = "Test Root CA", validity: ClosedRange<Date> = defaultValidity) -> AppStoreTestCertificate {
        issue(commonName: name, issuer: nil, validity: validity, extensions: [
            ("basicConstraints", "critical,CA:TRUE"),
            ("keyUsage", "critical,keyCertSign,cRLSign"),
            ("subjectKeyIdentifier", "hash"),
        ])
    }

    /// An intermediate CA, with Apple's WWDR OID unless `appleOID` is false.
    static func intermediate(issuer: AppStoreTestCertificate, appleOID: Bool = true,
                             validity: ClosedRange<Date> = defaultValidity) -> AppStoreTestCertificate {
        var extensions = [
            ("basicConstraints", "critical,CA:TRUE,pathlen:0"),
            ("keyUsage", "critical,keyCertSign,cRLSign"),
            ("subjectKeyIdentifier", "hash"),
            ("authorityKeyIdentifier", "keyid:always"),
        ]
        if appleOID { extensions.append((AppStoreChainVerifier.intermediateOID, "DER:05:00")) }
        return issue(commonName: "Test WWDR Intermediate", issuer: issuer, validity: validity, extensions: extensions)
    }

    /// A signing leaf, with Apple's receipt-signing OID (or `leafOID` instead, or none).
    static func leaf(issuer: AppStoreTestCertificate, leafOID: String? = AppStoreChainVerifier.leafOID,
                     validity: ClosedRange<Date> = defaultValidity) -> AppStoreTestCertificate {
        var extensions = [
            ("basicConstraints", "critical,CA:FALSE"),
            ("keyUsage", "critical,digitalSignature"),
            ("subjectKeyIdentifier", "hash"),
            ("authorityKeyIdentifier", "keyid:always"),
        ]
        if let leafOID { extensions.append((leafOID, "DER:05:00")) }
        return issue(commonName: "Test Receipt Signing", issuer: issuer, validity: validity, extensions: extensions)
    }

    /// Issues a certificate for a fresh P-256 key, signed by `issuer` (self-signed when nil).
    static func issue(commonName: String, issuer: AppStoreTestCertificate?, validity: ClosedRange<Date>,
                      extensions: [(String, String)]) -> AppStoreTestCertificate {
        let key = try! P256PrivateKey.generate()
        let issuerCertificate = issuer?.certificate
        let x509 = X509_new()!
        defer { X509_free(x509) }
        precondition(X509_set_version(x509, 2) == 1)
        precondition(ASN1_INTEGER_set(X509_get_serialNumber(x509), Int(UInt32.random(in: 1...UInt32.max))) == 1)
        precondition(ASN1_TIME_set(X509_getm_notBefore(x509), time_t(validity.lowerBound.timeIntervalSince1970)) != nil)
        precondition(ASN1_TIME_set(X509_getm_notAfter(x509), time_t(validity.upperBound.timeIntervalSince1970)) != nil)

        let name = X509_NAME_new()!
        defer { X509_NAME_free(name) }
        for (field, value) in [("O", "offer-signer tests"), ("CN", commonName)] {
            precondition(X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, Array(value.utf8), -1, -1, 0) == 1)
        }
        precondition(X509_set_subject_name(x509, name) == 1)
        precondition(X509_set_issuer_name(x509, issuerCertificate.map { X509_get_subject_name($0.x509) } ?? name) == 1)
        precondition(X509_set_pubkey(x509, key.pkey) == 1)

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate?.x509 ?? x509, x509, nil, nil, 0)
        for (extensionName, value) in extensions {
            guard let ext = X509V3_EXT_nconf(nil, &context, extensionName, value) else {
                fatalError("cannot make extension \(extensionName)=\(value): \(OpenSSLError.drain("making an extension"))")
            }
            precondition(X509_add_ext(x509, ext, -1) == 1)
            X509_EXTENSION_free(ext)
        }
        precondition(X509_sign(x509, (issuer?.key ?? key).pkey, EVP_sha256()) > 0)
        withExtendedLifetime(issuerCertificate) {}

        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &buffer)
        precondition(length > 0)
        defer { copenssl_free(buffer) }
        return AppStoreTestCertificate(key: key, der: Array(UnsafeBufferPointer(start: buffer!, count: Int(length))))
    }
}

/// A root → intermediate → leaf chain made by ``AppStoreTestPKI``.
struct AppStoreTestChain: Sendable {
    let root: AppStoreTestCertificate
    let intermediate: AppStoreTestCertificate
    let leaf: AppStoreTestCertificate

    /// The `x5c` header value: leaf, intermediate, root.
    var x5c: [String] { [leaf.base64, intermediate.base64, root.base64] }

    /// A chain under `root` (a fresh one when nil).
    static func make(root: AppStoreTestCertificate? = nil,
                     intermediateOID: Bool = true,
                     leafOID: String? = AppStoreChainVerifier.leafOID,
                     intermediateValidity: ClosedRange<Date> = AppStoreTestPKI.defaultValidity,
                     leafValidity: ClosedRange<Date> = AppStoreTestPKI.defaultValidity) -> AppStoreTestChain {
        let root = root ?? AppStoreTestPKI.root()
        let intermediate = AppStoreTestPKI.intermediate(issuer: root, appleOID: intermediateOID, validity: intermediateValidity)
        let leaf = AppStoreTestPKI.leaf(issuer: intermediate, leafOID: leafOID, validity: leafValidity)
        return AppStoreTestChain(root: root, intermediate: intermediate, leaf: leaf)
    }
}
