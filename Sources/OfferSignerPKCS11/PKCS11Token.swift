internal import CPKCS11
import Foundation
import OfferSignerCore

/// One token of a module, found by a `pkcs11:` URI's token attributes, logged in once, with a
/// bounded pool of sessions that signing threads take in turn (each signature has a session
/// to itself: PKCS#11 allows one operation per session at a time).
///
/// When a call says the token or its sessions are gone (removed and put back, a restarted
/// HSM, a module reset: CKR_SESSION_HANDLE_INVALID, CKR_DEVICE_REMOVED, CKR_TOKEN_NOT_PRESENT,
/// CKR_USER_NOT_LOGGED_IN …), every session is dropped and the next use finds the token again,
/// opens new sessions and logs in again. Tokens are kept for the life of the process, so a
/// reload of the keys file naming the same token reuses its sessions and login.
final class PKCS11Token: @unchecked Sendable { // @unchecked: its mutable state is behind a PlainMutex; the module locks for itself
    /// Sessions open at most, and how long a signature waits for one.
    static let maxSessions = 16
    static let sessionWaitSeconds = 5

    let module: PKCS11Module
    /// The token attributes of the URI that chose it.
    let selector: PKCS11URI
    /// The token's label, as the module reports it.
    let label: String
    /// Never printed: kept to log in again after the token comes back.
    private let pin: [UInt8]?
    private let pinVariable: String?
    private let permits = DispatchSemaphore(value: PKCS11Token.maxSessions)
    private let state = PlainMutex(State())

    private struct State {
        /// The token's slot while connected; nil after the token was lost, until the next use finds it.
        var slot: CK_SLOT_ID?
        /// Counts connections: a session or object handle of an older one is not used again.
        var generation = 0
        var idle: [CK_SESSION_HANDLE] = []
        /// The last failed reconnection: tried again at most once a second; one that the PIN
        /// failed (wrong, locked) is not tried again until the keys file is loaded again, so a
        /// changed PIN cannot lock the token by repeated attempts.
        var refusal: (error: PKCS11Error, at: UInt64, untilReload: Bool)?
        /// The module's epoch when connected: after a restart of the module, the connection is gone.
        var epoch = 0
        /// The token went missing: the next reconnection restarts the module first (a module
        /// such as SoftHSM2 finds a token put back only when initialised again).
        var moduleRestartDue = false
    }

    /// Nanoseconds between two attempts to find the token again.
    static let reconnectInterval: UInt64 = 1_000_000_000

    private static let open = PlainMutex<[String: PKCS11Token]>([:])

