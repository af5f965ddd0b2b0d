import Foundation
import OfferSignerCore
import OfferSignerPKCS11

/// `dev-setup --pkcs11`: a SoftHSM2 token in a folder of its own, holding a generated signing
/// key and audit key that cannot be extracted, and the keys file entries naming them. The PIN
/// is random, shown once, and goes in an environment variable, never in the keys file.
struct DevelopmentToken {
    static let label = "offer-signer-dev"
    /// The environment variable the keys file names for the PIN.
    static let pinVariable = "OFFER_SIGNER_DEV_PIN"

    let configuration: String
    let pin: String
    let signingKey: KeysFile.SigningKeyEntry
    let auditKey: KeysFile.AuditKeyEntry

    /// Makes the token in `folder` and generates both keys in it through the PKCS#11 API.
    static func create(in folder: String, keyIds: (signing: String, audit: String)) throws -> DevelopmentToken {
        let url = URL(fileURLWithPath: folder, isDirectory: true)
        let configuration = try SoftHSMToken.configuration(in: url)
        let pin = SecureRandom.token(byteCount: 12)
        try SoftHSMToken.initialize(label: label, pin: pin, soPin: SecureRandom.token(byteCount: 12), configuration: configuration)
        // SoftHSM reads SOFTHSM2_CONF once, when this process first initialises the module.
        setenv("SOFTHSM2_CONF", configuration, 1)
        let signingObject = "iap-\(keyIds.signing)", auditObject = "audit-\(keyIds.audit)"
        try SoftHSMToken.generateKey(token: label, pin: pin, object: signingObject, id: [0x01])
        try SoftHSMToken.generateKey(token: label, pin: pin, object: auditObject, id: [0x02])
        return DevelopmentToken(
            configuration: configuration, pin: pin,
            signingKey: KeysFile.SigningKeyEntry(keyId: keyIds.signing, pkcs11: "pkcs11:token=\(label);object=\(signingObject)",
                                                 pkcs11Module: SoftHSMToken.defaultModule, pinEnv: pinVariable, active: true),
            auditKey: KeysFile.AuditKeyEntry(keyId: keyIds.audit, pkcs11: "pkcs11:token=\(label);object=\(auditObject)",
                                             pkcs11Module: SoftHSMToken.defaultModule, pinEnv: pinVariable))
    }

    /// What to tell the developer: where the token is, and the two variables `serve` needs.
    var banner: String {
        """
        ================================================================================
        SOFTHSM2 TOKEN '\(Self.label)' (development only), its files in \(configuration.replacingOccurrences(of: "/softhsm2.conf", with: "/tokens")).
        The signing key and the audit key were generated inside it and cannot be extracted;
        the keys file names them by pkcs11: URI. Before `offer-signer serve` or `keys check`:

          export SOFTHSM2_CONF=\(configuration)
          export \(Self.pinVariable)='\(pin)'

        (the PIN is shown once; the keys file holds only the variable's name)

        """
    }
}
