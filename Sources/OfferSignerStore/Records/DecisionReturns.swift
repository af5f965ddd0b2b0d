/// How many users were treated (signed) and held out of an offer, and how many of each returned.
public struct DecisionReturns: Sendable, Hashable {
    public var treatedUsers: Int = 0
    public var treatedReturned: Int = 0
    public var holdoutUsers: Int = 0
    public var holdoutReturned: Int = 0
}
