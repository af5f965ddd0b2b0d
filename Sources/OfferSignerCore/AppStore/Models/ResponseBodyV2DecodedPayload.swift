/// The decoded `signedPayload` of an App Store Server Notification V2.
///
/// Unknown fields are ignored and enumerations keep Apple's raw value, so values Apple adds
/// later still decode. Dates are Apple's: integer milliseconds since 1970.
///
/// [ResponseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload)
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// The notification type as Apple sent it, e.g. `"DID_RENEW"`; see ``notificationType``.
    public var rawNotificationType: String
    /// The notification subtype as Apple sent it, e.g. `"INITIAL_BUY"`; see ``subtype``.
    public var rawSubtype: String?
    /// The unique identifier of the notification; Apple resends a notification with the same one.
    public var notificationUUID: String
    /// The notification format version, `"2.0"`.
    public var version: String?
    /// When the App Store signed the notification, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The app, environment and signed transaction / renewal info the notification is about.
    public var data: NotificationData?
    /// The outcome of a subscription-renewal-date extension request (`RENEWAL_EXTENSION` / `SUMMARY`).
    public var summary: NotificationSummary?
    /// The external purchase token (`EXTERNAL_PURCHASE_TOKEN` notifications).
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// The app and its signed app transaction (`RESCIND_CONSENT` notifications).
    public var appData: AppData?

    /// The notification type, or nil for a type this code does not know yet.
    public var notificationType: NotificationTypeV2? { NotificationTypeV2(rawValue: rawNotificationType) }
    /// The subtype, or nil when absent or not known yet.
    public var subtype: NotificationSubtype? { rawSubtype.flatMap(NotificationSubtype.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID, version, signedDate, data, summary, externalPurchaseToken, appData
    }
}
