import OfferSignerCore

/// One pass over the signature log's entries in sequence order: checks that each links to
/// the one before, that its hash matches its contents, that it matches every checkpoint at
/// its position and (if asked) that its signature verifies; keeps the first problem, counts
/// the rest. Records and accepted gaps are fed in sequence order by the caller.
struct ChainWalk {
    /// The last entry that checked out (genesis before the first).
    private(set) var last = ChainLink.genesis
    private(set) var records = 0
    private(set) var gaps: [ChainGap] = []
    private var problem: (text: String, sequence: Int64?, record: LoggedSignature?)?
    private let checkpoints: [Int64: Set<String>]
    private var checkpointsMatched = 0
    private let recordCheck: (@Sendable (SignatureRecord) -> String?)?
    private var signaturesChecked = 0

    init(_ options: IntegrityOptions) {
        checkpoints = Dictionary(grouping: options.checkpoints, by: \.sequence).mapValues { Set($0.map(\.hash)) }
        recordCheck = options.recordCheck
    }

    /// Whether a problem was found (later entries are then only counted).
    var failed: Bool { problem != nil }

    mutating func visit(_ entry: LoggedSignature) {
        records += 1
        guard problem == nil else { return }
        let recomputed = SignatureChain.hash(of: entry.record, sequence: entry.sequence, previousHash: entry.previousHash)
        if entry.sequence != last.sequence + 1 {
            fail("record \(entry.sequence) stands where record \(last.sequence + 1) was expected: records are missing or reordered", entry)
        } else if entry.previousHash != last.hash {
            fail("record \(entry.sequence) does not link to the entry before it", entry)
        } else if entry.hash != recomputed {
            fail("record \(entry.sequence) was changed after it was written: its hash does not match its contents", entry)
        } else if let mismatch = checkpointMismatch(ChainLink(sequence: entry.sequence, hash: entry.hash)) {
            fail(mismatch, entry)
        } else if let fault = checkSignature(entry.record) {
            fail("record \(entry.sequence): \(fault)", entry)
        } else {
            last = ChainLink(sequence: entry.sequence, hash: entry.hash)
        }
    }

    /// The record check's fault, if a check was asked for.
    private mutating func checkSignature(_ record: SignatureRecord) -> String? {
        guard let recordCheck else { return nil }
        signaturesChecked += 1
        return recordCheck(record)
    }

    /// A record after the first problem: only counted, not read.
    mutating func visitCounted() {
        records += 1
    }

    /// A stored record that cannot be read as one (its columns were changed).
    mutating func visit(unreadable: UnreadableSignatureRecord) {
        records += 1
        guard problem == nil else { return }
        problem = ("\(unreadable.description): it was changed after it was written", unreadable.sequence, nil)
    }

    mutating func visit(_ gap: ChainGap) {
        gaps.append(gap)
        guard problem == nil else { return }
        let expectedSequence = (gap.lostThrough?.sequence ?? gap.resumedAfter.sequence) + 1
        if gap.resumedAfter != last {
            fail("the accepted gap at \(gap.sequence) does not follow entry \(last.sequence), the last one before it", gap: gap.sequence)
        } else if gap.sequence != expectedSequence || (gap.lostThrough.map { $0.sequence < gap.resumedAfter.sequence } ?? false) {
            fail("the accepted gap at \(gap.sequence) does not stand where the loss it names ends", gap: gap.sequence)
        } else if gap.hash != gap.computedHash {
            fail("the accepted gap at \(gap.sequence) was changed after it was written: its hash does not match its contents", gap: gap.sequence)
        } else if let mismatch = checkpointMismatch(ChainLink(sequence: gap.sequence, hash: gap.hash)) {
            fail(mismatch, gap: gap.sequence)
        } else {
            last = ChainLink(sequence: gap.sequence, hash: gap.hash)
        }
    }

    /// The report once every entry was visited, with `recorded`, the end the last commit
    /// wrote (nil when that row is missing).
    func report(recorded: ChainLink?) -> IntegrityReport {
        var outcome = problem
        if outcome == nil, let mismatch = ChainHead.State(last: last, recorded: recorded).mismatch {
            outcome = (mismatch.description, nil, nil)
        }
        var inGaps = 0
        var matched = checkpointsMatched
        for (sequence, hashes) in checkpoints.sorted(by: { $0.key < $1.key }) where sequence > last.sequence || sequence == 0 {
            if sequence == 0 {
                matched += hashes == [SignatureChain.genesis] ? 1 : 0
            } else if outcome == nil {
                outcome = ("a checkpoint vouches for entry \(sequence), but the log ends at entry \(last.sequence): entries were removed from its end", nil, nil)
            }
        }
        for gap in gaps {
            for (sequence, hashes) in checkpoints where sequence >= gap.lostFrom && sequence < gap.sequence {
                if let lost = gap.lostThrough, lost.sequence == sequence, hashes == [lost.hash] {
                    matched += 1
                } else {
                    inGaps += hashes.count
                }
            }
        }
        return IntegrityReport(ok: outcome == nil, records: records, firstBadRecord: outcome?.record, firstBadSequence: outcome?.sequence,
                               problem: outcome?.text, gaps: gaps, checkpointsMatched: matched, checkpointsInGaps: inGaps,
                               signaturesChecked: recordCheck == nil ? nil : signaturesChecked)
    }

    /// Why `link` contradicts a checkpoint at its position, or nil (counting the matches).
    private mutating func checkpointMismatch(_ link: ChainLink) -> String? {
        guard let hashes = checkpoints[link.sequence] else { return nil }
        guard hashes == [link.hash] else {
            return "entry \(link.sequence) is not the one a signed checkpoint vouches for: the chain was rewritten up to it"
        }
        checkpointsMatched += 1
        return nil
    }

    private mutating func fail(_ text: String, _ entry: LoggedSignature) {
        problem = (text, entry.sequence, entry)
    }

    private mutating func fail(_ text: String, gap sequence: Int64) {
        problem = (text, sequence, nil)
    }
}
