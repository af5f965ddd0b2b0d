import Foundation

/// A verified App Store transaction of an auto-renewable subscription, reduced to what
/// eligibility needs. Field names and units follow Apple's `JWSTransactionDecodedPayload`;
/// Apple's enumerations are kept raw, so that values Apple adds later are stored and shown
/// as sent, and read through the types of `AppStore/Models` (``knownOfferType`` and the like).
public struct SubscriptionTransaction: Codable, Hashable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String
    public var productId: String
    public var subscriptionGroupIdentifier: String
    /// The App Store environment that signed the transaction. Facts are computed from one
    /// environment's history only.
    public var environment: AppStoreEnvironment
    public var purchaseDate: Date
    /// When this period ends; `nil` only for data that is not an auto-renewable subscription.
    public var expiresDate: Date?
    /// Set when the App Store refunded the transaction, revoked it from Family Sharing, or
    /// revoked it because the customer upgraded.
    public var revocationDate: Date?
    /// Apple's `revocationReason`: 0 refunded for another reason (also a family member's
    /// revocation), 1 refunded because of an issue in the app; newer values name other
    /// revocations, such as a switch to a subscription bundle.
    public var revocationReason: Int?
    /// Apple's `revocationType`: `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`.
    public var revocationType: String?
    /// Apple's `revocationPercentage`: the refunded share of a prorated refund, in
    /// milliunits of a percent (40% is 40000).
    public var revocationPercentage: Int?
    /// Whether the customer upgraded to another subscription, which revoked this one.
    public var isUpgraded: Bool?
    /// Apple's `inAppOwnershipType`: `PURCHASED`, or `FAMILY_SHARED` for access a family
    /// member paid for.
    public var inAppOwnershipType: String?
    /// Apple's `transactionReason`: `PURCHASE` when the customer bought this period,
    /// `RENEWAL` when the subscription renewed on its own.
    public var transactionReason: String?
    /// Apple's `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back, 5 an
    /// App Store retention offer; later types are kept as sent.
    public var offerType: Int?
    public var offerIdentifier: String?
    /// Apple's `offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT` or `ONE_TIME`.
    public var offerDiscountType: String?
    /// The price in milliunits of the currency, as Apple gives it.
    public var price: Int?
    /// The ISO 3166-1 alpha-3 storefront code (`USA`).
    public var storefront: String?
    public var appAccountToken: String?
    /// When Apple signed this transaction; the newest signed copy of a transaction wins.
    public var signedDate: Date
    /// Apple's `appTransactionId`: the customer's download of the app, which links their
    /// subscriptions to a `RESCIND_CONSENT` notification.
    public var appTransactionId: String?
    /// Apple's `offerPeriod`: the offer's duration, an ISO 8601 duration such as `P3M`.
    public var offerPeriod: String?
    /// Apple's `billingPlanType`, e.g. `MONTHLY_COMMITMENT` for a commitment plan billed monthly.
    public var billingPlanType: String?
    /// Apple's `commitmentInfo` of a commitment plan, as sent.
    public var commitmentInfo: JSONValue?
    /// Apple's `advancedCommerceInfo`, as sent.
    public var advancedCommerceInfo: JSONValue?

    /// Inlinable so that a store decoding rows builds the value in place: called across the
    /// module boundary, the init made the value, copied it out and destroyed the first (~20
    /// strings retained and released per transaction read; issue 38).
    @inlinable
    public init(
        transactionId: String, originalTransactionId: String, bundleId: String, productId: String,
        subscriptionGroupIdentifier: String, environment: AppStoreEnvironment = .production,
        purchaseDate: Date, expiresDate: Date?, revocationDate: Date? = nil, revocationReason: Int? = nil,
        revocationType: String? = nil, revocationPercentage: Int? = nil, isUpgraded: Bool? = nil,
        offerType: Int? = nil, offerIdentifier: String? = nil, offerDiscountType: String? = nil,
        price: Int? = nil, storefront: String? = nil, appAccountToken: String? = nil,
        inAppOwnershipType: String? = nil, transactionReason: String? = nil, signedDate: Date,
        appTransactionId: String? = nil, offerPeriod: String? = nil, billingPlanType: String? = nil,
        commitmentInfo: JSONValue? = nil, advancedCommerceInfo: JSONValue? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.isUpgraded = isUpgraded
        self.inAppOwnershipType = inAppOwnershipType
        self.transactionReason = transactionReason
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.price = price
        self.storefront = storefront
        self.appAccountToken = appAccountToken
        self.signedDate = signedDate
        self.appTransactionId = appTransactionId
        self.offerPeriod = offerPeriod
        self.billingPlanType = billingPlanType
        self.commitmentInfo = commitmentInfo
        self.advancedCommerceInfo = advancedCommerceInfo
    }

    /// ``offerType`` as Apple's ``OfferType``; nil when absent or not known yet.
    public var knownOfferType: OfferType? {
        offerType.flatMap(Int32.init(exactly:)).flatMap(OfferType.init(rawValue:))
    }

    /// ``offerDiscountType`` as Apple's ``OfferDiscountType``; nil when absent or not known yet.
    public var knownOfferDiscountType: OfferDiscountType? {
        offerDiscountType.flatMap(OfferDiscountType.init(rawValue:))
    }

    /// ``inAppOwnershipType`` as Apple's ``InAppOwnershipType``; nil when absent or not known yet.
    public var knownOwnershipType: InAppOwnershipType? {
        inAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }

    /// ``transactionReason`` as Apple's ``TransactionReason``; nil when absent or not known yet.
    public var knownTransactionReason: TransactionReason? {
        transactionReason.flatMap(TransactionReason.init(rawValue:))
    }

    /// ``revocationType`` as Apple's ``RevocationType``; nil when absent or not known yet.
    public var knownRevocationType: RevocationType? {
        revocationType.flatMap(RevocationType.init(rawValue:))
    }

    /// ``revocationReason`` as Apple's ``RevocationReason``; nil when absent or not known yet.
    public var knownRevocationReason: RevocationReason? {
        revocationReason.flatMap(Int32.init(exactly:)).flatMap(RevocationReason.init(rawValue:))
    }

    /// Access a family member paid for (`inAppOwnershipType` `FAMILY_SHARED`).
    public var isFamilyShared: Bool {
        Self.isFamilyShared(ownership: inAppOwnershipType)
    }

    /// ``isFamilyShared`` of a transaction whose `inAppOwnershipType` is `ownership`: the facts
    /// read the one field where the transaction is, not a copy of the whole (issue 38).
    static func isFamilyShared(ownership: String?) -> Bool {
        ownership.flatMap(InAppOwnershipType.init(rawValue:)) == .familyShared
    }

    /// Whether the user paid for this period: false for access shared by a family member,
    /// and for a free period of any offer type (`offerDiscountType` `FREE_TRIAL`, or, when
    /// Apple gave no discount type, an offer period at price 0). A commitment plan's monthly
    /// periods are paid periods like any other.
    public var isPaid: Bool {
        Self.isPaid(ownership: inAppOwnershipType, discountType: offerDiscountType, offerType: offerType, price: price)
    }

    /// ``isPaid`` of a transaction with these fields (see ``isFamilyShared(ownership:)``).
    static func isPaid(ownership: String?, discountType: String?, offerType: Int?, price: Int?) -> Bool {
        if isFamilyShared(ownership: ownership) { return false }
        if let discountType {
            return OfferDiscountType(rawValue: discountType) != .freeTrial
        }
        return !(offerType != nil && price == 0)
    }

    /// Whether this period is under an offer other than an introductory one — promotional,
    /// offer code, win-back, App Store retention offer or any type Apple adds later: the
    /// offers that count for `waitBetweenOffersDays`.
    public var isUnderOffer: Bool {
        guard let offerType else { return false }
        return offerType != Int(OfferType.introductoryOffer.rawValue)
    }

    /// Whether the App Store gave the customer money back for this transaction.
    ///
    /// Not revoked: no. Revoked because the customer upgraded (`isUpgraded`), or with a
    /// `revocationReason` other than Apple's two refund reasons (0 and 1; the newer ones,
    /// such as a switch to a subscription bundle, are not refunds): no. Otherwise
    /// `revocationType` decides: `REFUND_FULL` and `REFUND_PRORATED` are refunds,
    /// `FAMILY_REVOKE` (and any other type) is not. Revoked without a `revocationType`, as
    /// Apple sent it before that field existed: yes, a refund.
    public var isRefund: Bool {
        Self.isRefund(revoked: revocationDate != nil, upgraded: isUpgraded, reason: revocationReason, type: revocationType)
    }

    /// ``isRefund`` of a transaction with these fields (see ``isFamilyShared(ownership:)``).
    static func isRefund(revoked: Bool, upgraded: Bool?, reason: Int?, type: String?) -> Bool {
        guard revoked, upgraded != true else { return false }
        if let reason, Int32(exactly: reason).flatMap(RevocationReason.init(rawValue:)) == nil { return false }
        guard let type else { return true }
        let known = RevocationType(rawValue: type)
        return known == .refundFull || known == .refundProrated
    }

    /// The end of the period: the earlier of expiry and revocation. A transaction without
    /// an expiry date is taken to end where it began.
    public var endDate: Date {
        let expiry = expiresDate ?? purchaseDate
        guard let revocationDate else { return expiry }
        return min(expiry, revocationDate)
    }
}
