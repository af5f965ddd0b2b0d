import Foundation
import OfferSignerCore

/// The time window and filters of a Get Notification History request.
///
/// Apple keeps 180 days of notifications in production and 30 in the sandbox; an end date in
/// the future stands for now. Give either ``transactionId`` or ``notificationType``, not both.
///
/// [NotificationHistoryRequest](https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest)
public struct NotificationHistoryRequest: Encodable, Hashable, Sendable {
    /// The start of the window (sent in milliseconds).
    public var startDate: Date
    /// The end of the window, after ``startDate`` (sent in milliseconds).
    public var endDate: Date
    /// Only notifications of this type.
    public var notificationType: NotificationTypeV2?
    /// Only notifications of this subtype (with its ``notificationType``).
    public var notificationSubtype: NotificationSubtype?
    /// Only the notifications of the customer this transaction belongs to.
    public var transactionId: String?
    /// Only notifications that did not reach the server (including those Apple still retries).
    public var onlyFailures: Bool?

    public init(startDate: Date, endDate: Date, notificationType: NotificationTypeV2? = nil,
                notificationSubtype: NotificationSubtype? = nil, transactionId: String? = nil, onlyFailures: Bool? = nil) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }

    enum CodingKeys: String, CodingKey {
        case startDate, endDate, notificationType, notificationSubtype, transactionId, onlyFailures
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(startDate.milliseconds, forKey: .startDate)
        try container.encode(endDate.milliseconds, forKey: .endDate)
        try container.encodeIfPresent(notificationType, forKey: .notificationType)
        try container.encodeIfPresent(notificationSubtype, forKey: .notificationSubtype)
        try container.encodeIfPresent(transactionId, forKey: .transactionId)
        try container.encodeIfPresent(onlyFailures, forKey: .onlyFailures)
    }
}
