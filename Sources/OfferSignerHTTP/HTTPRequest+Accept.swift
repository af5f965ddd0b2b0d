/// Content negotiation on `Accept` (RFC 9110 §12.5.1), for routes that answer in one of two
/// media types.
extension HTTPRequest {
    /// Whether the client's `Accept` prefers `mediaType` to `fallback` (both `type/subtype`,
    /// lowercase): a range naming `mediaType` or its type (`text/csv`, `text/*`; `*/*` alone
    /// never chooses it) gives it a quality above 0 and at least `fallback`'s. Each quality is
    /// that of the most specific range that matches (`type/subtype`, then `type/*`, then `*/*`),
    /// 0 when none does; `q=0` means "not acceptable", so `text/csv;q=0, application/json`
    /// never chooses CSV. Without an `Accept` field, `fallback`.
    public func prefers(_ mediaType: String, over fallback: String) -> Bool {
        guard let accept = headers["Accept"] else { return false }
        let ranges = Self.mediaRanges(accept)
        guard let wanted = Self.quality(of: mediaType, in: ranges), wanted.range != "*/*" else { return false }
        return wanted.quality > 0 && wanted.quality >= (Self.quality(of: fallback, in: ranges)?.quality ?? 0)
    }

    /// The ranges of an `Accept` value with their qualities in thousandths; an element whose
    /// `q` is not a valid qvalue (0 to 1, at most three decimals) is left out.
    static func mediaRanges(_ accept: String) -> [(range: String, quality: Int)] {
        accept.split(separator: ",").compactMap { element in
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: [" ", "\t"]) }
            guard let range = parts.first?.lowercased(), !range.isEmpty else { return nil }
            var quality = 1000
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: [" ", "\t"]) }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                guard let parsed = qvalue(pair[1]) else { return nil }
                quality = parsed
            }
            return (range, quality)
        }
    }

    /// A qvalue (`0`, `0.5`, `1.000`) in thousandths, or nil.
    private static func qvalue(_ text: String) -> Int? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = pieces.first, whole == "0" || whole == "1" else { return nil }
        let fraction = pieces.count == 2 ? String(pieces[1]) : ""
        guard fraction.count <= 3, fraction.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        let value = Int(whole)! * 1000 + (Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0)
        return value <= 1000 ? value : nil
    }

    /// The most specific range that matches `mediaType`, with the quality it gives; nil when none does.
    private static func quality(of mediaType: String, in ranges: [(range: String, quality: Int)]) -> (range: String, quality: Int)? {
        let type = mediaType.split(separator: "/").first.map(String.init) ?? mediaType
        for candidate in [mediaType, type + "/*", "*/*"] {
            if let best = ranges.filter({ $0.range == candidate }).map(\.quality).max() { return (candidate, best) }
        }
        return nil
    }
}
