import Foundation
import OfferSignerCore
import OfferSignerStore

/// `offer-signer audit verify`: the integrity check of the endpoint, run on the database
/// directly, optionally against checkpoints the auditor kept (`--checkpoints FILE`, verified
/// with `--audit-public-key FILE` or the keys file's audit key) and with every record's
/// signature checked against the app's keys (`--signatures`), and with the records whose answer
/// was never delivered named from the service's own log (`--service-log FILE`, ``UndeliveredAnswers``).
public struct AuditVerification {
    public var checkpointFile: String?
    /// PEM public keys checkpoints may be signed with; empty: the keys file's audit key.
    public var auditPublicKeyFiles: [String]
    public var checkSignatures: Bool
    /// Files of the service's log, read for requests answered 503 after a failed append.
    public var serviceLogFiles: [String]

    public init(checkpointFile: String? = nil, auditPublicKeyFiles: [String] = [], checkSignatures: Bool = false,
                serviceLogFiles: [String] = []) {
        self.checkpointFile = checkpointFile
        self.auditPublicKeyFiles = auditPublicKeyFiles
        self.checkSignatures = checkSignatures
        self.serviceLogFiles = serviceLogFiles
    }

    /// Runs the check and writes its findings line by line; true when the log is intact.
    public func run(settings: ServiceSettings, log: any SignatureLog, write: (String) -> Void) throws(AuditVerificationError) -> Bool {
        var configuration: KeyConfiguration?
        func keys() throws(AuditVerificationError) -> KeyConfiguration {
            if let configuration { return configuration }
            do {
                let loaded = try KeyConfiguration.load(path: settings.keys)
                configuration = loaded
                return loaded
            } catch {
                throw .keys(error)
            }
        }
        var check = IntegrityCheck()
        if let checkpointFile {
            do {
                check.checkpoints = try CheckpointFile(path: checkpointFile).checkpoints
            } catch {
                throw .checkpoints(error)
            }
            check.auditKeys = try auditKeys(keys)
        }
        if checkSignatures { check.signatureKeys = try keys() }
        var undelivered: UndeliveredAnswers?
        if !serviceLogFiles.isEmpty {
            do {
                undelivered = try UndeliveredAnswers(serviceLogs: serviceLogFiles)
            } catch {
                throw .serviceLog(error)
            }
        }
        let started = ContinuousClock.now
        let outcome: IntegrityCheck.Outcome
        do {
            outcome = try check.run(log)
        } catch {
            throw .unreadableLog(String(describing: error))
        }
        let elapsed = ContinuousClock.now - started
        Self.describe(outcome, checkpoints: checkpointFile != nil, elapsed: elapsed, write: write)
        if let undelivered {
            let records: [LoggedSignature]
            do {
                records = try undelivered.records(in: log)
            } catch {
                throw .unreadableLog(String(describing: error))
            }
            write("signed, answer not delivered: \(records.count) of the \(undelivered.nonces.count) records the service log names as "
                  + "answered 503 after a failed append are in the log (the connection broke during COMMIT, which went through)")
            for logged in records {
                write("  sequence \(logged.sequence), nonce \(logged.record.nonce), requestId \(logged.record.requestId)")
            }
        }
        return outcome.report.ok
    }

    private func auditKeys(_ keys: () throws(AuditVerificationError) -> KeyConfiguration) throws(AuditVerificationError) -> [P256PublicKey] {
        guard auditPublicKeyFiles.isEmpty else {
            var loaded: [P256PublicKey] = []
            for path in auditPublicKeyFiles {
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw .unreadablePublicKey(path: path, reason: "cannot read it") }
                do {
                    loaded.append(try P256PublicKey(pem: pem))
                } catch {
                    throw .unreadablePublicKey(path: path, reason: error.description)
                }
            }
            return loaded
        }
        guard let key = try keys().auditKey else { throw .noAuditKey }
        return [key.publicKey]
    }

    static func describe(_ outcome: IntegrityCheck.Outcome, checkpoints: Bool, elapsed: Duration, write: (String) -> Void) {
        let report = outcome.report
        if report.ok {
            write("OK: \(report.records) records, hash chain intact")
        } else {
            write("TAMPERED: \(report.problem ?? "the chain is broken") (\(report.records) records)")
            if let bad = report.firstBadRecord {
                write("first bad record: sequence \(bad.sequence), nonce \(bad.record.nonce)")
            } else if let sequence = report.firstBadSequence {
                write("first bad entry: sequence \(sequence)")
            }
        }
        for gap in report.gaps {
            write("accepted gap at entry \(gap.sequence): \(gap.summary)")
        }
        if checkpoints {
            write("checkpoints: \(outcome.checkpointsGiven) given, \(report.checkpointsMatched) matched, "
                  + "\(report.checkpointsInGaps) in accepted gaps, \(outcome.checkpointsInvalid.count) not signed by the audit key")
        }
        if let checked = report.signaturesChecked {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let rate = seconds > 0 ? Int(Double(checked) / seconds) : checked
            write("signatures: \(checked) checked in \(String(format: "%.1f", seconds)) s (\(rate) per second)")
        }
    }
}

/// Why `audit verify` could not run its check (as opposed to finding the log tampered with).
public enum AuditVerificationError: Error, CustomStringConvertible, Sendable {
    case checkpoints(CheckpointFileError)
    case unreadablePublicKey(path: String, reason: String)
    case noAuditKey
    case keys(ConfigurationError)
    case unreadableLog(String)
    case serviceLog(ServiceLogFileError)

    public var description: String {
        switch self {
        case .checkpoints(let error): error.description
        case .unreadablePublicKey(let path, let reason): "\(path): not an audit public key (\(reason))"
        case .noAuditKey: "the keys file names no auditKey: give the audit public key with --audit-public-key FILE"
        case .keys(let error): error.description
        case .unreadableLog(let reason): "the signature log cannot be read: \(reason)"
        case .serviceLog(let error): error.description
        }
    }
}
