import OfferSignerCore

extension Result where Success == LoggedSignature?, Failure == any Error {
    /// A log writer's outcome of one append, as the log's typed error: a refused chain end is
    /// ``SignatureLogError/endMismatch(_:)``, anything else the writer met makes the log unavailable.
    func appended() throws(SignatureLogError) -> LoggedSignature {
        switch self {
        case .success(let logged?):
            return logged
        case .success(nil):
            throw .unavailable("the writer returned no record")
        case .failure(let error as SignatureLogError):
            throw error
        case .failure(let mismatch as ChainEndMismatch):
            throw .endMismatch(mismatch)
        case .failure(let error):
            throw .unavailable(String(describing: error))
        }
    }
}
