import Foundation
import OfferSignerCore

/// Offer rules, versioned, with every change recorded. An offer belongs to an app: it is
/// known by its app's bundle ID and its offer ID, so two apps may each have an offer of the
/// same ID, each with its own versions and changes.
public protocol OfferStore: Sendable {
    /// The offer `offerId` of the app `bundleId`.
    func offer(bundleId: String, offerId: String) throws -> StoredOffer?
    /// Every offer, enabled or not, by bundle ID, then offer ID.
    func offers() throws -> [StoredOffer]
    /// Creates or replaces the rule of the offer (`rule.bundleId`, `rule.offerId`) and records
    /// the change in the same transaction; another app's offer of the same ID is never
    /// touched. A rule identical to the stored one changes nothing and keeps its version.
    func put(_ rule: OfferRule, by actor: String, at now: Date) throws -> StoredOffer
    /// Creates or replaces several rules as one change set: all of them, or none.
    func apply(_ rules: [OfferRule], by actor: String, at now: Date) throws -> [StoredOffer]
    /// Disables the offer (keeping it and its history); nil if there is no such offer.
    func disable(bundleId: String, offerId: String, by actor: String, at now: Date) throws -> StoredOffer?
    /// Changes oldest first, after the change with ID `afterId`, of one app's offers when
    /// `bundleId` is given, of offers of that ID when `offerId` is.
    func changes(bundleId: String?, offerId: String?, afterId: Int64, limit: Int) throws -> [OfferChange]
}

/// An offer rule with its bookkeeping.
public struct StoredOffer: Sendable, Hashable {
    public var rule: OfferRule
    /// 1 on creation, then +1 on every change.
    public var version: Int
    public var createdAt: Date
    public var updatedAt: Date
}

/// One change to an offer rule: who, when, before and after.
public struct OfferChange: Sendable, Hashable {
    public var id: Int64
    /// The app whose offer changed.
    public var bundleId: String
    public var offerId: String
    public var version: Int
    /// `create`, `update` or `disable`.
    public var action: String
    public var apiKeyName: String
    public var changedAt: Date
    public var before: OfferRule?
    public var after: OfferRule?
}
