import Foundation
import OfferSignerCore

/// A signature log an operator can repair after records were cut off its end and no backup
/// brings them back: `offer-signer audit accept-truncation`.
public protocol RepairableSignatureLog: SignatureLog {
    /// Writes an accepted gap after the last record kept, naming what was lost, who accepted
    /// it, when and why, and records it as the chain's end so appends resume after it.
    /// Refused unless the log's only fault is a cut-off end.
    func acceptTruncation(by actor: String, reason: String, at time: Date) throws(TruncationRefusal) -> ChainGap
}
