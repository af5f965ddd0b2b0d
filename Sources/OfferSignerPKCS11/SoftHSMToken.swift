internal import CPKCS11
import Foundation

/// A SoftHSM2 token in a folder of its own, with a generated P-256 key that cannot be
/// extracted: for `offer-signer dev-setup --pkcs11` and the tests. SoftHSM reads where its
/// tokens live from the file `SOFTHSM2_CONF` names, once, when the module is initialised in a
/// process: `configuration` must be in that variable before the module is first used.
public enum SoftHSMToken {
    /// Debian's SoftHSM2 module (package `softhsm2`).
    public static let defaultModule = "/usr/lib/softhsm/libsofthsm2.so"

    /// Why the token could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `folder/softhsm2.conf` (tokens in `folder/tokens`) and returns its path. Existing
    /// tokens in the folder stay.
    public static func configuration(in folder: URL) throws -> String {
        let tokens = folder.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = folder.appendingPathComponent("softhsm2.conf").path
        let text = "directories.tokendir = \(tokens.path)\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Initialises a token labelled `label` with `softhsm2-util --init-token --free`, in the
    /// tokens of `configuration`. Run it before this process first uses the module (SoftHSM
    /// sees the tokens that existed when it was initialised).
    public static func initialize(label: String, pin: String, soPin: String, configuration: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/softhsm2-util")
        guard FileManager.default.isExecutableFile(atPath: process.executableURL!.path) else {
            throw Failure(description: "softhsm2-util is missing: install Debian's softhsm2 (make deps does)")
        }
        process.arguments = ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", soPin]
        process.environment = ProcessInfo.processInfo.environment.merging(["SOFTHSM2_CONF": configuration]) { $1 }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "softhsm2-util --init-token failed: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// Generates a P-256 key pair labelled `object` with CKA_ID `id` in the token labelled
    /// `token` of `module`, through the PKCS#11 API: the private key sensitive and not extractable.
    public static func generateKey(module: String = defaultModule, token: String, pin: String, object: String, id: [UInt8]) throws(PKCS11Error) {
        let loaded = try PKCS11Module.load(path: module)
        let f = loaded.functions
        var slots = [CK_SLOT_ID](repeating: 0, count: 64)
        var count = CK_ULONG(slots.count)
        let listed = f.pointee.C_GetSlotList!(CK_BBOOL(CK_TRUE), &slots, &count)
        guard listed == CKR_OK else { throw .call("C_GetSlotList", returnValue: UInt(listed)) }
        var found: CK_SLOT_ID?
        var present: [String] = []
        for slot in slots.prefix(Int(count)) {
            var info = CK_TOKEN_INFO()
            guard f.pointee.C_GetTokenInfo!(slot, &info) == CKR_OK else { continue }
            present.append(PKCS11Text.string(info.label))
            if PKCS11Text.string(info.label) == token { found = slot }
        }
        guard let slot = found else { throw .tokenNotFound(uri: "pkcs11:token=\(token)", present: present) }
        var session: CK_SESSION_HANDLE = 0
        let opened = f.pointee.C_OpenSession!(slot, CK_FLAGS(CKF_SERIAL_SESSION | CKF_RW_SESSION), nil, nil, &session)
        guard opened == CKR_OK else { throw .call("C_OpenSession", returnValue: UInt(opened)) }
        defer { _ = f.pointee.C_CloseSession!(session) }
        var pinBytes = Array(pin.utf8)
        let login = f.pointee.C_Login!(session, CK_USER_TYPE(CKU_USER), &pinBytes, CK_ULONG(pinBytes.count))
        guard login == CKR_OK || login == CKR_USER_ALREADY_LOGGED_IN else { throw .call("C_Login", returnValue: UInt(login)) }
        try PKCS11Session(functions: f, handle: session).generateP256KeyPair(label: object, id: id)
    }
}
