/// The ranges the numbers of verified App Store data must lie in before anything uses them.
/// Apple signs the data, but the service must never trap on it: a date near `Int64.max`
/// milliseconds cannot be converted back from a `Date`, and a negative price or count is
/// nonsense. A payload with a number out of range is refused whole (``SignedDataError/valueOutOfRange(field:value:expected:)``),
/// so nothing of it is stored. Enumerations keep any raw value, as Apple adds new ones.
enum AppStoreValueRanges {
    /// Dates, in milliseconds since 1970: 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.
    static let date: ClosedRange<Int64> = 0...253_402_300_799_999
    /// Prices (in milliunits), counts and identifiers.
    static let nonNegative: ClosedRange<Int64> = 0...Int64.max
    /// A share of a refund, in milliunits of a percent.
    static let percentage: ClosedRange<Int64> = 0...100_000

    /// What `range` is, in words, for the refusal.
    static func describe(_ range: ClosedRange<Int64>) -> String {
        switch range {
        case date: "a time from 1970 to 9999 in milliseconds since 1970"
        case nonNegative: "a number of at least 0"
        case percentage: "a share from 0 to 100000 thousandths of a percent"
        default: "between \(range.lowerBound) and \(range.upperBound)"
        }
    }

    /// Refuses the first of `fields` (name, value, range) whose value lies outside its range.
    static func check(_ fields: [(String, Int64?, ClosedRange<Int64>)]) throws(SignedDataError) {
        for (name, value, range) in fields {
            if let value, !range.contains(value) {
                throw SignedDataError.valueOutOfRange(field: name, value: value, expected: describe(range))
            }
        }
    }
}

extension JWSTransactionDecodedPayload {
    /// Refuses a number out of ``AppStoreValueRanges``.
    func checkRanges() throws(SignedDataError) {
        try AppStoreValueRanges.check([
            ("purchaseDate", purchaseDate, AppStoreValueRanges.date),
            ("originalPurchaseDate", originalPurchaseDate, AppStoreValueRanges.date),
            ("expiresDate", expiresDate, AppStoreValueRanges.date),
            ("signedDate", signedDate, AppStoreValueRanges.date),
            ("revocationDate", revocationDate, AppStoreValueRanges.date),
            ("quantity", quantity.map(Int64.init), AppStoreValueRanges.nonNegative),
            ("price", price, AppStoreValueRanges.nonNegative),
            ("revocationPercentage", revocationPercentage.map(Int64.init), AppStoreValueRanges.percentage),
        ])
    }
}

extension JWSRenewalInfoDecodedPayload {
    /// Refuses a number out of ``AppStoreValueRanges``.
    func checkRanges() throws(SignedDataError) {
        try AppStoreValueRanges.check([
            ("gracePeriodExpiresDate", gracePeriodExpiresDate, AppStoreValueRanges.date),
            ("signedDate", signedDate, AppStoreValueRanges.date),
            ("recentSubscriptionStartDate", recentSubscriptionStartDate, AppStoreValueRanges.date),
            ("renewalDate", renewalDate, AppStoreValueRanges.date),
            ("renewalPrice", renewalPrice, AppStoreValueRanges.nonNegative),
        ])
    }
}

extension ResponseBodyV2DecodedPayload {
    /// Refuses a number out of ``AppStoreValueRanges``, in the notification and the objects it
    /// carries (the nested signed data is checked when it is verified).
    func checkRanges() throws(SignedDataError) {
        try AppStoreValueRanges.check([
            ("signedDate", signedDate, AppStoreValueRanges.date),
            ("data.appAppleId", data?.appAppleId, AppStoreValueRanges.nonNegative),
            ("summary.appAppleId", summary?.appAppleId, AppStoreValueRanges.nonNegative),
            ("summary.succeededCount", summary?.succeededCount, AppStoreValueRanges.nonNegative),
            ("summary.failedCount", summary?.failedCount, AppStoreValueRanges.nonNegative),
            ("externalPurchaseToken.tokenCreationDate", externalPurchaseToken?.tokenCreationDate, AppStoreValueRanges.date),
            ("externalPurchaseToken.appAppleId", externalPurchaseToken?.appAppleId, AppStoreValueRanges.nonNegative),
            ("appData.appAppleId", appData?.appAppleId, AppStoreValueRanges.nonNegative),
        ])
    }
}
