internal import CPKCS11
import Foundation
@testable import OfferSignerApplication
import OfferSignerCore
@testable import OfferSignerPKCS11

/// SoftHSM2 tokens for the tests, made once per test process in a temporary folder (nothing
/// outside it but Debian's module, /usr/lib/softhsm/libsofthsm2.so): token `offers` with the
/// keys `iap-1`, `iap-2` and `audit`, and token `fragile` with `iap-f`, whose PIN the test of
/// a module that cannot sign changes under the service. Every key is generated through the
/// PKCS#11 API, sensitive and not extractable. SoftHSM reads `SOFTHSM2_CONF` once, when the
/// module is first initialised in a process, so this sets it (and the PIN's variable) before that.
final class SoftHSMFixture: Sendable {
    static let module = SoftHSMToken.defaultModule
    static let pinVariable = "OFFER_SIGNER_TEST_HSM_PIN"
    static var installed: Bool {
        FileManager.default.fileExists(atPath: module) && FileManager.default.isExecutableFile(atPath: "/usr/bin/softhsm2-util")
    }
    /// Whether the module's tests are run: when SoftHSM2 is installed, and always under CI
    /// (where they then fail without it, as ``TestPrerequisiteTests`` does by name).
    static var testable: Bool { installed || OfferSignerBinary.underCI }

    /// The fixture of this process (made on first use).
    static let shared = Result { try SoftHSMFixture() }

    let folder: URL
    let configuration: String
    /// Random per process, so that a test can look for it in logs and answers.
    let pin = "pin-" + SecureRandom.token(byteCount: 9)

    private init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("offer-signer-softhsm-\(UUID().uuidString)")
        configuration = try SoftHSMToken.configuration(in: folder)
        for label in ["offers", "fragile"] {
            try SoftHSMToken.initialize(label: label, pin: pin, soPin: "so-" + pin, configuration: configuration)
        }
        setenv("SOFTHSM2_CONF", configuration, 1)
        setenv(Self.pinVariable, pin, 1)
        SoftHSMFixtureCleanup.folder = folder.path
        atexit { if let folder = SoftHSMFixtureCleanup.folder { try? FileManager.default.removeItem(atPath: folder) } }
        try SoftHSMToken.generateKey(token: "offers", pin: pin, object: "iap-1", id: [0x01])
        try SoftHSMToken.generateKey(token: "offers", pin: pin, object: "iap-2", id: [0x02])
        try SoftHSMToken.generateKey(token: "offers", pin: pin, object: "audit", id: [0x03])
        try SoftHSMToken.generateKey(token: "fragile", pin: pin, object: "iap-f", id: [0x11])
    }

    /// What a `serve` or `keys check` process needs to use the tokens.
    var processEnvironment: [String: String] { ["SOFTHSM2_CONF": configuration, Self.pinVariable: pin] }

    /// A keys file entry for the key `object` of `token`.
    func signingKey(_ keyId: String, object: String, token: String = "offers", active: Bool = true) -> KeysFile.SigningKeyEntry {
        KeysFile.SigningKeyEntry(keyId: keyId, pkcs11: "pkcs11:token=\(token);object=\(object)", pkcs11Module: Self.module,
                                 pinEnv: Self.pinVariable, active: active)
    }

    var auditKey: KeysFile.AuditKeyEntry {
        KeysFile.AuditKeyEntry(keyId: "AUDITKEY01", pkcs11: "pkcs11:token=offers;object=audit", pkcs11Module: Self.module, pinEnv: Self.pinVariable)
    }

    /// Puts the test environment's app on `signingKeys` (and the audit key in the token) and
    /// returns the configuration in force.
    @discardableResult
    func use(_ signingKeys: [KeysFile.SigningKeyEntry], auditInToken: Bool = true, in env: TestEnvironment) throws -> KeyConfiguration {
        var file = try JSONDecoder().decode(KeysFile.self, from: TestEnvironment.keysFile())
        file.apps[0].signingKeys = signingKeys
        if auditInToken { file.auditKey = auditKey }
        try JSONEncoder().encode(file).write(to: URL(fileURLWithPath: env.keysPath))
        let configuration = try KeyConfiguration.load(path: env.keysPath)
        env.keyRing.replace(with: configuration)
        return configuration
    }

    // MARK: - What happens to a token, done through the module's own functions

    /// The slot holding the token labelled `label`.
    func slot(of label: String) throws -> CK_SLOT_ID {
        let functions = try PKCS11Module.load(path: Self.module).functions
        var slots = [CK_SLOT_ID](repeating: 0, count: 16)
        var count = CK_ULONG(slots.count)
        guard functions.pointee.C_GetSlotList!(CK_BBOOL(CK_TRUE), &slots, &count) == CKR_OK else { throw Failure("C_GetSlotList") }
        for slot in slots.prefix(Int(count)) {
            var info = CK_TOKEN_INFO()
            if functions.pointee.C_GetTokenInfo!(slot, &info) == CKR_OK, PKCS11Text.string(info.label) == label { return slot }
        }
        throw Failure("no token \(label)")
    }

    /// What the service sees when the token is pulled out and put back: every session of this
    /// process closed, and the login gone with them.
    func pullOutAndPutBack(_ label: String) throws {
        let functions = try PKCS11Module.load(path: Self.module).functions
        guard functions.pointee.C_CloseAllSessions!(try slot(of: label)) == CKR_OK else { throw Failure("C_CloseAllSessions") }
    }

    /// Changes the user PIN of token `label` from `old` to `new` (as its owner would, from another program).
    func changePIN(of label: String, from old: String, to new: String) throws {
        let functions = try PKCS11Module.load(path: Self.module).functions
        var session: CK_SESSION_HANDLE = 0
        guard functions.pointee.C_OpenSession!(try slot(of: label), CK_FLAGS(CKF_SERIAL_SESSION | CKF_RW_SESSION), nil, nil, &session) == CKR_OK else {
            throw Failure("C_OpenSession")
        }
        defer { _ = functions.pointee.C_CloseSession!(session) }
        var oldPIN = Array(old.utf8), newPIN = Array(new.utf8)
        let login = functions.pointee.C_Login!(session, CK_USER_TYPE(CKU_USER), &oldPIN, CK_ULONG(oldPIN.count))
        guard login == CKR_OK || login == CKR_USER_ALREADY_LOGGED_IN else { throw Failure("C_Login \(login)") }
        let changed = functions.pointee.C_SetPIN!(session, &oldPIN, CK_ULONG(oldPIN.count), &newPIN, CK_ULONG(newPIN.count))
        guard changed == CKR_OK else { throw Failure("C_SetPIN \(changed)") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The fixture's folder, removed when the test process exits (a C `atexit` handler captures nothing).
enum SoftHSMFixtureCleanup {
    nonisolated(unsafe) static var folder: String?
}
