/// A notification as received, with the fields used to find it again.
public struct StoredNotification: Sendable, Hashable {
    public var notificationUUID: String
    public var notificationType: String
    public var subtype: String?
    public var bundleId: String?
    public var environment: String?
    public var signedDate: Int64
    public var receivedAt: Int64
    /// The compact JWS exactly as Apple sent it.
    public var signedPayload: String
    /// For a `RESCIND_CONSENT` notification, the app download (`appTransactionId` of its
    /// verified app transaction) whose consent it withdraws; stored with the notification.
    public var rescindsConsentOf: String?

    public init(notificationUUID: String, notificationType: String, subtype: String?, bundleId: String?,
                environment: String?, signedDate: Int64, receivedAt: Int64, signedPayload: String,
                rescindsConsentOf: String? = nil) {
        self.rescindsConsentOf = rescindsConsentOf
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.bundleId = bundleId
        self.environment = environment
        self.signedDate = signedDate
        self.receivedAt = receivedAt
        self.signedPayload = signedPayload
    }
}