    /// The token of `module` that `uri` chooses, logged in with `pin` (read from the
    /// environment variable `pinVariable`), found and connected on first use.
    static func token(module: PKCS11Module, uri: PKCS11URI, pin: [UInt8]?, pinVariable: String?) throws(PKCS11Error) -> PKCS11Token {
        let key = [module.path, uri.token ?? "", uri.serial ?? "", uri.manufacturer ?? "", uri.model ?? "", uri.slotId.map { "\($0)" } ?? ""]
            .joined(separator: "\u{1f}")
        let result: Result<PKCS11Token, PKCS11Error> = open.withLock { tokens in
            if let token = tokens[key] {
                // Logged in already, the token cannot check another PIN: each key's PIN is
                // checked against the one the token accepted (a token has one user PIN).
                guard token.pin == pin else { return .failure(.pinDiffers(variable: pinVariable ?? "", token: token.label)) }
                // A reload tries again at once, whatever was refused before.
                token.state.withLock { $0.refusal = nil }
                return .success(token)
            }
            do throws(PKCS11Error) {
                let token: PKCS11Token
                do throws(PKCS11Error) {
                    token = try PKCS11Token(module: module, uri: uri, pin: pin, pinVariable: pinVariable)
                } catch where error.tokenGone {
                    // Perhaps put back since the module last scanned its tokens: scan again.
                    try module.restart()
                    token = try PKCS11Token(module: module, uri: uri, pin: pin, pinVariable: pinVariable)
                }
                tokens[key] = token
                return .success(token)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(module: PKCS11Module, uri: PKCS11URI, pin: [UInt8]?, pinVariable: String?) throws(PKCS11Error) {
        self.module = module
        selector = uri
        self.pin = pin
        self.pinVariable = pinVariable
        let epoch = module.epoch
        let (slot, label, session) = try module.sharing { () throws(PKCS11Error) -> (CK_SLOT_ID, String, CK_SESSION_HANDLE) in
            let (slot, label) = try Self.findSlot(module, uri)
            let session = try Self.openLoggedInSession(module, slot: slot, pin: pin, pinVariable: pinVariable)
            return (slot, label, session)
        }
        self.label = label
        state.withLock { state in
            state.slot = slot
            state.idle = [session]
            state.epoch = epoch
        }
    }

    /// Runs `body` with a logged-in session of its own and the connection's generation. A
    /// session whose call failed is closed rather than reused; a failure saying the token may
    /// have gone drops every session, so that the next use connects afresh.
    func withSession<Result>(_ body: (PKCS11Session, Int) throws(PKCS11Error) -> Result) throws(PKCS11Error) -> Result {
        guard permits.wait(timeout: .now() + .seconds(Self.sessionWaitSeconds)) == .success else {
            throw .sessionsBusy(seconds: Self.sessionWaitSeconds)
        }
        defer { permits.signal() }
        restartModuleIfDue()
        return try module.sharing { () throws(PKCS11Error) -> Result in
            let (handle, generation) = try checkOut()
            do throws(PKCS11Error) {
                let result = try body(PKCS11Session(functions: module.functions, handle: handle), generation)
                checkIn(handle, generation: generation)
                return result
            } catch {
                _ = module.functions.pointee.C_CloseSession!(handle)
                if error.tokenMayBeBack { dropConnection(generation, tokenGone: error.tokenGone) }
                throw error
            }
        }
    }

    /// Restarts the module when the token went missing and a reconnection is due (at most once
    /// a second, never while a refused PIN waits for a reload), so a token put back is seen.
    private func restartModuleIfDue() {
        let due = state.withLock { state -> Bool in
            guard state.slot == nil, state.moduleRestartDue else { return false }
            if let refusal = state.refusal,
               refusal.untilReload || DispatchTime.now().uptimeNanoseconds - refusal.at < Self.reconnectInterval {
                return false
            }
            state.moduleRestartDue = false
            return true
        }
        // A module that fails to start again says so in the reconnection that follows.
        if due { try? module.restart() }
    }

    /// An idle session, or a new one (connecting first when the token was lost).
    private func checkOut() throws(PKCS11Error) -> (CK_SESSION_HANDLE, Int) {
        let epoch = module.epoch
        let result: Swift.Result<(CK_SESSION_HANDLE, Int), PKCS11Error> = state.withLock { state in
            if state.slot != nil, state.epoch != epoch {
                // The module was restarted (for another token): this connection's sessions,
                // login and handles are gone with it.
                state.slot = nil
                state.idle = []
                state.generation += 1
            }
            if let session = state.idle.popLast() { return .success((session, state.generation)) }
            do throws(PKCS11Error) {
                if let slot = state.slot {
                    return .success((try Self.openSession(module, slot), state.generation))
                }
                // The token was lost: find it again (it may be in another slot), log in again.
                let now = DispatchTime.now().uptimeNanoseconds
                if let refusal = state.refusal, refusal.untilReload || now - refusal.at < Self.reconnectInterval {
                    throw refusal.error
                }
                do throws(PKCS11Error) {
                    let (slot, _) = try Self.findSlot(module, selector)
                    let session = try Self.openLoggedInSession(module, slot: slot, pin: pin, pinVariable: pinVariable)
                    state.slot = slot
                    state.epoch = epoch
                    state.refusal = nil
                    return .success((session, state.generation))
                } catch {
                    let pinRefused = [.pinLocked, .pinIncorrect(variable: pinVariable ?? "")].contains(error)
                    state.refusal = (error, now, pinRefused)
                    if error.tokenGone { state.moduleRestartDue = true }
                    throw error
                }
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// A new session on `slot`, logged in (closed again when the login fails).
    private static func openLoggedInSession(_ module: PKCS11Module, slot: CK_SLOT_ID, pin: [UInt8]?,
                                            pinVariable: String?) throws(PKCS11Error) -> CK_SESSION_HANDLE {
        let session = try openSession(module, slot)
        do throws(PKCS11Error) {
            try logIn(module, session, slot: slot, pin: pin, pinVariable: pinVariable)
        } catch {
            _ = module.functions.pointee.C_CloseSession!(session)
            throw error
        }
        return session
    }

    private func checkIn(_ session: CK_SESSION_HANDLE, generation: Int) {
        let kept = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.idle.append(session)
            return true
        }
        if !kept { _ = module.functions.pointee.C_CloseSession!(session) }
    }

    /// Forgets the connection of `generation` (if it is still the current one): closes the
    /// idle sessions, and sessions in use are closed when they come back.
    private func dropConnection(_ generation: Int, tokenGone: Bool) {
        let idle = state.withLock { state -> [CK_SESSION_HANDLE] in
            guard state.generation == generation else { return [] }
            state.generation += 1
            state.slot = nil
            if tokenGone { state.moduleRestartDue = true }
            defer { state.idle = [] }
            return state.idle
        }
        for session in idle { _ = module.functions.pointee.C_CloseSession!(session) }
    }

    /// The slot of the one present token that `uri`'s token attributes match, and its label.
    private static func findSlot(_ module: PKCS11Module, _ uri: PKCS11URI) throws(PKCS11Error) -> (CK_SLOT_ID, String) {
        let f = module.functions
        var count: CK_ULONG = 0
        var value = f.pointee.C_GetSlotList!(CK_BBOOL(CK_TRUE), nil, &count)
        if value == CKR_CRYPTOKI_NOT_INITIALIZED {
            try module.reinitialize()
            value = f.pointee.C_GetSlotList!(CK_BBOOL(CK_TRUE), nil, &count)
        }
        guard value == CKR_OK else { throw .call("C_GetSlotList", returnValue: UInt(value)) }
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(count))
        value = f.pointee.C_GetSlotList!(CK_BBOOL(CK_TRUE), &slots, &count)
        guard value == CKR_OK else { throw .call("C_GetSlotList", returnValue: UInt(value)) }
        var present: [String] = []
        var matches: [(CK_SLOT_ID, String)] = []
        for slot in slots.prefix(Int(count)) {
            var info = CK_TOKEN_INFO()
            guard f.pointee.C_GetTokenInfo!(slot, &info) == CKR_OK else { continue }
            // A token not yet initialised (SoftHSM's spare slot) holds no key.
            guard info.flags & CK_FLAGS(CKF_TOKEN_INITIALIZED) != 0 else { continue }
            let label = PKCS11Text.string(info.label)
            present.append(label)
            if let wanted = uri.token, wanted != label { continue }
            if let wanted = uri.serial, wanted != PKCS11Text.string(info.serialNumber) { continue }
            if let wanted = uri.manufacturer, wanted != PKCS11Text.string(info.manufacturerID) { continue }
            if let wanted = uri.model, wanted != PKCS11Text.string(info.model) { continue }
            if let wanted = uri.slotId, wanted != UInt(slot) { continue }
            matches.append((slot, label))
        }
        guard let first = matches.first else { throw .tokenNotFound(uri: uri.text, present: present) }
        guard matches.count == 1 else { throw .severalTokens(uri: uri.text, labels: matches.map(\.1)) }
        return first
    }

    private static func openSession(_ module: PKCS11Module, _ slot: CK_SLOT_ID) throws(PKCS11Error) -> CK_SESSION_HANDLE {
        var session: CK_SESSION_HANDLE = 0
        let value = module.functions.pointee.C_OpenSession!(slot, CK_FLAGS(CKF_SERIAL_SESSION), nil, nil, &session)
        guard value == CKR_OK else { throw .call("C_OpenSession", returnValue: UInt(value)) }
        return session
    }

    /// Logs the user in (once for every session of the application). Already logged in is fine.
    private static func logIn(_ module: PKCS11Module, _ session: CK_SESSION_HANDLE, slot: CK_SLOT_ID, pin: [UInt8]?,
                              pinVariable: String?) throws(PKCS11Error) {
        var info = CK_TOKEN_INFO()
        let needsLogin = module.functions.pointee.C_GetTokenInfo!(slot, &info) != CKR_OK
            || info.flags & CK_FLAGS(CKF_LOGIN_REQUIRED) != 0
        guard needsLogin else { return }
        guard var pin else { throw .pinNotSet(variable: pinVariable ?? "") }
        let value = module.functions.pointee.C_Login!(session, CK_USER_TYPE(CKU_USER), &pin, CK_ULONG(pin.count))
        switch value {
        case CK_RV(CKR_OK), CK_RV(CKR_USER_ALREADY_LOGGED_IN): return
        case CK_RV(CKR_PIN_INCORRECT), CK_RV(CKR_PIN_INVALID), CK_RV(CKR_PIN_LEN_RANGE):
            throw .pinIncorrect(variable: pinVariable ?? "")
        case CK_RV(CKR_PIN_LOCKED): throw .pinLocked
        default: throw .call("C_Login", returnValue: UInt(value))
        }
    }
}
