/// How many signing requests for an offer were refused on one day for one criterion.
public struct RefusalCount: Sendable, Hashable {
    /// The day, as whole days since 1970-01-01 (UTC).
    public var day: Int64
    public var offer: OfferKey
    /// The failed criterion (`minPaidDays`, …), or empty for refused requests whatever the criteria.
    public var criterion: String
    public var count: Int

    public init(day: Int64, offer: OfferKey, criterion: String, count: Int) {
        self.day = day
        self.offer = offer
        self.criterion = criterion
        self.count = count
    }

    /// The criterion of the count of refused requests (a request may fail several criteria).
    public static let requests = ""
}
